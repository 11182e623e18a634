CREATE OR REPLACE FUNCTION public.ledger_entry_post(p_kind text, p_memo text, p_ref text, p_by integer, p_reverses bigint, p_reason text, p_accounts bigint[], p_amounts bigint[], p_holds bigint[], OUT o_id bigint, OUT o_created_at timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
AS $function$
DECLARE
    n_lines integer := coalesce(cardinality(p_accounts), 0);
    holds bigint[] := '{}';
    hold_accounts bigint[];
    missing bigint[];
    found_id bigint;
    bad record;
    first_currency text;
    last_currency text;
    total numeric;
    sums jsonb;
    short jsonb;
    original_reverses bigint;
BEGIN
    IF n_lines < 2 OR cardinality(p_amounts) IS DISTINCT FROM n_lines THEN
        RAISE EXCEPTION 'an entry needs at least two lines, each an account and an amount'
            USING ERRCODE = '23L00', DETAIL = json_build_object('lines', n_lines)::text;
    END IF;
    -- The user an entry names exists (its foreign key would say so only at COMMIT). That
    -- is all the database can vouch for: whoever may call this function may name any user.
    IF p_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM auth_user u WHERE u.id = p_by) THEN
        RAISE EXCEPTION 'no such user: %', p_by
            USING ERRCODE = '23L10', DETAIL = json_build_object('user_id', p_by)::text;
    END IF;
    IF p_reverses IS NOT NULL THEN
        -- Not FOR UPDATE on the entry: entries never change, so no role may UPDATE them.
        PERFORM pg_advisory_xact_lock(19538, (p_reverses % 2147483648)::integer);
        SELECT e.id INTO found_id FROM ledger_entry e WHERE e.reverses_id = p_reverses;
        IF FOUND THEN
            RAISE EXCEPTION 'entry % was already reversed by entry %', p_reverses, found_id
                USING ERRCODE = '23L06',
                      DETAIL = json_build_object('entry_id', p_reverses,
                                                 'reversed_by', found_id)::text;
        END IF;
        -- A reversal undoes its original and nothing else: the original exists and is no
        -- reversal itself (reversing one would replay the original), a user is named as
        -- having asked for it, and its lines are the original's negated, no more, no less
        -- (compared as sorted (account, amount) pairs, so two lines on one account count
        -- twice). The original's lines never change, so reading them needs no lock.
        SELECT e.reverses_id INTO original_reverses FROM ledger_entry e WHERE e.id = p_reverses;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'no such entry to reverse: %', p_reverses
                USING ERRCODE = '23L07', DETAIL = json_build_object('entry_id', p_reverses)::text;
        END IF;
        IF original_reverses IS NOT NULL THEN
            RAISE EXCEPTION 'entry % is itself the reversal of entry %; a reversal is never '
                'reversed', p_reverses, original_reverses
                USING ERRCODE = '23L08',
                      DETAIL = json_build_object('entry_id', p_reverses,
                                                 'reverses', original_reverses)::text;
        END IF;
        IF p_by IS NULL THEN
            RAISE EXCEPTION 'a reversal names the user who asked for it'
                USING ERRCODE = '23L10', DETAIL = json_build_object('user_id', p_by)::text;
        END IF;
        IF (SELECT array_agg(ARRAY[l.account_id, l.amount] ORDER BY l.account_id, l.amount)
              FROM unnest(p_accounts, p_amounts) l(account_id, amount))
           IS DISTINCT FROM
           (SELECT array_agg(ARRAY[l.account_id, -l.amount] ORDER BY l.account_id, -l.amount)
              FROM ledger_line l WHERE l.entry_id = p_reverses) THEN
            RAISE EXCEPTION 'the lines of a reversal of entry % must be exactly its lines '
                'negated', p_reverses
                USING ERRCODE = '23L09', DETAIL = json_build_object('entry_id', p_reverses)::text;
        END IF;
    END IF;
    IF cardinality(p_holds) > 0 THEN
        holds := ARRAY(SELECT DISTINCT h FROM unnest(p_holds) h ORDER BY h);
        -- A hold's account never changes: it can be read before anything is locked.
        SELECT array_agg(h.account_id), array_agg(x.id) FILTER (WHERE h.id IS NULL)
          INTO hold_accounts, missing
          FROM unnest(holds) x(id) LEFT JOIN ledger_hold h ON h.id = x.id AND h.id = ANY (holds);
        IF missing IS NOT NULL THEN
            RAISE EXCEPTION 'no such hold: %', missing
                USING ERRCODE = '23L05', DETAIL = json_build_object('hold_ids', missing)::text;
        END IF;
    END IF;
    -- The accounts are locked in key order by a statement of their own: when a lock waits
    -- for another posting, PostgreSQL re-checks the newest row against this small plan only.
    PERFORM 1 FROM ledger_account a WHERE a.id = ANY (p_accounts || hold_accounts)
     ORDER BY a.id FOR UPDATE;
    -- Then one pass over the lines per account judges the entry from the rows now locked
    -- (this statement's snapshot sees their newest versions): the accounts missing, the
    -- currencies and the sum of the lines on accounts that exist, the first account (in the
    -- lines' order) that may not go negative and would.
    SELECT array_agg(n.account_id ORDER BY n.account_id) FILTER (WHERE a.id IS NULL),
           min(a.currency), max(a.currency), sum(n.net) FILTER (WHERE a.id IS NOT NULL),
           (array_agg(jsonb_build_object(
                          'account_id', a.id, 'required', -n.net,
                          'available', a.posted - a.held + coalesce(f.freed, 0))
                      ORDER BY n.first)
                FILTER (WHERE n.net < 0 AND NOT a.allow_negative
                          AND a.posted - a.held + coalesce(f.freed, 0) + n.net < 0))[1]
      INTO missing, first_currency, last_currency, total, short
      FROM (SELECT l.account_id, sum(l.amount) AS net, min(l.n) AS first
              FROM unnest(p_accounts, p_amounts) WITH ORDINALITY l(account_id, amount, n)
             GROUP BY l.account_id) n
      LEFT JOIN ledger_account a ON a.id = n.account_id AND a.id = ANY (p_accounts)
      -- The settled holds are closed before the funds are judged, so what they hold counts
      -- as available: funds held for a wager pay that wager. (A hold's amount never
      -- changes; whether it is still open is checked once it is locked, below.)
      LEFT JOIN (SELECT h.account_id, sum(h.amount) AS freed FROM ledger_hold h
                  WHERE h.id = ANY (holds) GROUP BY h.account_id) f
             ON f.account_id = n.account_id;
    IF first_currency = last_currency THEN
        IF total <> 0 THEN
            sums := jsonb_build_object(first_currency, total);
        END IF;
    ELSIF first_currency IS NOT NULL THEN
        -- Lines in several currencies: each must balance on its own.
        SELECT jsonb_object_agg(t.currency, t.total) INTO sums
          FROM (SELECT a.currency, sum(l.amount) AS total
                  FROM unnest(p_accounts, p_amounts) l(account_id, amount)
                  JOIN ledger_account a ON a.id = l.account_id AND a.id = ANY (p_accounts)
                 GROUP BY a.currency HAVING sum(l.amount) <> 0) t;
    END IF;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'no such ledger account: %', missing
            USING ERRCODE = '23L04', DETAIL = json_build_object('account_ids', missing)::text;
    END IF;
    IF sums IS NOT NULL THEN
        RAISE EXCEPTION 'the lines must sum to zero in each currency, not %', sums
            USING ERRCODE = '23L01', DETAIL = json_build_object('sums', sums)::text;
    END IF;
    o_id := nextval('ledger_entry_id_seq'::regclass);
    o_created_at := clock_timestamp();
    IF cardinality(holds) > 0 THEN
        PERFORM 1 FROM ledger_hold h WHERE h.id = ANY (holds) ORDER BY h.id FOR UPDATE;
        SELECT h.id, h.status INTO bad FROM ledger_hold h
         WHERE h.id = ANY (holds) AND h.status <> 'open' ORDER BY h.id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'hold % is already %', bad.id, bad.status
                USING ERRCODE = '23L03',
                      DETAIL = json_build_object('hold_id', bad.id, 'status', bad.status)::text;
        END IF;
    END IF;
    IF short IS NOT NULL THEN
        RAISE EXCEPTION 'account % has % available; the entry needs %', short->>'account_id',
            short->>'available', short->>'required'
            USING ERRCODE = '23L02', DETAIL = short::text;
    END IF;
    IF cardinality(holds) > 0 THEN
        -- The entry's debit on an account is shared out over its holds in id order, each
        -- capturing up to its amount; a hold on an account the entry does not debit is
        -- released. The hold names the entry and carries its time.
        UPDATE ledger_hold h
           SET status = CASE WHEN s.captured > 0 THEN 'captured' ELSE 'released' END,
               captured_amount = nullif(s.captured, 0), entry_id = o_id,
               resolved_at = o_created_at, resolved_by_id = p_by
          FROM (SELECT o.id, greatest(0, least(o.amount, coalesce(d.debit, 0) - o.before))
                       AS captured
                  FROM (SELECT id, account_id, amount,
                               coalesce(sum(amount) OVER (PARTITION BY account_id ORDER BY id
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                               AS before
                          FROM ledger_hold WHERE id = ANY (holds)) o
                  LEFT JOIN (SELECT account_id, -sum(amount) AS debit
                               FROM unnest(p_accounts, p_amounts) l(account_id, amount)
                              GROUP BY account_id HAVING sum(amount) < 0) d
                         ON d.account_id = o.account_id) s
         WHERE h.id = s.id AND h.id = ANY (holds);
    END IF;
    -- Last, in one statement: the entry, stamped with the transaction that posts it (its
    -- place among the sealed blocks, ledger_seal), and its lines (their trigger moves the
    -- accounts' posted). No row shared by unrelated accounts is locked: the entry is hashed
    -- into a block after commit, by the sealer.
    WITH entry AS (
        INSERT INTO ledger_entry (id, kind, memo, ref, created_at, created_by_id, reverses_id,
                                  reason, txid)
        VALUES (o_id, p_kind, p_memo, p_ref, o_created_at, p_by, p_reverses, p_reason,
                pg_current_xact_id()::text::bigint)
    )
    INSERT INTO ledger_line (entry_id, account_id, amount)
    SELECT o_id, l.account_id, l.amount
      FROM unnest(p_accounts, p_amounts) WITH ORDINALITY l(account_id, amount, n)
     ORDER BY l.n;
END $function$;
