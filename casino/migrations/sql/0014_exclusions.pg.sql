-- casino/migrations/0014_exclusions.py (its docstring says why)

--- forward:
-- An exclusion (casino.models.Exclusion) is recorded whole and never deleted; it changes
-- once, by its lift: lifted_at, lifted_by_id, lift_reason and lift_approved_by_id go from
-- empty to set, and nothing else of the row changes, then or ever.
CREATE FUNCTION casino_guard_exclusion() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    lift CONSTANT text[] := ARRAY['lifted_at', 'lifted_by_id', 'lift_reason',
                                  'lift_approved_by_id'];
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.lifted_at IS NOT NULL THEN
            RAISE EXCEPTION 'an exclusion is recorded in force, not lifted'
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on casino_exclusion refused: exclusion % is part of the '
            'record', OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    IF to_jsonb(NEW) = to_jsonb(OLD) THEN
        RETURN NEW;  -- nothing changes
    END IF;
    IF OLD.lifted_at IS NOT NULL THEN
        RAISE EXCEPTION 'UPDATE on casino_exclusion refused: exclusion % was lifted and '
            'changes no more', OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    IF to_jsonb(NEW) - lift <> to_jsonb(OLD) - lift THEN
        RAISE EXCEPTION 'UPDATE on casino_exclusion refused: exclusion % changes only by '
            'its lift; who, whom, when and why it was recorded never change', OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION casino_guard_exclusion() FROM PUBLIC;
CREATE TRIGGER casino_exclusion_lifted_once BEFORE INSERT OR UPDATE OR DELETE
    ON casino_exclusion FOR EACH ROW EXECUTE FUNCTION casino_guard_exclusion();

--- reverse:
DROP TRIGGER casino_exclusion_lifted_once ON casino_exclusion;
DROP FUNCTION casino_guard_exclusion();
