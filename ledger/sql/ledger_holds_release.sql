CREATE OR REPLACE FUNCTION public.ledger_holds_release(p_holds bigint[], p_by integer)
 RETURNS SETOF ledger_hold
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
AS $function$
DECLARE
    holds bigint[] := ARRAY(SELECT DISTINCT h FROM unnest(p_holds) h ORDER BY h);
    hold_accounts bigint[];
    missing bigint[];
    bad record;
BEGIN
    SELECT array_agg(h.account_id), array_agg(x.id) FILTER (WHERE h.id IS NULL)
      INTO hold_accounts, missing
      FROM unnest(holds) x(id) LEFT JOIN ledger_hold h ON h.id = x.id AND h.id = ANY (holds);
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'no such hold: %', missing
            USING ERRCODE = '23L05', DETAIL = json_build_object('hold_ids', missing)::text;
    END IF;
    -- Accounts, then holds, in key order: the order every movement takes them in.
    PERFORM 1 FROM ledger_account a WHERE a.id = ANY (hold_accounts) ORDER BY a.id FOR UPDATE;
    PERFORM 1 FROM ledger_hold h WHERE h.id = ANY (holds) ORDER BY h.id FOR UPDATE;
    SELECT h.id, h.status INTO bad FROM ledger_hold h
     WHERE h.id = ANY (holds) AND h.status <> 'open' ORDER BY h.id LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'hold % is already %', bad.id, bad.status
            USING ERRCODE = '23L03',
                  DETAIL = json_build_object('hold_id', bad.id, 'status', bad.status)::text;
    END IF;
    RETURN QUERY
        UPDATE ledger_hold h SET status = 'released', resolved_at = now(), resolved_by_id = p_by
         WHERE h.id = ANY (holds)
        RETURNING h.*;
END $function$;
