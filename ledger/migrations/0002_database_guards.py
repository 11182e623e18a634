"""The ledger's invariants, kept by PostgreSQL itself (the services' checks come first).

- ledger_entry_balanced / ledger_line_balanced: deferred constraint triggers; at commit, an
  entry must have at least two lines summing to zero in each currency.
- ledger_entry_immutable / ledger_line_immutable: UPDATE and DELETE are refused.
- ledger_hold_guard: a hold is inserted open, only its resolution fields change, and only
  while it is open; holds are never deleted.
- ledger_line_posts / ledger_hold_held: keep each account's cached posted and held columns,
  so the CHECK constraints on the account (available >= 0 unless allow_negative, held >= 0)
  judge every movement.
- ledger_account_guard: an account's kind, currency, ref and allow_negative never change,
  and its cached balances change only through the two triggers above.

Errors use SQLSTATE class 23 (integrity), so Django raises IntegrityError.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION ledger_check_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    the_entry bigint;
    line_count integer;
    bad record;
BEGIN
    IF TG_TABLE_NAME = 'ledger_entry' THEN
        the_entry := NEW.id;
    ELSE
        the_entry := NEW.entry_id;
    END IF;
    SELECT count(*) INTO line_count FROM ledger_line WHERE entry_id = the_entry;
    IF line_count < 2 THEN
        RAISE EXCEPTION 'ledger entry % has % line(s); an entry needs at least two',
            the_entry, line_count USING ERRCODE = 'check_violation';
    END IF;
    SELECT a.currency, sum(l.amount) AS total INTO bad
      FROM ledger_line l JOIN ledger_account a ON a.id = l.account_id
     WHERE l.entry_id = the_entry
     GROUP BY a.currency HAVING sum(l.amount) <> 0
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger entry % is unbalanced: its % lines sum to %',
            the_entry, bad.currency, bad.total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER ledger_entry_balanced
    AFTER INSERT ON ledger_entry DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_entry_balanced();
CREATE CONSTRAINT TRIGGER ledger_line_balanced
    AFTER INSERT ON ledger_line DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_entry_balanced();

CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: ledger entries and lines are never edited or deleted; '
        'post a reversing entry instead', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END $$;

CREATE TRIGGER ledger_entry_immutable BEFORE UPDATE OR DELETE ON ledger_entry
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_line_immutable BEFORE UPDATE OR DELETE ON ledger_line
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();

CREATE FUNCTION ledger_guard_hold() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on ledger_hold refused: hold % is part of the record', OLD.id
            USING ERRCODE = 'restrict_violation';
    ELSIF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'open' THEN
            RAISE EXCEPTION 'a hold is placed open, not %', NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF OLD.status <> 'open' THEN
        RAISE EXCEPTION 'UPDATE on ledger_hold refused: hold % is already % and resolves once',
            OLD.id, OLD.status USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.account_id <> OLD.account_id OR NEW.amount <> OLD.amount
       OR NEW.created_at <> OLD.created_at OR NEW.created_by_id IS DISTINCT FROM OLD.created_by_id
       OR NEW.ref <> OLD.ref OR NEW.memo <> OLD.memo THEN
        RAISE EXCEPTION 'UPDATE on ledger_hold refused: only the resolution of hold % may be set',
            OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER ledger_hold_guard BEFORE INSERT OR UPDATE OR DELETE ON ledger_hold
    FOR EACH ROW EXECUTE FUNCTION ledger_guard_hold();

-- One UPDATE per INSERT statement of lines, however many lines it inserts.
CREATE FUNCTION ledger_post_lines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE ledger_account a SET posted = a.posted + n.total
      FROM (SELECT account_id, sum(amount) AS total FROM new_lines GROUP BY account_id) n
     WHERE a.id = n.account_id;
    RETURN NULL;
END $$;

CREATE TRIGGER ledger_line_posts AFTER INSERT ON ledger_line
    REFERENCING NEW TABLE AS new_lines
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_post_lines();

CREATE FUNCTION ledger_hold_held() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE ledger_account SET held = held + NEW.amount WHERE id = NEW.account_id;
    ELSIF OLD.status = 'open' AND NEW.status <> 'open' THEN
        UPDATE ledger_account SET held = held - OLD.amount WHERE id = OLD.account_id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER ledger_hold_held AFTER INSERT OR UPDATE ON ledger_hold
    FOR EACH ROW EXECUTE FUNCTION ledger_hold_held();

CREATE FUNCTION ledger_guard_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind <> OLD.kind OR NEW.currency <> OLD.currency OR NEW.ref <> OLD.ref
       OR NEW.allow_negative <> OLD.allow_negative THEN
        RAISE EXCEPTION 'account %: kind, currency, ref and allow_negative never change', OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    -- Depth 1 is this trigger fired by a statement on the account itself; the cache
    -- triggers on lines and holds update it from depth 2.
    IF (NEW.posted <> OLD.posted OR NEW.held <> OLD.held) AND pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION 'account %: posted and held change only by posting lines and holds',
            OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER ledger_account_guard BEFORE UPDATE ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_guard_account();
"""

BACKWARD = r"""
DROP TRIGGER ledger_account_guard ON ledger_account;
DROP FUNCTION ledger_guard_account();
DROP TRIGGER ledger_hold_held ON ledger_hold;
DROP FUNCTION ledger_hold_held();
DROP TRIGGER ledger_line_posts ON ledger_line;
DROP FUNCTION ledger_post_lines();
DROP TRIGGER ledger_hold_guard ON ledger_hold;
DROP FUNCTION ledger_guard_hold();
DROP TRIGGER ledger_line_immutable ON ledger_line;
DROP TRIGGER ledger_entry_immutable ON ledger_entry;
DROP FUNCTION ledger_refuse_change();
DROP TRIGGER ledger_line_balanced ON ledger_line;
DROP TRIGGER ledger_entry_balanced ON ledger_entry;
DROP FUNCTION ledger_check_entry_balanced();
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
