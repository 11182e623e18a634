CREATE OR REPLACE FUNCTION public.ledger_check_hold_entry()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
END $function$;

CREATE CONSTRAINT TRIGGER ledger_hold_resolved_by_entry AFTER UPDATE ON public.ledger_hold DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((new.entry_id IS NOT NULL)) EXECUTE FUNCTION ledger_check_hold_entry();
