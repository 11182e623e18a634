"""An entry written beside the posting function is dated when it is posted.

``ledger_entry_stamped`` (0018) made an entry carry the transaction that posts it, but took
its ``created_at`` as given, and the runtime role may insert an entry itself. It could date
one two days back, into a gaming day already closed (a trial balance or a statement read as
of then changes; ledger_verify finds nothing wrong with it), or an hour ahead, so that
ledger_verify never calls it unsealed for too long. Or in the year 999: the block's trigger
hashes that year as ``0999`` and ledger.chain as ``999``, so ledger_verify calls an honest
block tampered, for ever; ``infinity`` is no Python datetime at all, and the entry list and
ledger_verify fail to read it.

Now the guard refuses an entry dated before its transaction began or after the moment it is
inserted: what ``ledger_entry_post`` writes (``clock_timestamp()``) always lies between.
"""

from django.db import migrations

from ledger.sqlfiles import migration_operations


class Migration(migrations.Migration):
    dependencies = [("ledger", "0018_sealed_blocks")]

    # ledger/migrations/sql/0019_entry_dated_when_posted.pg.sql: the guard and its trigger,
    # its way back (0018's) written out in the file.
    operations = migration_operations("0019_entry_dated_when_posted")
