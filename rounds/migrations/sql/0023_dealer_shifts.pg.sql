-- rounds/migrations/0023_dealer_shifts.py (its docstring says why)

--- forward:
-- A dealer's shift is the record of who dealt at a table and when. The one change it knows
-- is its end: ended_at and ended_by set once, on an open shift; nothing else on the row
-- changes, nothing after, and no shift is deleted.
CREATE FUNCTION rounds_guard_dealer_shift() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on rounds_dealershift refused: shift % is part of the record',
            OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    IF to_jsonb(NEW) = to_jsonb(OLD) THEN
        RETURN NEW;  -- nothing changes
    END IF;
    IF OLD.ended_at IS NULL AND NEW.ended_at IS NOT NULL AND NEW.ended_by_id IS NOT NULL
       AND to_jsonb(NEW) - ARRAY['ended_at', 'ended_by_id']
           = to_jsonb(OLD) - ARRAY['ended_at', 'ended_by_id'] THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'UPDATE on rounds_dealershift refused: shift % %', OLD.id,
        CASE WHEN OLD.ended_at IS NULL THEN 'changes only by its end (ended_at, ended_by)'
             ELSE 'has ended and never changes' END
        USING ERRCODE = 'restrict_violation';
END $$;
REVOKE ALL ON FUNCTION rounds_guard_dealer_shift() FROM PUBLIC;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION rounds_guard_dealer_shift() SET search_path = %I, pg_temp',
                   current_schema());
END $$;
CREATE TRIGGER rounds_dealershift_guard BEFORE UPDATE OR DELETE ON rounds_dealershift
    FOR EACH ROW EXECUTE FUNCTION rounds_guard_dealer_shift();

--- reverse:
DROP TRIGGER rounds_dealershift_guard ON rounds_dealershift;
DROP FUNCTION rounds_guard_dealer_shift();
