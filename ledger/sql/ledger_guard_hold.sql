CREATE OR REPLACE FUNCTION public.ledger_guard_hold()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE TRIGGER ledger_hold_guard BEFORE INSERT OR DELETE OR UPDATE ON public.ledger_hold FOR EACH ROW EXECUTE FUNCTION ledger_guard_hold();
