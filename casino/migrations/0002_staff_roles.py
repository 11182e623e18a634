"""Create the four staff roles as groups.

Their permissions are assigned by casino.roles.sync_roles after every migrate (Django
creates permissions only after migrations), from the one list in casino/roles.py.
"""

from django.db import migrations

ROLES = ("dealer", "pit_boss", "cage", "auditor")


def create_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for name in ROLES:
        Group.objects.using(schema_editor.connection.alias).get_or_create(name=name)


def remove_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.using(schema_editor.connection.alias).filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
