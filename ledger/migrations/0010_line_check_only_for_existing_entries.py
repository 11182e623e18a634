"""The balance check runs once per entry, and once more per line only for a line added to an
entry that already existed when the line was inserted.

The deferred check of 0002 fired for each entry and again for each of its lines, all at
commit while the chain head is locked: three runs of the same query for a two-line entry.
A line's own run matters only when the entry's run may already be over when the line comes:

- a line inserted while its entry does not exist yet (ledger_entry_post inserts an entry's
  lines and the entry in one statement, the lines first) is seen by the entry's check, which
  is queued when the entry is inserted, later, and runs later still (at the end of that
  statement or at commit);
- a line inserted into an entry that already exists may come after the entry's check ran:
  after SET CONSTRAINTS ... IMMEDIATE, or into an entry of an earlier transaction (which
  ledger_line_posts refuses too). Such a line keeps its own check, as before.

The WHEN clause decides when the line is inserted (a constraint trigger's WHEN is not
deferred), by ledger_entry_exists: VOLATILE, so it reads with a fresh snapshot and sees every
row of its own transaction inserted so far, those of the inserting statement and of any
function it calls included; with the caller's snapshot, an entry inserted and checked by a
function called from that very statement would look missing, and the line added after its
check would never be checked. A line whose entry is missing altogether is refused anyway: by
ledger_line_posts at the end of its statement and by its foreign key at commit. The function
reads by a fixed search_path (pg_temp last), like every guard of 0007: a session's temporary
ledger_entry cannot make an entry look missing.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION ledger_entry_exists(the_entry bigint) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM ledger_entry e WHERE e.id = the_entry);
END $$;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION ledger_entry_exists(bigint) SET search_path = %I, pg_temp',
                   current_schema());
END $$;

DROP TRIGGER ledger_line_balanced ON ledger_line;
CREATE CONSTRAINT TRIGGER ledger_line_balanced
    AFTER INSERT ON ledger_line DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (ledger_entry_exists(NEW.entry_id))
    EXECUTE FUNCTION ledger_check_entry_balanced();
"""

BACKWARD = r"""
DROP TRIGGER ledger_line_balanced ON ledger_line;
CREATE CONSTRAINT TRIGGER ledger_line_balanced
    AFTER INSERT ON ledger_line DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_entry_balanced();
DROP FUNCTION ledger_entry_exists(bigint);
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0009_post_in_one_call")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
