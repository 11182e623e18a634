CREATE OR REPLACE FUNCTION public.ledger_hold_held()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    UPDATE ledger_account SET held = held + NEW.amount WHERE id = NEW.account_id;
    RETURN NULL;
END $function$;

CREATE TRIGGER ledger_hold_held AFTER INSERT ON public.ledger_hold FOR EACH ROW EXECUTE FUNCTION ledger_hold_held();
