CREATE OR REPLACE FUNCTION public.ledger_hold_place(p_account bigint, p_amount bigint, p_by integer, p_ref text, p_memo text, OUT o_id bigint, OUT o_created_at timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
AS $function$
DECLARE
    acct record;
BEGIN
    SELECT a.id, a.allow_negative, a.posted - a.held AS available INTO acct
      FROM ledger_account a WHERE a.id = p_account FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no such ledger account: %', p_account
            USING ERRCODE = '23L04',
                  DETAIL = json_build_object('account_ids', ARRAY[p_account])::text;
    END IF;
    IF NOT acct.allow_negative AND acct.available < p_amount THEN
        RAISE EXCEPTION 'account % has % available; the hold needs %', p_account,
            acct.available, p_amount USING ERRCODE = '23L02',
            DETAIL = json_build_object('account_id', p_account, 'required', p_amount,
                                       'available', acct.available)::text;
    END IF;
    -- Its trigger raises the account's held; the CHECK on the account is the last guard.
    INSERT INTO ledger_hold (account_id, amount, status, ref, memo, created_at, created_by_id)
    VALUES (p_account, p_amount, 'open', p_ref, p_memo, now(), p_by)
    RETURNING id, created_at INTO o_id, o_created_at;
END $function$;
