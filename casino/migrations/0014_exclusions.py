"""Exclusions: a player self-excluded or barred is refused at every door that seats them,
takes their wager, buy-in or deposit, or gives them the bank (casino.exclusions).

The record is append-only but for its lift, once: PostgreSQL holds it for every role
(``sql/0014_exclusions.pg.sql``, a BEFORE INSERT OR UPDATE OR DELETE trigger, with its way
back), so a barring cannot be edited away or deleted, only lifted, with who and why.
"""
from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):

    dependencies = [
        ('casino', '0013_approve_buy_in_permission'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Exclusion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('self', 'Self-excluded'), ('barred', 'Barred')], max_length=10)),
                ('starts', models.DateField()),
                ('until', models.DateField(blank=True, help_text='Inclusive; empty: for good.', null=True)),
                ('reason', models.TextField()),
                ('recorded_at', models.DateTimeField(auto_now_add=True)),
                ('lifted_at', models.DateTimeField(blank=True, null=True)),
                ('lift_reason', models.TextField(blank=True, default='')),
                ('lift_approved_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('lifted_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='exclusions', to='casino.player')),
                ('recorded_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-id'],
                'permissions': [('lift_exclusion', 'Can lift a self-exclusion (or approve lifting one)'), ('lift_barring', 'Can lift a barring')],
                'indexes': [models.Index(fields=['player', 'lifted_at'], name='casino_excl_player__2da369_idx')],
                'constraints': [models.CheckConstraint(condition=models.Q(('kind__in', ['self', 'barred'])), name='exclusion_kind_known'), models.CheckConstraint(condition=models.Q(('until__isnull', True), ('until__gte', models.F('starts')), _connector='OR'), name='exclusion_ends_after_it_starts'), models.CheckConstraint(condition=models.Q(('reason', ''), _negated=True), name='exclusion_has_a_reason'), models.CheckConstraint(condition=models.Q(models.Q(('lift_approved_by__isnull', True), ('lift_reason', ''), ('lifted_at__isnull', True), ('lifted_by__isnull', True)), models.Q(('lifted_at__isnull', False), ('lifted_by__isnull', False), models.Q(('lift_reason', ''), _negated=True)), _connector='OR'), name='exclusion_lifted_whole'), models.CheckConstraint(condition=models.Q(('lift_approved_by__isnull', True), models.Q(('lift_approved_by', models.F('lifted_by')), _negated=True), _connector='OR'), name='exclusion_lift_approved_by_another_person')],
            },
        ),
        *migration_operations("0014_exclusions", Path(__file__).resolve().parent / "sql"),
    ]
