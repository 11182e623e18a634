-- ledger/migrations/0014_held_moved_once_per_statement.py (its docstring says why)

--- forward:
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
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION ledger_holds_resolved() SECURITY DEFINER'
                   ' SET search_path = %I, pg_temp', current_schema());
END $$;

--- reverse:
DROP FUNCTION ledger_holds_resolved();

--- forward:
CREATE OR REPLACE FUNCTION ledger_hold_held() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE ledger_account SET held = held + NEW.amount WHERE id = NEW.account_id;
    RETURN NULL;
END $$;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION ledger_hold_held() SECURITY DEFINER'
                   ' SET search_path = %I, pg_temp', current_schema());
END $$;

--- reverse:
CREATE OR REPLACE FUNCTION ledger_hold_held() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE ledger_account SET held = held + NEW.amount WHERE id = NEW.account_id;
    ELSIF OLD.status = 'open' AND NEW.status <> 'open' THEN
        UPDATE ledger_account SET held = held - OLD.amount WHERE id = OLD.account_id;
    END IF;
    RETURN NULL;
END $$;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION ledger_hold_held() SECURITY DEFINER'
                   ' SET search_path = %I, pg_temp', current_schema());
END $$;

--- forward:
DROP TRIGGER ledger_hold_held ON ledger_hold;
CREATE TRIGGER ledger_hold_held AFTER INSERT ON ledger_hold
    FOR EACH ROW EXECUTE FUNCTION ledger_hold_held();
CREATE TRIGGER ledger_holds_resolved AFTER UPDATE ON ledger_hold
    REFERENCING OLD TABLE AS old_holds NEW TABLE AS new_holds
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_holds_resolved();

--- reverse:
DROP TRIGGER ledger_holds_resolved ON ledger_hold;
DROP TRIGGER ledger_hold_held ON ledger_hold;
CREATE TRIGGER ledger_hold_held AFTER INSERT OR UPDATE ON ledger_hold
    FOR EACH ROW EXECUTE FUNCTION ledger_hold_held();
