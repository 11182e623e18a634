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

from importlib import import_module

from django.db import migrations


def _as_owner(function: str) -> str:
    """The settings 0007 gives a cache trigger: it runs as the owner, by a fixed search_path
    (CREATE OR REPLACE resets both)."""
    return f"""
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION {function}() SECURITY DEFINER'
                   ' SET search_path = %I, pg_temp', current_schema());
END $$;
"""


# ledger_hold_held as 0002 made it, for the way back: its CREATE statement in 0002's text.
_0002 = import_module("ledger.migrations.0002_database_guards").FORWARD
_START = _0002.index("CREATE FUNCTION ledger_hold_held()")
HOLD_HELD_0002 = ("CREATE OR REPLACE FUNCTION"
                  + _0002[_START + len("CREATE FUNCTION"):_0002.index("CREATE TRIGGER", _START)])

RESOLVED = r"""
CREATE FUNCTION ledger_holds_resolved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE ledger_account a SET held = a.held - n.freed
      FROM (SELECT account_id, sum(amount) AS freed
              FROM (SELECT account_id, amount FROM old_holds WHERE status = 'open'
                    UNION ALL
                    SELECT account_id, -amount FROM new_holds WHERE status = 'open') h
             GROUP BY account_id HAVING sum(amount) <> 0) n
     WHERE a.id = n.account_id;
    RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION ledger_holds_resolved() FROM PUBLIC;
"""

HOLD_HELD = r"""
CREATE OR REPLACE FUNCTION ledger_hold_held() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE ledger_account SET held = held + NEW.amount WHERE id = NEW.account_id;
    RETURN NULL;
END $$;
"""

TRIGGERS = r"""
DROP TRIGGER ledger_hold_held ON ledger_hold;
CREATE TRIGGER ledger_hold_held AFTER INSERT ON ledger_hold
    FOR EACH ROW EXECUTE FUNCTION ledger_hold_held();
CREATE TRIGGER ledger_holds_resolved AFTER UPDATE ON ledger_hold
    REFERENCING OLD TABLE AS old_holds NEW TABLE AS new_holds
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_holds_resolved();
"""

TRIGGERS_0002 = r"""
DROP TRIGGER ledger_holds_resolved ON ledger_hold;
DROP TRIGGER ledger_hold_held ON ledger_hold;
CREATE TRIGGER ledger_hold_held AFTER INSERT OR UPDATE ON ledger_hold
    FOR EACH ROW EXECUTE FUNCTION ledger_hold_held();
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0013_post_with_less_work")]

    # Each function with its settings in one operation, so that the way back sets them again
    # after the old body is back.
    operations = [
        migrations.RunSQL([RESOLVED, _as_owner("ledger_holds_resolved")],
                          ["DROP FUNCTION ledger_holds_resolved();"]),
        migrations.RunSQL([HOLD_HELD, _as_owner("ledger_hold_held")],
                          [HOLD_HELD_0002, _as_owner("ledger_hold_held")]),
        migrations.RunSQL(TRIGGERS, TRIGGERS_0002),
    ]
