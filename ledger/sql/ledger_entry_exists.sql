CREATE OR REPLACE FUNCTION public.ledger_entry_exists(the_entry bigint)
 RETURNS boolean
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    RETURN EXISTS (SELECT 1 FROM ledger_entry e WHERE e.id = the_entry);
END $function$;
