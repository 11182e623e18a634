"""A pit boss explains a table's day outside its expected band (rounds.variance): the
explanation is stored once per table and gaming day, with who and when and the figures it
speaks of, and PostgreSQL refuses to change or remove it (``sql/0022_variance_explanations
.pg.sql``, with its way back)."""

from pathlib import Path

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):

    dependencies = [
        ('rounds', '0021_floor_guards'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='VarianceExplanation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('gaming_day', models.DateField()),
                ('reason', models.TextField()),
                ('rounds', models.PositiveIntegerField()),
                ('result', models.BigIntegerField()),
                ('explained_at', models.DateTimeField()),
                ('explained_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='variance_explanations', to='rounds.table')),
            ],
            options={
                'ordering': ['id'],
                'permissions': [('explain_variance', "Can explain a table's day outside its expected band")],
                'constraints': [models.UniqueConstraint(fields=('table', 'gaming_day'), name='variance_explanation_one_per_table_and_day'), models.CheckConstraint(condition=models.Q(('reason__regex', '^\\s*$'), _negated=True), name='variance_explanation_reason_in_words'), models.CheckConstraint(condition=models.Q(('rounds__gte', 1)), name='variance_explanation_of_rounds_played')],
            },
        ),
        *migration_operations("0022_variance_explanations", Path(__file__).resolve().parent / "sql"),
    ]
