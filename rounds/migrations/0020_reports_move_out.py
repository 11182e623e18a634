"""Report, ClosedDay and ClosedTableDay now live in reports (reports/migrations/0001 made
them there, in the state only); here they only leave rounds' state. Nothing in the
database changes: the tables, their rows and the append-only triggers of 0008 stay as
they are, under the names they have.
"""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('rounds', '0019_figures_on_parties'),
        # The models are in reports' state before they leave rounds' (as casino/0008 waited
        # for rounds/0011 when tables moved the other way).
        ('reports', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                # ClosedTableDay first: it points at ClosedDay.
                migrations.DeleteModel(name='ClosedTableDay'),
                migrations.DeleteModel(name='ClosedDay'),
                migrations.DeleteModel(name='Report'),
            ],
        ),
    ]
