"""A drop count awaits its witness: the named witness confirms it with their own
credentials before anything is posted, and a variance is explained by someone other than
its counter (rounds/services/drop.py).

- ``status`` gains ``awaiting_witness`` (recorded, nothing posted) and ``refused`` (the
  witness did not confirm it: nothing posted, the box countable again); ``witnessed_at``
  says when the witness signed. ``recorded`` and ``variance`` are read when the witness
  confirms, so a count awaiting them has neither.
- ``note``: what the counter says of the count; it closes no exception.
- One posted count per table and day, and one awaiting its witness (a correction's recount
  waits beside the count it replaces); a posted count has its witness's time.
- The guard on drop counts (0021) lets the witness's confirmation or refusal through and
  refuses a variance explained by its own counter; counts posted before this migration
  take their count's time as their witness's (``sql/0022_...pg.sql``).
"""

from pathlib import Path

from django.conf import settings
from django.db import migrations, models

from ledger.sqlfiles import migration_operations

SQL = migration_operations("0024_drop_count_awaits_its_witness",
                           Path(__file__).resolve().parent / "sql")


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0017_collection_account_kind'),
        ('rounds', '0023_dealer_shifts'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        SQL[0],
        migrations.RemoveConstraint(
            model_name='dropcount',
            name='drop_count_one_per_table_and_day',
        ),
        migrations.RemoveConstraint(
            model_name='dropcount',
            name='drop_count_status_follows_variance',
        ),
        migrations.AddField(
            model_name='dropcount',
            name='note',
            field=models.TextField(blank=True, default=''),
        ),
        migrations.AddField(
            model_name='dropcount',
            name='witnessed_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='dropcount',
            name='recorded',
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='dropcount',
            name='status',
            field=models.CharField(choices=[('awaiting_witness', 'Awaiting its witness'), ('refused', 'Refused by its witness'), ('balanced', 'Counted as recorded'), ('unexplained', 'Variance to explain'), ('explained', 'Variance explained'), ('corrected', 'Corrected by a later count')], max_length=20),
        ),
        migrations.AlterField(
            model_name='dropcount',
            name='variance',
            field=models.BigIntegerField(blank=True, null=True),
        ),
        SQL[1],
        SQL[2],
        migrations.AddConstraint(
            model_name='dropcount',
            constraint=models.UniqueConstraint(condition=models.Q(('status__in', ['corrected', 'refused', 'awaiting_witness']), _negated=True), fields=('table', 'gaming_day'), name='drop_count_one_per_table_and_day'),
        ),
        migrations.AddConstraint(
            model_name='dropcount',
            constraint=models.UniqueConstraint(condition=models.Q(('status', 'awaiting_witness')), fields=('table', 'gaming_day'), name='drop_count_one_awaiting_witness_per_table_and_day'),
        ),
        migrations.AddConstraint(
            model_name='dropcount',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('entry__isnull', True), ('recorded__isnull', True), ('status', 'awaiting_witness'), ('variance__isnull', True), ('variance_entry__isnull', True), ('witnessed_at__isnull', True)), models.Q(('entry__isnull', True), ('recorded__isnull', True), ('status', 'refused'), ('variance__isnull', True), ('variance_entry__isnull', True), ('witnessed_at__isnull', False)), models.Q(models.Q(('status__in', ['awaiting_witness', 'refused']), _negated=True), ('recorded__isnull', False), ('variance__isnull', False), ('witnessed_at__isnull', False)), _connector='OR'), name='drop_count_posted_when_witnessed'),
        ),
        migrations.AddConstraint(
            model_name='dropcount',
            constraint=models.CheckConstraint(condition=models.Q(('status', 'corrected'), models.Q(('reason', ''), ('status', 'awaiting_witness')), models.Q(('status', 'refused'), models.Q(('reason', ''), _negated=True)), models.Q(('status', 'balanced'), ('variance', 0)), models.Q(('status', 'unexplained'), models.Q(('variance', 0), _negated=True), ('reason', '')), models.Q(('status', 'explained'), models.Q(('variance', 0), _negated=True), models.Q(('reason', ''), _negated=True), ('explained_at__isnull', False)), _connector='OR'), name='drop_count_status_follows_variance'),
        ),
        SQL[3],
    ]
