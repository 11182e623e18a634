"""The reports' models, moved here from rounds in Django's state only: Report, ClosedDay and
ClosedTableDay. Nothing in the database changes: their tables keep the names rounds'
migrations gave them (``db_table``), with their rows, sequences, constraints, grants and
the append-only triggers of rounds/migrations/0008. Rounds' ``reports_move_out``
migration then removes them from rounds' state, and reports/migrations/0002 moves their
content types, so the permissions (and the groups and users holding them) follow.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        # The last migration of rounds that shaped these tables.
        ('rounds', '0017_drop_variance_explained_later'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='ClosedDay',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('gaming_day', models.DateField(unique=True)),
                        ('closed_at', models.DateTimeField()),
                        ('chain_seq', models.BigIntegerField()),
                        ('chain_hash', models.CharField(max_length=64)),
                        ('closed_by', models.ForeignKey(blank=True, help_text='Empty when the scheduled close did it.', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'rounds_closedday',
                        'ordering': ['-gaming_day'],
                        'permissions': [('close_gaming_day', 'Can close a gaming day')],
                    },
                ),
                migrations.CreateModel(
                    name='ClosedTableDay',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('table_name', models.CharField(max_length=100)),
                        ('currency', models.CharField(max_length=3)),
                        ('rounds_settled', models.IntegerField()),
                        ('rounds_house_banked', models.IntegerField()),
                        ('rounds_player_banked', models.IntegerField()),
                        ('rounds_co_banked', models.IntegerField()),
                        ('rounds_reversed', models.IntegerField()),
                        ('rounds_voided', models.IntegerField()),
                        ('handle', models.BigIntegerField()),
                        ('house_stakes', models.BigIntegerField()),
                        ('house_win_house_banked', models.BigIntegerField()),
                        ('house_win_house_stakes', models.BigIntegerField()),
                        ('commission_players', models.BigIntegerField()),
                        ('commission_bankers', models.BigIntegerField()),
                        ('collection_banker', models.BigIntegerField(default=0)),
                        ('collection_players', models.BigIntegerField(default=0)),
                        ('adjustments', models.BigIntegerField(default=0, help_text='House result moved back this day by reversals of rounds of days closed before.')),
                        ('closed_day', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='tables', to='reports.closedday')),
                        ('table', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='rounds.table')),
                    ],
                    options={
                        'db_table': 'rounds_closedtableday',
                        'ordering': ['closed_day', 'table_id'],
                        'constraints': [models.UniqueConstraint(fields=('closed_day', 'table'), name='closed_table_day_unique_table'), models.UniqueConstraint(condition=models.Q(('table__isnull', True)), fields=('closed_day', 'currency'), name='closed_table_day_one_total_per_currency')],
                    },
                ),
                migrations.CreateModel(
                    name='Report',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(max_length=30)),
                        ('format', models.CharField(max_length=10)),
                        ('parameters', models.JSONField(default=dict, help_text='As asked, in plain text.')),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='queued', max_length=10)),
                        ('progress', models.PositiveSmallIntegerField(default=0, help_text='Percent done.')),
                        ('error', models.TextField(blank=True)),
                        ('attempts', models.PositiveSmallIntegerField(default=0)),
                        ('requested_at', models.DateTimeField(auto_now_add=True)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('file', models.FileField(blank=True, upload_to='reports/%Y/%m/')),
                        ('file_name', models.CharField(blank=True, max_length=200)),
                        ('content_type', models.CharField(blank=True, max_length=60)),
                        ('chain_seq', models.BigIntegerField(blank=True, null=True)),
                        ('chain_hash', models.CharField(blank=True, max_length=64)),
                        ('requested_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'rounds_report',
                        'ordering': ['-id'],
                        'constraints': [models.CheckConstraint(condition=models.Q(('progress__lte', 100)), name='report_progress_percent'), models.CheckConstraint(condition=models.Q(models.Q(('status', 'done'), _negated=True), models.Q(('file', ''), _negated=True), _connector='OR'), name='report_done_has_file'), models.CheckConstraint(condition=models.Q(models.Q(('status', 'failed'), _negated=True), models.Q(('error', ''), _negated=True), _connector='OR'), name='report_failed_says_why')],
                    },
                ),
            ],
        ),
    ]
