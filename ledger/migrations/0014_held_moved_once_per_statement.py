"""Resolving holds moves the accounts' cached ``held`` once per statement, not once per hold.

A round's settlement resolves every hold of the round in one UPDATE (ledger_entry_post); so
do a void and a table of pushes (ledger_holds_release). The row trigger of 0002 then ran
one UPDATE of an account per hold: measured with track_functions over settlements of a
full table, about 57 microseconds a hold, the dearest of the triggers a resolved hold fires
(its guard took about 9, the two deferred checks at commit about 25 and 23).

Now a statement trigger with the statement's old and new rows (transition tables) moves each
account once, by the amount of its holds that were open before the statement less that of
those still open after it. Pairing old and new rows is not needed: ledger_hold_guard lets
an UPDATE change only a hold's resolution, and only from open, so per account that
difference is exactly what the row trigger took off, hold by hold. The account's CHECK
constraints judge the result at the same moment as before: row and statement AFTER
triggers both run at the end of the statement. Like the trigger it replaces, it runs as the
owner with a fixed search_path (0007), at trigger depth 1, so the account guard lets its
update through and refuses any other.

Placing a hold stays a row trigger: ledger_hold_place inserts one hold per call, where a
transition table would only add work. Its function loses the branch for an UPDATE, which no
trigger calls it for any more: were it ever attached to UPDATE again, it would take the
resolved holds off a second time.
"""

from django.db import migrations

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):
    dependencies = [("ledger", "0013_post_with_less_work")]

    # ledger/migrations/sql/0014_held_moved_once_per_statement.pg.sql: each function with its settings in one
    # operation, its way back written out in the file.
    operations = migration_operations("0014_held_moved_once_per_statement")
