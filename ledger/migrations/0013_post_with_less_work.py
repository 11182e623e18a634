"""Posting an entry with less work for PostgreSQL, above all while postings wait on each other.

Measured with pgbench calling ledger_entry_post directly, 8 clients spent about 9 % of the
server's time re-initialising whole plans: when a statement waits for a row another
posting has locked, PostgreSQL re-checks the newest version of that row against the
waiting statement's entire plan (EvalPlanQual). Both waits happened inside large
statements: the accounts' lock inside the judging statement (three CTEs and five subplans),
the chain head's inside the append statement (an UPDATE and two INSERTs).

- The accounts, and then the chain head, are locked by a small statement of their own, in
  the same order and at the same point as before (accounts in key order first, chain head
  last): a wait re-checks only that statement, and the statements after it find the rows
  already theirs. Under read committed each statement reads the newest committed rows, so
  the judging statement that follows reads the accounts as they were locked (under
  repeatable read a lock on a row changed since the snapshot fails instead).
- The judging statement is one pass over the lines grouped by account, joined with their
  accounts and the settled holds: the accounts missing, the currencies and the sum of the
  lines on existing accounts, the first account (in the lines' order) that may not go
  negative and would, and the chained content (lines by account, then amount, as before).
  An entry whose lines span several currencies gets its sums per currency from a second
  query, as 0009 reported them. Same checks, same errors, same figures in them.
- The entry's id comes from its sequence by name instead of pg_get_serial_sequence, which
  searched the catalogue at every call.
- The chain head's guard on UPDATE (0007) fires only when the update breaks its rule (a
  WHEN clause evaluated without calling the function): every posting updates the head, and
  the function call cost more than the test. Inserts and deletes still call it every time.

ledger_verify proves what it proved: every entry chained, in order, none missing.
"""

from django.db import migrations

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):
    dependencies = [("ledger", "0012_entry_ref_one_index")]

    # ledger/migrations/sql/0013_post_with_less_work.pg.sql: each function with its settings in one
    # operation, its way back written out in the file.
    operations = migration_operations("0013_post_with_less_work")
