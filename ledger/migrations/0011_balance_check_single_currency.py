"""The balance check at commit in one plain aggregate when an entry has a single currency.

The check (0002, 0004, 0009) runs at commit while the chain head is locked. Its query
grouped the lines by currency under a second aggregate, and looked each line's currency up
twice (once to drop lines whose account is missing, once to group): about twice the work of
the rule for the common entry, whose lines are all in one currency. It now counts the lines,
sums them and takes the smallest and largest currency in one pass, each line's currency
looked up once (OFFSET 0 keeps the planner from copying the lookup into every aggregate);
only an entry whose lines span several currencies runs the grouped query of 0009, for the
currency that does not balance. Same rule, same errors, same figures in them.
"""

from django.db import migrations

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):
    dependencies = [("ledger", "0010_line_check_only_for_existing_entries")]

    # ledger/migrations/sql/0011_balance_check_single_currency.pg.sql: each function with its settings in one
    # operation, its way back written out in the file.
    operations = migration_operations("0011_balance_check_single_currency")
