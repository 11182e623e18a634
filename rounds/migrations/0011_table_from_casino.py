"""Tables move from casino to rounds, beside their seats and rounds; no row is copied.

The database keeps the same table, renamed ``casino_table`` -> ``rounds_table`` with its
sequence and the constraints and indexes Django named after it, so a database migrated
here has the names a fresh ``migrate`` of rounds.Table would give. The FKs of the rounds
models change in the state only (they already point at that table). The content type
follows (app_label casino -> rounds), so the permissions that point to it, and the groups
and users holding them, follow too: ``casino.run_rounds`` is ``rounds.run_rounds``.
casino/migrations/0008 then removes Table from casino's state.
"""

from decimal import Decimal
from typing import Any

import django.contrib.postgres.fields
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.backends.utils import names_digest, split_identifier

import rounds.models

OLD, NEW = "casino_table", "rounds_table"
# The tables whose "table" FK points at it (rounds models).
REFERRING = ("rounds_round", "rounds_seat", "rounds_tablesettingschange",
             "rounds_closedtableday", "rounds_seatchange")
FK_SUFFIX = "_fk_%(to_table)s_%(to_column)s"  # Django's, BaseDatabaseSchemaEditor


def index_name(table: str, columns: list[str], suffix: str, max_length: int) -> str:
    """The name Django 5.2's schema editor gives an index or constraint of ``columns``
    (written out here, from its public digest: a migration must keep giving the names the
    database got then, whatever a later Django's private naming does)."""
    _, table = split_identifier(table)
    hashed = f"{names_digest(table, *columns, length=8)}{suffix}"
    name = f"{table}_{'_'.join(columns)}_{hashed}"
    if len(name) <= max_length:
        return name
    if len(hashed) > max_length / 3:
        hashed = hashed[:max_length // 3]
    other = (max_length - len(hashed)) // 2 - 1
    name = f"{table[:other]}_{'_'.join(columns)[:other]}_{hashed}"
    return f"D{name[:-1]}" if name[0] == "_" or name[0].isdigit() else name


def _renames(apps: Any, schema_editor: Any, frm: str, to: str) -> list[str]:
    """The statements renaming the table ``frm`` and what Django named after it to ``to``.
    The hashed names are computed as the schema editor computes them, so they are the ones
    in the database (and the ones a fresh create under the new name would give)."""
    max_length = schema_editor.connection.ops.max_name_length() or 200

    def name(table: str, columns: list[str], suffix: str = "") -> str:
        return index_name(table, columns, suffix, max_length)

    quote = schema_editor.quote_name
    user = apps.get_model(settings.AUTH_USER_MODEL)._meta
    to_user = FK_SUFFIX % {"to_table": user.db_table, "to_column": user.pk.column}

    def fk(table: str, target: str) -> str:
        return name(table, ["table_id"], suffix=FK_SUFFIX % {"to_table": target,
                                                              "to_column": "id"})

    # (ALTER TABLE target or None for ALTER INDEX / SEQUENCE, old name, new name)
    own = [
        ("CONSTRAINT", f"{frm}_pkey", f"{to}_pkey"),
        ("CONSTRAINT", f"{frm}_name_key", f"{to}_name_key"),
        ("CONSTRAINT", name(frm, ["created_by_id"], suffix=to_user),
         name(to, ["created_by_id"], suffix=to_user)),
        ("INDEX", name(frm, ["name"], suffix="_like"), name(to, ["name"], suffix="_like")),
        ("INDEX", name(frm, ["created_by_id"]), name(to, ["created_by_id"])),
        ("SEQUENCE", f"{frm}_id_seq", f"{to}_id_seq"),
    ]
    statements = [f"ALTER TABLE {quote(frm)} RENAME TO {quote(to)}"]
    for kind, old, new in own:
        if kind == "CONSTRAINT":
            statements.append(f"ALTER TABLE {quote(to)} RENAME CONSTRAINT {quote(old)}"
                              f" TO {quote(new)}")
        else:
            statements.append(f"ALTER {kind} {quote(old)} RENAME TO {quote(new)}")
    for table in REFERRING:
        statements.append(f"ALTER TABLE {quote(table)} RENAME CONSTRAINT"
                          f" {quote(fk(table, frm))} TO {quote(fk(table, to))}")
    return statements


def _move(apps: Any, schema_editor: Any, frm_app: str, to_app: str) -> None:
    frm, to = f"{frm_app}_table", f"{to_app}_table"
    for statement in _renames(apps, schema_editor, frm, to):
        schema_editor.execute(statement)
    # The permissions (and the groups and users holding them) point to the content type.
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.using(schema_editor.connection.alias).filter(
        app_label=frm_app, model="table").update(app_label=to_app)
    ContentType.objects.clear_cache()


def forwards(apps: Any, schema_editor: Any) -> None:
    _move(apps, schema_editor, "casino", "rounds")


def backwards(apps: Any, schema_editor: Any) -> None:
    _move(apps, schema_editor, "rounds", "casino")


class Migration(migrations.Migration):

    dependencies = [
        ("rounds", "0010_seat_changes"),
        ("casino", "0007_table_created_by"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(forwards, backwards)],
            state_operations=[
                migrations.CreateModel(
                    name='Table',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=100, unique=True)),
                        ('currency', models.CharField(choices=[('EUR', 'Euro'), ('USD', 'US dollar'), ('GBP', 'Pound sterling'), ('CHF', 'Swiss franc')], default='EUR', max_length=3)),
                        ('is_open', models.BooleanField(default=True)),
                        ('min_bet', models.BigIntegerField(default=200)),
                        ('max_bet', models.BigIntegerField(default=10000)),
                        ('commission_rate', models.DecimalField(decimal_places=4, default=Decimal('0.0500'), help_text='Fraction of a win taken as commission (0.0500 = 5%).', max_digits=5)),
                        ('commission_rounding', models.CharField(choices=[('exact', 'Exact to the minor unit, half up'), ('up_to_quarter', 'Up to the next 0.25'), ('down_to_unit', 'Down to a whole unit')], default='exact', max_length=20)),
                        ('wheel', models.CharField(choices=[('second_highest', 'A-2-3-4-5 is the second-highest straight'), ('lowest', 'A-2-3-4-5 is the lowest straight')], default='second_highest', max_length=20)),
                        ('house_way', models.CharField(default='foxwoods', max_length=30)),
                        ('bank_rotation', models.CharField(choices=[('alternate', 'House every other round, offered in seat order between'), ('circle', 'Each player in turn, then the house'), ('open', 'Any seated player may ask; pit staff decide')], default='alternate', max_length=20)),
                        ('banker_must_have_played', models.BooleanField(default=True)),
                        ('house_stake_cap', models.CharField(choices=[('last_wager', "The banker's own last wager against the house"), ('table_max', 'The table maximum')], default='last_wager', max_length=20)),
                        ('foul_policy', models.CharField(choices=[('house_way', 'The dealer re-sets the hand the house way'), ('forfeit', 'The fouled hand loses')], default='house_way', max_length=20)),
                        ('co_banking', models.BooleanField(default=False)),
                        ('first_stack', models.CharField(choices=[('after_counted', 'Dealing starts after the counted position'), ('counted', 'The counted position takes the first stack')], default='after_counted', max_length=20)),
                        ('deal_modes', django.contrib.postgres.fields.ArrayField(base_field=models.CharField(choices=[('electronic', 'Electronic (the service shuffles and rolls the dice)'), ('physical', 'Physical (the dealer records the cards dealt)'), ('results', 'Results only (the dealer records each outcome)')], max_length=20), default=rounds.models.default_deal_modes, help_text="How this table's rounds may be dealt.", size=None)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'ordering': ['id'],
                        'permissions': [('run_rounds', 'Can run rounds at a table (deal, wagers, settle)')],
                        'constraints': [
                            models.CheckConstraint(condition=models.Q(('min_bet__gt', 0), ('max_bet__gte', models.F('min_bet'))), name='table_limits_positive_and_ordered'),
                            models.CheckConstraint(condition=models.Q(('commission_rate__gte', 0), ('commission_rate__lt', 1)), name='table_commission_rate_in_range'),
                            models.CheckConstraint(condition=models.Q(('deal_modes__len__gte', 1), ('deal_modes__contained_by', ['electronic', 'physical', 'results'])), name='table_deal_modes_known_and_not_empty'),
                        ],
                    },
                ),
                migrations.AlterField(
                    model_name='closedtableday',
                    name='table',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='rounds.table'),
                ),
                migrations.AlterField(
                    model_name='round',
                    name='table',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='rounds', to='rounds.table'),
                ),
                migrations.AlterField(
                    model_name='seat',
                    name='table',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='seats', to='rounds.table'),
                ),
                migrations.AlterField(
                    model_name='seatchange',
                    name='table',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='seat_changes', to='rounds.table'),
                ),
                migrations.AlterField(
                    model_name='tablesettingschange',
                    name='table',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='settings_changes', to='rounds.table'),
                ),
            ],
        ),
    ]
