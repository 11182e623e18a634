CREATE OR REPLACE FUNCTION public.ledger_refuse_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    RAISE EXCEPTION '% on % refused: ledger entries and lines are never edited or deleted; '
        'post a reversing entry instead', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END $function$;

CREATE TRIGGER ledger_entry_immutable BEFORE DELETE OR UPDATE ON public.ledger_entry FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();

CREATE TRIGGER ledger_line_immutable BEFORE DELETE OR UPDATE ON public.ledger_line FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
