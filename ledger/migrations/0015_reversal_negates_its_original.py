"""A reversal posted through ledger_entry_post is the negation of its original, or nothing.

The services build a reversal from the original's lines (ledger.services.entry_reverse), but
the function took whatever lines it was given with ``p_reverses``: the runtime role could
post a "reversal" that moved other money, or none of the original's, and the unique index
on ``reverses_id`` then refused the real correction as already made. The database is the
last guard, so the function now checks, under the original's lock, what the services check:

- the original exists (else 23L07, a 404), and is no reversal itself (23L08, 409
  ``reversal_not_reversible``): reversing a reversal is its exact negation, and would
  replay the original behind its owner's back;
- its lines are exactly the original's negated: the same accounts, each amount negated,
  nothing more, nothing less, compared as sorted (account, amount) pairs (23L09);
- a user is named for it (23L10): the services refuse a reversal without one.

And every entry's ``p_by``, when given, names a user that exists (23L10), at the call
rather than at COMMIT, where the foreign key would refuse it. That is all the database can
vouch for about ``p_by``: whoever may call the function may name any user
(docs/ledger.md, "What the database vouches for").

An entry written around the function by the owner, triggers off, is still possible; ledger_verify
names a reversal that does not negate its original, or that reverses a reversal.
"""

from django.db import migrations

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):
    dependencies = [("ledger", "0014_held_moved_once_per_statement")]

    # ledger/migrations/sql/0015_reversal_negates_its_original.pg.sql: the function with its
    # settings in one operation, its way back (0013's definition) written out in the file.
    operations = migration_operations("0015_reversal_negates_its_original")
