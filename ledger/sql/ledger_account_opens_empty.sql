CREATE OR REPLACE FUNCTION public.ledger_account_opens_empty()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF NEW.posted <> 0 OR NEW.held <> 0 THEN
        RAISE EXCEPTION 'account %: an account opens with posted 0 and held 0, not % and %',
            NEW.id, NEW.posted, NEW.held USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $function$;

CREATE TRIGGER ledger_account_opens_empty AFTER INSERT ON public.ledger_account FOR EACH ROW EXECUTE FUNCTION ledger_account_opens_empty();
