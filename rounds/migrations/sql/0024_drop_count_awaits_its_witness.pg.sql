-- rounds/migrations/0024_drop_count_awaits_its_witness.py (its docstring says why)

--- forward:
-- The status column widens (awaiting_witness); PostgreSQL alters no column a trigger's
-- condition reads, so 0021's check that a corrected count has its correction steps aside
-- while it does, and comes back as it was.
DROP TRIGGER rounds_dropcount_corrected_by_a_count ON rounds_dropcount;

--- reverse:
CREATE CONSTRAINT TRIGGER rounds_dropcount_corrected_by_a_count
    AFTER UPDATE ON rounds_dropcount DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.status = 'corrected' AND OLD.status <> 'corrected')
    EXECUTE FUNCTION rounds_check_drop_count_corrected();

--- forward:
CREATE CONSTRAINT TRIGGER rounds_dropcount_corrected_by_a_count
    AFTER UPDATE ON rounds_dropcount DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.status = 'corrected' AND OLD.status <> 'corrected')
    EXECUTE FUNCTION rounds_check_drop_count_corrected();

--- reverse:
DROP TRIGGER rounds_dropcount_corrected_by_a_count ON rounds_dropcount;

--- forward:
-- Counts posted before their witness signed named a witness at the count: their witness's
-- time is the count's (the record has no other). The guard would refuse this change, which
-- is a migration's, not the service's: it is set aside for this one statement.
ALTER TABLE rounds_dropcount DISABLE TRIGGER rounds_dropcount_guard;
UPDATE rounds_dropcount SET witnessed_at = counted_at WHERE witnessed_at IS NULL;
ALTER TABLE rounds_dropcount ENABLE TRIGGER rounds_dropcount_guard;

--- reverse:
SELECT 1;

--- forward:
-- A drop count is the count room's record. It changes in four ways only, the four the
-- service makes (rounds/services/drop.py): the named witness confirms a count awaiting them
-- (its figures from the ledger, its entries and the witness's time, nothing else) or refuses
-- it (with why and when); a posted variance is explained by someone other than its counter
-- (status explained, with the reason, who and when); a posted count replaced by a
-- correction is marked corrected. What was counted, by whom, with which witness, never
-- changes.
CREATE OR REPLACE FUNCTION rounds_guard_drop_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    confirmed text[] := ARRAY['status', 'recorded', 'variance', 'witnessed_at', 'entry_id',
                              'variance_entry_id'];
    refused text[] := ARRAY['status', 'reason', 'witnessed_at'];
    explained text[] := ARRAY['status', 'reason', 'explained_by_id', 'explained_at'];
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on rounds_dropcount refused: drop count % is part of the record',
            OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    IF to_jsonb(NEW) = to_jsonb(OLD) THEN
        RETURN NEW;  -- nothing changes
    END IF;
    IF OLD.status = 'awaiting_witness' AND NEW.status IN ('balanced', 'unexplained')
       AND NEW.witnessed_at IS NOT NULL AND NEW.recorded IS NOT NULL
       AND to_jsonb(NEW) - confirmed = to_jsonb(OLD) - confirmed THEN
        RETURN NEW;
    END IF;
    IF OLD.status = 'awaiting_witness' AND NEW.status = 'refused'
       AND NEW.witnessed_at IS NOT NULL AND btrim(NEW.reason) <> ''
       AND to_jsonb(NEW) - refused = to_jsonb(OLD) - refused THEN
        RETURN NEW;
    END IF;
    IF OLD.status = 'unexplained' AND NEW.status = 'explained' AND btrim(NEW.reason) <> ''
       AND NEW.explained_by_id IS NOT NULL AND NEW.explained_at IS NOT NULL
       AND NEW.explained_by_id <> OLD.counted_by_id
       AND to_jsonb(NEW) - explained = to_jsonb(OLD) - explained THEN
        RETURN NEW;
    END IF;
    IF OLD.status IN ('balanced', 'unexplained', 'explained') AND NEW.status = 'corrected'
       AND to_jsonb(NEW) - 'status' = to_jsonb(OLD) - 'status' THEN
        RETURN NEW;  -- its correction must come in the same transaction (0021's check)
    END IF;
    RAISE EXCEPTION 'UPDATE on rounds_dropcount refused: drop count % (%) changes only by its '
        'witness''s confirmation or refusal, by explaining its variance (someone other than '
        'its counter) or by a correction that replaces it', OLD.id, OLD.status
        USING ERRCODE = 'restrict_violation';
END $$;

--- reverse:
CREATE OR REPLACE FUNCTION rounds_guard_drop_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on rounds_dropcount refused: drop count % is part of the record',
            OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    IF to_jsonb(NEW) = to_jsonb(OLD) THEN
        RETURN NEW;  -- nothing changes
    END IF;
    IF OLD.status = 'unexplained' AND NEW.status = 'explained' AND btrim(NEW.reason) <> ''
       AND NEW.explained_by_id IS NOT NULL AND NEW.explained_at IS NOT NULL
       AND to_jsonb(NEW) - ARRAY['status', 'reason', 'explained_by_id', 'explained_at']
           = to_jsonb(OLD) - ARRAY['status', 'reason', 'explained_by_id', 'explained_at'] THEN
        RETURN NEW;
    END IF;
    IF OLD.status <> 'corrected' AND NEW.status = 'corrected'
       AND to_jsonb(NEW) - 'status' = to_jsonb(OLD) - 'status' THEN
        RETURN NEW;  -- its correction must come in the same transaction (below)
    END IF;
    RAISE EXCEPTION 'UPDATE on rounds_dropcount refused: drop count % (%) changes only by '
        'explaining its variance or by a correction that replaces it', OLD.id, OLD.status
        USING ERRCODE = 'restrict_violation';
END $$;
