"""Tables now live in rounds (rounds/migrations/0011 renamed the database table and moved
the content type); here Table only leaves casino's state. Nothing in the database changes.
"""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('casino', '0007_table_created_by'),
        # The rounds models' FKs point at rounds.Table before casino.Table is gone.
        ('rounds', '0011_table_from_casino'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='Table')],
        ),
    ]
