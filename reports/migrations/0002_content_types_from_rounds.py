"""The moved models' content types follow them (app_label rounds -> reports), so the
permissions that point to them, and the groups and users holding those, follow too:
``rounds.close_gaming_day`` is ``reports.close_gaming_day``, ``rounds.view_report`` is
``reports.view_report``. The rows are updated in place, so every permission keeps its id
and every grant of it stays; the admin's history keeps pointing at the same content type.

A database migrated from nothing has no content types yet (post_migrate makes them, under
reports). One migrated part of the way with a post_migrate in between (``migrate reports
0001``) may hold both: the grants of the fresh ones are given to the old ones, which then
take their place.
"""

from typing import Any

from django.conf import settings
from django.db import migrations

MODELS = ("report", "closedday", "closedtableday")


def _merge(apps: Any, db: str, *, into: Any, gone: Any) -> None:
    """Give the permissions of content type ``gone`` to ``into`` (one of each codename),
    with everyone who holds them, and delete ``gone``."""
    Permission = apps.get_model("auth", "Permission")
    holdings = [(apps.get_model("auth", "Group").permissions.through, "group_id"),
                (apps.get_model(settings.AUTH_USER_MODEL).user_permissions.through,
                 "user_id")]
    for perm in Permission.objects.using(db).filter(content_type=gone):
        kept = Permission.objects.using(db).filter(content_type=into,
                                                   codename=perm.codename).first()
        if kept is None:
            perm.content_type = into
            perm.save(update_fields=["content_type"])
            continue
        for through, holder in holdings:
            rows = through.objects.using(db)
            holders = set(rows.filter(permission=perm).values_list(holder, flat=True))
            holders -= set(rows.filter(permission=kept).values_list(holder, flat=True))
            rows.bulk_create([through(**{holder: h, "permission_id": kept.pk})
                              for h in sorted(holders)])
        perm.delete()
    gone.delete()


def _move(apps: Any, schema_editor: Any, frm: str, to: str) -> None:
    db = schema_editor.connection.alias
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MODELS:
        old = ContentType.objects.using(db).filter(app_label=frm, model=model).first()
        if old is None:
            continue
        made = ContentType.objects.using(db).filter(app_label=to, model=model).first()
        if made is not None:
            _merge(apps, db, into=old, gone=made)
        old.app_label = to
        old.save(update_fields=["app_label"])
    ContentType.objects.clear_cache()


def forwards(apps: Any, schema_editor: Any) -> None:
    _move(apps, schema_editor, "rounds", "reports")


def backwards(apps: Any, schema_editor: Any) -> None:
    _move(apps, schema_editor, "reports", "rounds")


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0001_initial'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('auth', '0012_alter_user_first_name_max_length'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
