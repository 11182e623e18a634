CREATE OR REPLACE FUNCTION public.ledger_written_here(row_xmin xid)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE
 SET search_path TO 'pg_catalog'
AS $function$
DECLARE
    cur bigint := pg_current_xact_id()::text::bigint;
    x bigint := row_xmin::text::bigint;
BEGIN
    -- xmin is 32 bits; pg_xact_status wants the 64-bit id: take the one nearest the
    -- current transaction's (rows older than 2^31 transactions are frozen anyway).
    RETURN coalesce(pg_xact_status((cur + (x - (cur & 4294967295) + 6442450944) % 4294967296
                                    - 2147483648)::text::xid8) = 'in progress', false);
END $function$;
