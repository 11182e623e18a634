CREATE OR REPLACE FUNCTION public.ledger_guard_account()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF NEW.kind <> OLD.kind OR NEW.currency <> OLD.currency OR NEW.ref <> OLD.ref
       OR NEW.allow_negative <> OLD.allow_negative THEN
        RAISE EXCEPTION 'account %: kind, currency, ref and allow_negative never change', OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    -- Depth 1 is this trigger fired by a statement on the account itself; the cache
    -- triggers on lines and holds update it from depth 2.
    IF (NEW.posted <> OLD.posted OR NEW.held <> OLD.held) AND pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION 'account %: posted and held change only by posting lines and holds',
            OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $function$;

CREATE TRIGGER ledger_account_guard BEFORE UPDATE ON public.ledger_account FOR EACH ROW WHEN (((pg_trigger_depth() < 1) OR ((old.kind)::text <> (new.kind)::text) OR ((old.currency)::text <> (new.currency)::text) OR ((old.ref)::text <> (new.ref)::text) OR (old.allow_negative <> new.allow_negative))) EXECUTE FUNCTION ledger_guard_account();
