CREATE OR REPLACE FUNCTION public.ledger_holds_resolved()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    UPDATE ledger_account a SET held = a.held - n.freed
      FROM (SELECT account_id, sum(amount) AS freed
              FROM (SELECT account_id, amount FROM old_holds WHERE status = 'open'
                    UNION ALL
                    SELECT account_id, -amount FROM new_holds WHERE status = 'open') h
             GROUP BY account_id HAVING sum(amount) <> 0) n
     WHERE a.id = n.account_id;
    RETURN NULL;
END $function$;

CREATE TRIGGER ledger_holds_resolved AFTER UPDATE ON public.ledger_hold REFERENCING OLD TABLE AS old_holds NEW TABLE AS new_holds FOR EACH STATEMENT EXECUTE FUNCTION ledger_holds_resolved();
