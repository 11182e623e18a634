CREATE OR REPLACE FUNCTION public.ledger_post_lines()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
    old_entry bigint;
BEGIN
    SELECT n.entry_id INTO old_entry
      FROM (SELECT DISTINCT entry_id FROM new_lines) n
      LEFT JOIN ledger_entry e ON e.id = n.entry_id
     WHERE e.id IS NULL OR NOT ledger_written_here(e.xmin)
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'lines refused: entry % was not posted by this transaction; an entry''s '
            'lines are written with it, never added later', old_entry
            USING ERRCODE = 'restrict_violation';
    END IF;
    UPDATE ledger_account a SET posted = a.posted + n.total
      FROM (SELECT account_id, sum(amount) AS total FROM new_lines GROUP BY account_id) n
     WHERE a.id = n.account_id;
    RETURN NULL;
END $function$;

CREATE TRIGGER ledger_line_posts AFTER INSERT ON public.ledger_line REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION ledger_post_lines();
