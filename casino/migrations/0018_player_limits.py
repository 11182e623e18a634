"""A player's own limits (casino.models.PlayerLimit): append-only history, refused UPDATE
and DELETE by a trigger whatever role runs them (sql/0018_player_limits.pg.sql, with its
way back), on top of the runtime role's grants (casino.apps: insert and read only)."""

from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):

    dependencies = [
        ('casino', '0017_play_games_permission'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='PlayerLimit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('wager_per_day', 'Daily wager limit'), ('loss_per_day', 'Daily loss limit')], max_length=20)),
                ('amount', models.BigIntegerField(blank=True, help_text="Minor units of the player's currency; empty: no limit.", null=True)),
                ('effective_from', models.DateTimeField()),
                ('set_at', models.DateTimeField()),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='limits', to='casino.player')),
                ('set_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['player_id', 'kind', 'effective_from', 'id'],
                'indexes': [models.Index(fields=['player', 'kind', 'effective_from'], name='casino_limit_player_kind_from')],
                'constraints': [models.CheckConstraint(condition=models.Q(('amount__isnull', True), ('amount__gt', 0), _connector='OR'), name='player_limit_amount_positive'), models.CheckConstraint(condition=models.Q(('kind__in', ['wager_per_day', 'loss_per_day'])), name='player_limit_kind_known'), models.CheckConstraint(condition=models.Q(('effective_from__gte', models.F('set_at'))), name='player_limit_not_in_the_past')],
            },
        ),
        *migration_operations("0018_player_limits", Path(__file__).resolve().parent / "sql"),
    ]
