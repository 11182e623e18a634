-- casino/migrations/0012_approvals_decided_once.py (its docstring says why)

--- forward:
-- A request for a second person (casino/shared/approvals.py) is filed pending and decided
-- once: pending -> approved or rejected, with who decided, when, their note and what
-- approving made. What was asked (the action, its parameters and summary, what it
-- concerns) and who asked, when, never change; a decided request never changes again, and
-- no request is deleted.
CREATE FUNCTION casino_guard_approval() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'pending' OR NEW.decided_by_id IS NOT NULL
           OR NEW.decided_at IS NOT NULL OR NEW.result_ref <> '' THEN
            RAISE EXCEPTION 'a request is filed pending, undecided, not %', NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on casino_approval refused: request % is part of the record',
            OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    IF to_jsonb(NEW) = to_jsonb(OLD) THEN
        RETURN NEW;  -- nothing changes
    END IF;
    IF OLD.status <> 'pending' THEN
        RAISE EXCEPTION 'UPDATE on casino_approval refused: request % was % and is decided '
            'once', OLD.id, OLD.status USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.status NOT IN ('approved', 'rejected')
       OR to_jsonb(NEW) - ARRAY['status', 'decided_by_id', 'decided_at', 'note', 'result_ref']
          <> to_jsonb(OLD) - ARRAY['status', 'decided_by_id', 'decided_at', 'note',
                                   'result_ref'] THEN
        RAISE EXCEPTION 'UPDATE on casino_approval refused: request % changes only by its '
            'decision; who asked and what was asked never change', OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION casino_guard_approval() FROM PUBLIC;
CREATE TRIGGER casino_approval_decided_once BEFORE INSERT OR UPDATE OR DELETE
    ON casino_approval FOR EACH ROW EXECUTE FUNCTION casino_guard_approval();

--- reverse:
DROP TRIGGER casino_approval_decided_once ON casino_approval;
DROP FUNCTION casino_guard_approval();
