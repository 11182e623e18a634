"""Guards for every write the service's role can make, now that it is not the owner.

The service connects as a role that owns nothing (casino/shared/db_roles.py): it may insert
entries, lines, accounts and holds, resolve holds and advance the chain head, and nothing
else. These triggers make each of those writes mean only what the services mean by it:

- ledger_line_posts (now also a guard): lines go only into an entry written by the same
  transaction, so no one appends a balanced +X/-X pair to an old, already hashed entry.
- ledger_account_opens_empty and the CHECK ledger_account_players_never_negative: an
  account starts at posted = held = 0, and a player's account never allows a negative
  balance, whoever inserts it.
- ledger_hold_guard: a hold is placed open and unresolved, and changes once, from open to
  captured or released, stamped with the time of the resolving transaction;
  ledger_hold_resolved_by_entry checks at commit that a hold resolved by an entry names an
  entry of that same transaction, which debits at least what the hold says it captured.
- ledger_chainhead_guard / ledger_chainhead_advanced: the head is created only at the
  newest entry (or at the genesis when there is none), advances by exactly one entry whose
  prev_hash is the old head's hash, names an entry of its own transaction, and is never
  deleted.

The two cache triggers (ledger_post_lines, ledger_hold_held) become SECURITY DEFINER with a
fixed search_path: they update the accounts' posted and held as the owner, so the service's
role needs no UPDATE on accounts at all. Every guard that reads a table gets a fixed
search_path too (pg_temp last), so no session's temporary table can stand in for a ledger
table.

"Written by this transaction" is ledger_written_here(xmin): a visible row whose inserting
transaction is still in progress can only be the current transaction or one of its
subtransactions (savepoints), since other transactions' uncommitted rows are invisible.
"""

from django.db import migrations, models

FORWARD = r"""
CREATE FUNCTION ledger_written_here(row_xmin xid) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog AS $$
    -- xmin is 32 bits; pg_xact_status wants the 64-bit id: take the one nearest the
    -- current transaction's (rows older than 2^31 transactions are frozen anyway).
    SELECT coalesce(pg_xact_status((cur + (x - (cur & 4294967295) + 6442450944) % 4294967296
                                    - 2147483648)::text::xid8) = 'in progress', false)
      FROM (SELECT pg_current_xact_id()::text::bigint AS cur,
                   row_xmin::text::bigint AS x) v
$$;

CREATE OR REPLACE FUNCTION ledger_post_lines() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_entry bigint;
BEGIN
    SELECT n.entry_id INTO old_entry
      FROM (SELECT DISTINCT entry_id FROM new_lines) n
      LEFT JOIN ledger_entry e ON e.id = n.entry_id
     WHERE e.id IS NULL OR NOT ledger_written_here(e.xmin)
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'lines refused: entry % was not posted by this transaction; an entry''s '
            'lines are written with it, never added later', old_entry
            USING ERRCODE = 'restrict_violation';
    END IF;
    UPDATE ledger_account a SET posted = a.posted + n.total
      FROM (SELECT account_id, sum(amount) AS total FROM new_lines GROUP BY account_id) n
     WHERE a.id = n.account_id;
    RETURN NULL;
END $$;

CREATE FUNCTION ledger_account_opens_empty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.posted <> 0 OR NEW.held <> 0 THEN
        RAISE EXCEPTION 'account %: an account opens with posted 0 and held 0, not % and %',
            NEW.id, NEW.posted, NEW.held USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;

-- AFTER, so the CHECK constraints (which name the rule broken) speak first.
CREATE TRIGGER ledger_account_opens_empty AFTER INSERT ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_account_opens_empty();

CREATE OR REPLACE FUNCTION ledger_guard_hold() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on ledger_hold refused: hold % is part of the record', OLD.id
            USING ERRCODE = 'restrict_violation';
    ELSIF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'open' OR NEW.entry_id IS NOT NULL OR NEW.resolved_at IS NOT NULL
           OR NEW.resolved_by_id IS NOT NULL OR NEW.captured_amount IS NOT NULL THEN
            RAISE EXCEPTION 'a hold is placed open and unresolved, not %', NEW.status
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
    IF NEW.status = 'open' THEN
        RAISE EXCEPTION 'UPDATE on ledger_hold refused: open hold % changes only by resolving',
            OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    -- Resolved now, by this transaction: not backdated, not post-dated.
    IF NEW.resolved_at < transaction_timestamp() OR NEW.resolved_at > clock_timestamp() THEN
        RAISE EXCEPTION 'UPDATE on ledger_hold refused: hold % must be resolved at the time of '
            'its resolution, not %', OLD.id, NEW.resolved_at USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

-- Deferred: the services resolve an entry's holds just before they insert the entry.
CREATE FUNCTION ledger_check_hold_entry() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    found_entry record;
    debit bigint;
BEGIN
    SELECT e.created_at, ledger_written_here(e.xmin) AS here INTO found_entry
      FROM ledger_entry e WHERE e.id = NEW.entry_id;
    IF NOT FOUND OR NOT found_entry.here OR found_entry.created_at <> NEW.resolved_at THEN
        RAISE EXCEPTION 'hold % names entry %, which its resolving transaction did not post',
            NEW.id, NEW.entry_id USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.status = 'captured' THEN
        SELECT -sum(amount) INTO debit FROM ledger_line
         WHERE entry_id = NEW.entry_id AND account_id = NEW.account_id;
        IF debit IS NULL OR debit < NEW.captured_amount THEN
            RAISE EXCEPTION 'hold % captured % but entry % debits only % on its account',
                NEW.id, NEW.captured_amount, NEW.entry_id, coalesce(debit, 0)
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER ledger_hold_resolved_by_entry
    AFTER UPDATE ON ledger_hold DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.entry_id IS NOT NULL)
    EXECUTE FUNCTION ledger_check_hold_entry();

CREATE FUNCTION ledger_guard_chain_head() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    newest record;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on ledger_chainhead refused: the head moves only forward'
            USING ERRCODE = 'restrict_violation';
    ELSIF TG_OP = 'INSERT' THEN
        SELECT id, seq, hash, prev_hash INTO newest FROM ledger_entry ORDER BY seq DESC LIMIT 1;
        IF FOUND THEN
            IF NEW.last_entry_id IS DISTINCT FROM newest.id OR NEW.seq <> newest.seq
               OR NEW.last_hash <> newest.hash OR NEW.prev_hash <> newest.prev_hash THEN
                RAISE EXCEPTION 'the chain head starts at the newest entry #% (seq %)',
                    newest.id, newest.seq USING ERRCODE = 'restrict_violation';
            END IF;
        ELSIF NEW.last_entry_id IS NOT NULL OR NEW.seq <> 0 OR NEW.last_hash <> repeat('0', 64)
              OR NEW.prev_hash <> '' THEN
            RAISE EXCEPTION 'the chain head of an empty ledger starts at the genesis'
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.id <> OLD.id OR NEW.seq <> OLD.seq + 1 OR NEW.prev_hash <> OLD.last_hash
       OR NEW.last_entry_id IS NULL THEN
        RAISE EXCEPTION 'UPDATE on ledger_chainhead refused: the head advances by one entry, '
            'whose prev_hash is the head''s hash' USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER ledger_chainhead_guard BEFORE INSERT OR UPDATE OR DELETE ON ledger_chainhead
    FOR EACH ROW EXECUTE FUNCTION ledger_guard_chain_head();

-- Deferred: the append statement moves the head and inserts the entry together.
CREATE FUNCTION ledger_check_chain_head_entry() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM ledger_entry e
      WHERE e.id = NEW.last_entry_id AND e.seq = NEW.seq AND e.hash = NEW.last_hash
        AND e.prev_hash = NEW.prev_hash AND ledger_written_here(e.xmin);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'the chain head moved to entry % (seq %), which its transaction did not '
            'post with that hash', NEW.last_entry_id, NEW.seq
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER ledger_chainhead_advanced
    AFTER UPDATE ON ledger_chainhead DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_chain_head_entry();

-- The caches are the owner's to move: the service's role has no UPDATE on accounts.
-- Every guard that reads a table does so by a fixed search_path with pg_temp last: a
-- session's temporary table named ledger_line would otherwise stand in for the real one
-- (any role may create temporary tables), and the guard would judge the wrong rows.
DO $$
DECLARE
    fn text;
BEGIN
    EXECUTE format('ALTER FUNCTION ledger_post_lines() SECURITY DEFINER'
                   ' SET search_path = %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION ledger_hold_held() SECURITY DEFINER'
                   ' SET search_path = %I, pg_temp', current_schema());
    FOREACH fn IN ARRAY ARRAY['ledger_check_entry_balanced', 'ledger_check_hold_entry',
                              'ledger_guard_chain_head', 'ledger_check_chain_head_entry'] LOOP
        EXECUTE format('ALTER FUNCTION %I() SET search_path = %I, pg_temp', fn,
                       current_schema());
    END LOOP;
END $$;
REVOKE ALL ON FUNCTION ledger_post_lines(), ledger_hold_held() FROM PUBLIC;
"""

BACKWARD = r"""
GRANT EXECUTE ON FUNCTION ledger_post_lines(), ledger_hold_held() TO PUBLIC;
ALTER FUNCTION ledger_check_entry_balanced() RESET search_path;
ALTER FUNCTION ledger_hold_held() SECURITY INVOKER RESET search_path;
ALTER FUNCTION ledger_post_lines() SECURITY INVOKER RESET search_path;
DROP TRIGGER ledger_chainhead_advanced ON ledger_chainhead;
DROP FUNCTION ledger_check_chain_head_entry();
DROP TRIGGER ledger_chainhead_guard ON ledger_chainhead;
DROP FUNCTION ledger_guard_chain_head();
DROP TRIGGER ledger_hold_resolved_by_entry ON ledger_hold;
DROP FUNCTION ledger_check_hold_entry();
CREATE OR REPLACE FUNCTION ledger_guard_hold() RETURNS trigger LANGUAGE plpgsql AS $$
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
DROP TRIGGER ledger_account_opens_empty ON ledger_account;
DROP FUNCTION ledger_account_opens_empty();
CREATE OR REPLACE FUNCTION ledger_post_lines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE ledger_account a SET posted = a.posted + n.total
      FROM (SELECT account_id, sum(amount) AS total FROM new_lines GROUP BY account_id) n
     WHERE a.id = n.account_id;
    RETURN NULL;
END $$;
DROP FUNCTION ledger_written_here(xid);
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0006_chain_seq")]

    operations = [
        migrations.AddConstraint(
            model_name="account",
            constraint=models.CheckConstraint(
                condition=models.Q(allow_negative=False) | ~models.Q(kind="player"),
                name="ledger_account_players_never_negative"),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
