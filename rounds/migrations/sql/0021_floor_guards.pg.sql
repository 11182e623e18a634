-- rounds/migrations/0021_floor_guards.py (its docstring says why)

--- forward:
-- A finished round (settled, reversed, voided) is the record of what was played and paid.
-- The one change it knows is a settled round's reversal: state reversed, the entry that
-- reverses its settlement's, and why; nothing else on the row changes, and nothing after.
CREATE FUNCTION rounds_guard_finished_round() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    reversed_entry bigint;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on rounds_round refused: round % is % and part of the record',
            OLD.id, OLD.state USING ERRCODE = 'restrict_violation';
    END IF;
    IF to_jsonb(NEW) = to_jsonb(OLD) THEN
        RETURN NEW;  -- nothing changes
    END IF;
    IF OLD.state = 'settled' AND NEW.state = 'reversed' AND OLD.reversal_entry_id IS NULL
       AND btrim(NEW.closed_reason) <> ''
       AND to_jsonb(NEW) - ARRAY['state', 'reversal_entry_id', 'closed_reason']
           = to_jsonb(OLD) - ARRAY['state', 'reversal_entry_id', 'closed_reason'] THEN
        -- A round of pushes moved no money: there is no entry to reverse.
        IF OLD.entry_id IS NULL AND NEW.reversal_entry_id IS NULL THEN
            RETURN NEW;
        END IF;
        SELECT e.reverses_id INTO reversed_entry FROM ledger_entry e
         WHERE e.id = NEW.reversal_entry_id;
        IF reversed_entry IS NOT NULL AND reversed_entry = OLD.entry_id THEN
            RETURN NEW;
        END IF;
        RAISE EXCEPTION 'UPDATE on rounds_round refused: round % is reversed by the reversal '
            'of its settlement, entry %, not by entry %', OLD.id, OLD.entry_id,
            NEW.reversal_entry_id USING ERRCODE = 'restrict_violation';
    END IF;
    RAISE EXCEPTION 'UPDATE on rounds_round refused: round % is % and never changes%', OLD.id,
        OLD.state, CASE WHEN OLD.state = 'settled' THEN ', but for its reversal (state '
                        'reversed, the entry reversing its settlement and a reason)' ELSE '' END
        USING ERRCODE = 'restrict_violation';
END $$;
REVOKE ALL ON FUNCTION rounds_guard_finished_round() FROM PUBLIC;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION rounds_guard_finished_round() SET search_path = %I, pg_temp',
                   current_schema());
END $$;
CREATE TRIGGER rounds_round_finished BEFORE UPDATE OR DELETE ON rounds_round FOR EACH ROW
    WHEN (OLD.state IN ('settled', 'reversed', 'voided'))
    EXECUTE FUNCTION rounds_guard_finished_round();

--- reverse:
DROP TRIGGER rounds_round_finished ON rounds_round;
DROP FUNCTION rounds_guard_finished_round();

--- forward:
-- A hand of a finished round (settled, reversed, voided) keeps its cards and its outcome:
-- the round's story is made of them (its money is its parties', rounds_roundparty). Nor is a
-- hand added to a finished round. A settlement writes its hands before the round's state,
-- in one transaction, so the round is still in play as they are written.
CREATE FUNCTION rounds_guard_finished_hand() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    hand rounds_hand := CASE WHEN TG_OP = 'INSERT' THEN NEW ELSE OLD END;
BEGIN
    IF TG_OP = 'UPDATE' AND to_jsonb(NEW) = to_jsonb(OLD) THEN
        RETURN NEW;  -- nothing changes
    END IF;
    IF EXISTS (SELECT 1 FROM rounds_round r
               WHERE r.id IN (hand.round_id, CASE WHEN TG_OP = 'UPDATE' THEN NEW.round_id END)
                 AND r.state IN ('settled', 'reversed', 'voided')) THEN
        RAISE EXCEPTION '% on rounds_hand refused: round % is finished and its hands are '
            'part of the record (position %)', TG_OP, hand.round_id, hand.position
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END $$;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION rounds_guard_finished_hand() SET search_path = %I, pg_temp',
                   current_schema());
END $$;
REVOKE ALL ON FUNCTION rounds_guard_finished_hand() FROM PUBLIC;
CREATE TRIGGER rounds_hand_finished BEFORE INSERT OR UPDATE OR DELETE ON rounds_hand
    FOR EACH ROW EXECUTE FUNCTION rounds_guard_finished_hand();

--- reverse:
DROP TRIGGER rounds_hand_finished ON rounds_hand;
DROP FUNCTION rounds_guard_finished_hand();

--- forward:
-- A drop count is the count room's record. It changes in two ways only, the two the service
-- makes (rounds/services/drop.py): a variance left unexplained at the count is explained
-- (status explained, with the reason, who and when), and a count replaced by a correction
-- is marked corrected. Its figures, its counter and witness, its entries never change.
CREATE FUNCTION rounds_guard_drop_count() RETURNS trigger LANGUAGE plpgsql AS $$
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
REVOKE ALL ON FUNCTION rounds_guard_drop_count() FROM PUBLIC;
CREATE TRIGGER rounds_dropcount_guard BEFORE UPDATE OR DELETE ON rounds_dropcount
    FOR EACH ROW EXECUTE FUNCTION rounds_guard_drop_count();

-- A count marked corrected has the count that corrects it by COMMIT: marking one corrected
-- alone would take its variance off the exceptions to explain with nothing in its place.
CREATE FUNCTION rounds_check_drop_count_corrected() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM rounds_dropcount c WHERE c.corrects_id = NEW.id) THEN
        RAISE EXCEPTION 'drop count % is marked corrected without a count that corrects it',
            NEW.id USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION rounds_check_drop_count_corrected() FROM PUBLIC;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION rounds_check_drop_count_corrected()'
                   ' SET search_path = %I, pg_temp', current_schema());
END $$;
CREATE CONSTRAINT TRIGGER rounds_dropcount_corrected_by_a_count
    AFTER UPDATE ON rounds_dropcount DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.status = 'corrected' AND OLD.status <> 'corrected')
    EXECUTE FUNCTION rounds_check_drop_count_corrected();

--- reverse:
DROP TRIGGER rounds_dropcount_corrected_by_a_count ON rounds_dropcount;
DROP FUNCTION rounds_check_drop_count_corrected();
DROP TRIGGER rounds_dropcount_guard ON rounds_dropcount;
DROP FUNCTION rounds_guard_drop_count();
