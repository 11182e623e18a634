"""Dealers sign in at tables, and each round records who dealt it.

- ``DealerShift``: a dealer at a table from sign-in to relief; one open shift per table and
  one per dealer (partial unique indexes), an end never before the start. Its guard
  (``sql/0023_dealer_shifts.pg.sql``, with its way back) lets a shift change only by its end,
  once, and refuses deleting one, for every role.
- ``Round.dealer`` and ``Round.dealer_shift``: set when a round opens. Rounds opened before
  stay empty (a finished round never changes, 0021's guard): the readers show whoever
  opened them.
"""

from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):

    dependencies = [
        ('rounds', '0022_variance_explanations'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='round',
            name='dealer',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.CreateModel(
            name='DealerShift',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('gaming_day', models.DateField(help_text='The gaming day the shift started in.')),
                ('started_at', models.DateTimeField()),
                ('ended_at', models.DateTimeField(blank=True, null=True)),
                ('dealer', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='dealer_shifts', to=settings.AUTH_USER_MODEL)),
                ('ended_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('started_by', models.ForeignKey(help_text='The dealer, or a pit boss who named them.', on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='dealer_shifts', to='rounds.table')),
            ],
            options={
                'ordering': ['id'],
            },
        ),
        migrations.AddField(
            model_name='round',
            name='dealer_shift',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='rounds', to='rounds.dealershift'),
        ),
        migrations.AddIndex(
            model_name='dealershift',
            index=models.Index(fields=['gaming_day', 'table'], name='rounds_dealershift_day_table'),
        ),
        migrations.AddConstraint(
            model_name='dealershift',
            constraint=models.UniqueConstraint(condition=models.Q(('ended_at__isnull', True)), fields=('table',), name='dealer_shift_one_open_per_table'),
        ),
        migrations.AddConstraint(
            model_name='dealershift',
            constraint=models.UniqueConstraint(condition=models.Q(('ended_at__isnull', True)), fields=('dealer',), name='dealer_shift_one_open_per_dealer'),
        ),
        migrations.AddConstraint(
            model_name='dealershift',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('ended_at__isnull', True), ('ended_by__isnull', True)), models.Q(('ended_at__gte', models.F('started_at')), ('ended_by__isnull', False)), _connector='OR'), name='dealer_shift_ends_after_it_starts'),
        ),
        *migration_operations("0023_dealer_shifts", Path(__file__).resolve().parent / "sql"),
    ]
