-- ledger/migrations/0018_sealed_blocks.py (its docstring says why)

--- forward:
-- Today's chain, moved into blocks with nothing lost: the entry at seq n is block n, with
-- that entry's hashes, so an anchor SEQ:HASH written down before names the same point.
INSERT INTO ledger_block (n, last_txid, last_entry_id, entries, prev_hash, hash, sealed_at)
SELECT e.seq, NULL, e.id, 1, e.prev_hash, e.hash, e.created_at
  FROM ledger_entry e ORDER BY e.seq;

--- reverse:
DO $$
BEGIN
    -- Back to a chain of single entries: only while no entry was posted into blocks.
    IF EXISTS (SELECT 1 FROM ledger_entry WHERE txid IS NOT NULL) THEN
        RAISE EXCEPTION 'entries were posted since the chain moved into blocks: they have no '
            'place in the older chain';
    END IF;
END $$;

--- forward:
DROP FUNCTION ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[], bigint[]);
CREATE FUNCTION ledger_entry_post(p_kind text, p_memo text, p_ref text, p_by integer, p_reverses bigint, p_reason text, p_accounts bigint[], p_amounts bigint[], p_holds bigint[], OUT o_id bigint, OUT o_created_at timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql
AS $$
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
END $$;
DO $$
BEGIN
    -- CREATE OR REPLACE drops the function's settings (0009's): they go back on.
    EXECUTE format('ALTER FUNCTION ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[], bigint[]) SET search_path = %I, pg_temp', current_schema());
END $$;
ALTER FUNCTION ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[], bigint[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[], bigint[]) SET enable_seqscan = off;
REVOKE EXECUTE ON FUNCTION ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[], bigint[]) FROM PUBLIC;

--- reverse:
DROP FUNCTION ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[], bigint[]);
CREATE FUNCTION ledger_entry_post(p_kind text, p_memo text, p_ref text, p_by integer, p_reverses bigint, p_reason text, p_accounts bigint[], p_amounts bigint[], p_holds bigint[], OUT o_id bigint, OUT o_created_at timestamp with time zone, OUT o_seq bigint, OUT o_prev_hash text, OUT o_hash text)
 RETURNS record
 LANGUAGE plpgsql
AS $$
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
    body text;
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
    -- lines' order) that may not go negative and would, and the chained content.
    SELECT array_agg(n.account_id ORDER BY n.account_id) FILTER (WHERE a.id IS NULL),
           min(a.currency), max(a.currency), sum(n.net) FILTER (WHERE a.id IS NOT NULL),
           (array_agg(jsonb_build_object(
                          'account_id', a.id, 'required', -n.net,
                          'available', a.posted - a.held + coalesce(f.freed, 0))
                      ORDER BY n.first)
                FILTER (WHERE n.net < 0 AND NOT a.allow_negative
                          AND a.posted - a.held + coalesce(f.freed, 0) + n.net < 0))[1],
           -- ledger.chain's body, written here from the arguments, so it is what is stored:
           -- the lines by account, then amount.
           'kind=' || length(p_kind) || ':' || p_kind
           || E'\nmemo=' || length(p_memo) || ':' || p_memo
           || E'\nref=' || length(p_ref) || ':' || p_ref
           || E'\nby=' || coalesce(p_by::text, '')
           || E'\nreverses=' || coalesce(p_reverses::text, '')
           || E'\nreason=' || length(p_reason) || ':' || p_reason
           || E'\nlines=' || string_agg(n.part, ',' ORDER BY n.account_id)
      INTO missing, first_currency, last_currency, total, short, body
      FROM (SELECT l.account_id, sum(l.amount) AS net, min(l.n) AS first,
                   string_agg(l.account_id || ':' || l.amount, ',' ORDER BY l.amount) AS part
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
    FOR attempt IN 1..2 LOOP
        PERFORM 1 FROM ledger_chainhead h WHERE h.id = 1 FOR UPDATE;
        -- Last, in one statement: lock the head, give the entry the next seq and its hash,
        -- insert it and its lines (their trigger moves the accounts' posted), move the head.
        -- The head stays locked to commit, and nothing else happens before it.
        WITH head AS (
            UPDATE ledger_chainhead h
               SET seq = h.seq + 1, prev_hash = h.last_hash, last_entry_id = o_id,
                   last_hash = encode(sha256(convert_to(
                       h.last_hash || E'\n' || 'id=' || o_id || E'\nseq=' || (h.seq + 1)
                       || E'\nat=' || to_char(o_created_at AT TIME ZONE 'UTC',
                                              'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
                       || E'\n' || body, 'UTF8')), 'hex')
             WHERE h.id = 1
            RETURNING h.seq, h.prev_hash, h.last_hash
        ),
        entry AS (
            INSERT INTO ledger_entry (id, seq, kind, memo, ref, created_at, created_by_id,
                                      reverses_id, reason, prev_hash, hash)
            SELECT o_id, head.seq, p_kind, p_memo, p_ref, o_created_at, p_by, p_reverses,
                   p_reason, head.prev_hash, head.last_hash
              FROM head
        ),
        line AS (
            INSERT INTO ledger_line (entry_id, account_id, amount)
            SELECT o_id, l.account_id, l.amount
              FROM head, unnest(p_accounts, p_amounts) WITH ORDINALITY l(account_id, amount, n)
             ORDER BY l.n
        )
        SELECT head.seq, head.prev_hash, head.last_hash INTO o_seq, o_prev_hash, o_hash
          FROM head;
        EXIT WHEN FOUND;
        -- The chain head is made on first use (and again after a TRUNCATE), from the newest
        -- entry; its guard checks that it starts there.
        INSERT INTO ledger_chainhead (id, seq, last_entry_id, last_hash, prev_hash)
        SELECT 1, coalesce(e.seq, 0), e.id, coalesce(e.hash, repeat('0', 64)),
               coalesce(e.prev_hash, '')
          FROM (SELECT 1) one LEFT JOIN LATERAL
               (SELECT id, seq, hash, prev_hash FROM ledger_entry ORDER BY seq DESC LIMIT 1) e
               ON true
        ON CONFLICT (id) DO NOTHING;
    END LOOP;
END $$;
DO $$
BEGIN
    -- CREATE OR REPLACE drops the function's settings (0009's): they go back on.
    EXECUTE format('ALTER FUNCTION ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[], bigint[]) SET search_path = %I, pg_temp', current_schema());
END $$;
ALTER FUNCTION ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[], bigint[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[], bigint[]) SET enable_seqscan = off;
REVOKE EXECUTE ON FUNCTION ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[], bigint[]) FROM PUBLIC;

--- forward:
CREATE FUNCTION ledger_guard_entry_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
BEGIN
    -- An entry carries the transaction that posts it, nothing else: its place among the
    -- blocks. One dated earlier could slip into a block already sealed; the hashes of the
    -- chain before blocks are never written again.
    RAISE EXCEPTION 'an entry is stamped with the transaction that posts it (txid %), and '
        'has no chain position or hash of its own', pg_current_xact_id()
        USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER ledger_entry_stamped BEFORE INSERT ON ledger_entry FOR EACH ROW
  WHEN (NEW.txid IS DISTINCT FROM pg_current_xact_id()::text::bigint OR NEW.seq IS NOT NULL
        OR NEW.prev_hash IS NOT NULL OR NEW.hash IS NOT NULL)
  EXECUTE FUNCTION ledger_guard_entry_insert();

--- reverse:
DROP TRIGGER ledger_entry_stamped ON ledger_entry;
DROP FUNCTION ledger_guard_entry_insert();

--- forward:
CREATE FUNCTION ledger_guard_block()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
DECLARE
    prev_n bigint := 0;
    prev_hash text := repeat('0', 64);
    after_txid bigint := 0;
    after_id bigint := 0;
    cutoff bigint;
    counted integer;
    digests text;
    computed text;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION '% on ledger_block refused: a sealed block never changes', TG_OP
            USING ERRCODE = 'restrict_violation';
    END IF;
    -- The block follows the newest one: its number, its predecessor's hash, and its entries
    -- start right after the predecessor's last (blocks of the chain before blocks, with no
    -- txid, come before every entry that has one).
    SELECT b.n, b.hash, coalesce(b.last_txid, 0), CASE WHEN b.last_txid IS NULL THEN 0
                                                       ELSE b.last_entry_id END
      INTO prev_n, prev_hash, after_txid, after_id
      FROM ledger_block b ORDER BY b.n DESC LIMIT 1;
    IF NOT FOUND THEN
        prev_n := 0; prev_hash := repeat('0', 64); after_txid := 0; after_id := 0;
    END IF;
    IF NEW.n IS DISTINCT FROM prev_n + 1 THEN
        RAISE EXCEPTION 'block % does not follow block %, the newest', NEW.n, prev_n
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.prev_hash IS NOT NULL AND NEW.prev_hash <> prev_hash THEN
        RAISE EXCEPTION 'block % does not carry block %''s hash', NEW.n, prev_n
            USING ERRCODE = 'restrict_violation';
    END IF;
    -- Only entries whose transactions can no longer be overtaken: every transaction below
    -- the snapshot's xmin has ended, so no entry of an earlier transaction can appear among
    -- them after this block is sealed.
    cutoff := pg_snapshot_xmin(pg_current_snapshot())::text::bigint;
    IF NEW.last_txid IS NULL OR NEW.last_txid >= cutoff
       OR NOT EXISTS (SELECT 1 FROM ledger_entry e
                       WHERE e.id = NEW.last_entry_id AND e.txid = NEW.last_txid)
       OR (NEW.last_txid, NEW.last_entry_id) <= (after_txid, after_id) THEN
        RAISE EXCEPTION 'block % must end at an entry after block %''s, posted by a transaction '
            'that ended before every one still running (below %)', NEW.n, prev_n, cutoff
            USING ERRCODE = 'restrict_violation';
    END IF;
    -- ledger.chain.entry_digest and block_hash, computed from the stored rows.
    SELECT count(*), string_agg(d.digest, E'\n' ORDER BY d.txid, d.id)
      INTO counted, digests
      FROM (SELECT e.txid, e.id, encode(sha256(convert_to(
                       'id=' || e.id || E'\ntxid=' || e.txid
                       || E'\nat=' || to_char(e.created_at AT TIME ZONE 'UTC',
                                              'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
                       || E'\nkind=' || length(e.kind) || ':' || e.kind
                       || E'\nmemo=' || length(e.memo) || ':' || e.memo
                       || E'\nref=' || length(e.ref) || ':' || e.ref
                       || E'\nby=' || coalesce(e.created_by_id::text, '')
                       || E'\nreverses=' || coalesce(e.reverses_id::text, '')
                       || E'\nreason=' || length(e.reason) || ':' || e.reason
                       || E'\nlines=' || coalesce(
                              (SELECT string_agg(l.account_id || ':' || l.amount, ','
                                                 ORDER BY l.account_id, l.amount)
                                 FROM ledger_line l WHERE l.entry_id = e.id), ''),
                       'UTF8')), 'hex') AS digest
              FROM ledger_entry e
             WHERE (e.txid, e.id) > (after_txid, after_id)
               AND (e.txid, e.id) <= (NEW.last_txid, NEW.last_entry_id)) d;
    computed := encode(sha256(convert_to(
        prev_hash || E'\nblock=' || NEW.n || E'\nentries=' || counted || E'\n' || digests,
        'UTF8')), 'hex');
    IF NEW.hash IS NOT NULL AND NEW.hash <> computed THEN
        RAISE EXCEPTION 'block %''s hash is not that of its entries', NEW.n
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.entries IS NOT NULL AND NEW.entries <> counted THEN
        RAISE EXCEPTION 'block % holds % entries, not %', NEW.n, counted, NEW.entries
            USING ERRCODE = 'restrict_violation';
    END IF;
    NEW.entries := counted;
    NEW.prev_hash := prev_hash;
    NEW.hash := computed;
    NEW.sealed_at := clock_timestamp();
    RETURN NEW;
END $$;
CREATE TRIGGER ledger_block_guard BEFORE INSERT OR DELETE OR UPDATE ON ledger_block
  FOR EACH ROW EXECUTE FUNCTION ledger_guard_block();

--- reverse:
DROP TRIGGER ledger_block_guard ON ledger_block;
DROP FUNCTION ledger_guard_block();

--- forward:
CREATE FUNCTION ledger_seal(p_max_entries integer, p_max_blocks integer,
                            OUT o_blocks integer, OUT o_entries bigint, OUT o_last_block bigint)
 RETURNS record
 LANGUAGE plpgsql
AS $$
DECLARE
    last_txid bigint;
    last_id bigint;
    cutoff bigint;
    bound_txid bigint;
    bound_id bigint;
    made integer;
BEGIN
    o_blocks := 0; o_entries := 0;
    -- One sealer at a time (the block trigger would refuse the second's block anyway).
    PERFORM pg_advisory_xact_lock(19539, 0);
    LOOP
        SELECT b.n, coalesce(b.last_txid, 0),
               CASE WHEN b.last_txid IS NULL THEN 0 ELSE b.last_entry_id END
          INTO o_last_block, last_txid, last_id FROM ledger_block b ORDER BY b.n DESC LIMIT 1;
        IF NOT FOUND THEN
            o_last_block := 0; last_txid := 0; last_id := 0;
        END IF;
        EXIT WHEN o_blocks >= p_max_blocks;
        cutoff := pg_snapshot_xmin(pg_current_snapshot())::text::bigint;
        -- The last of the next p_max_entries entries, in sealing order, that no earlier
        -- transaction can overtake any more.
        SELECT x.txid, x.id INTO bound_txid, bound_id
          FROM (SELECT e.txid, e.id FROM ledger_entry e
                 WHERE (e.txid, e.id) > (last_txid, last_id) AND e.txid < cutoff
                 ORDER BY e.txid, e.id LIMIT p_max_entries) x
         ORDER BY x.txid DESC, x.id DESC LIMIT 1;
        EXIT WHEN NOT FOUND;
        INSERT INTO ledger_block (n, last_txid, last_entry_id)
        VALUES (o_last_block + 1, bound_txid, bound_id) RETURNING entries INTO made;
        o_blocks := o_blocks + 1;
        o_entries := o_entries + made;
    END LOOP;
END $$;
REVOKE EXECUTE ON FUNCTION ledger_seal(integer, integer) FROM PUBLIC;

--- reverse:
DROP FUNCTION ledger_seal(integer, integer);

--- forward:
DO $$
BEGIN
    -- A function's settings, in the schema the migration runs in.
    EXECUTE format('ALTER FUNCTION ledger_guard_block() SET search_path = %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION ledger_guard_entry_insert() SET search_path = %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION ledger_seal(integer, integer) SET search_path = %I, pg_temp', current_schema());
END $$;

--- reverse:
SELECT 1;

--- forward:
SELECT 1;

--- reverse:
-- The chain head again, at the newest entry, with its guards.
CREATE TRIGGER ledger_chainhead_guard BEFORE INSERT OR DELETE ON ledger_chainhead FOR EACH ROW EXECUTE FUNCTION ledger_guard_chain_head();

CREATE TRIGGER ledger_chainhead_guard_update BEFORE UPDATE ON ledger_chainhead FOR EACH ROW WHEN (((new.id <> old.id) OR (new.seq <> (old.seq + 1)) OR ((new.prev_hash)::text <> (old.last_hash)::text) OR (new.last_entry_id IS NULL))) EXECUTE FUNCTION ledger_guard_chain_head();


CREATE CONSTRAINT TRIGGER ledger_chainhead_advanced AFTER UPDATE ON ledger_chainhead DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_chain_head_entry();


INSERT INTO ledger_chainhead (id, seq, last_entry_id, last_hash, prev_hash)
SELECT 1, coalesce(e.seq, 0), e.id, coalesce(e.hash, repeat('0', 64)), coalesce(e.prev_hash, '')
  FROM (SELECT 1) one LEFT JOIN LATERAL
       (SELECT id, seq, hash, prev_hash FROM ledger_entry ORDER BY seq DESC LIMIT 1) e ON true;

--- forward:
DROP FUNCTION ledger_guard_chain_head();
DROP FUNCTION ledger_check_chain_head_entry();

--- reverse:
CREATE OR REPLACE FUNCTION ledger_guard_chain_head()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
DECLARE
    newest record;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on ledger_chainhead refused: the head moves only forward'
            USING ERRCODE = 'restrict_violation';
    ELSIF TG_OP = 'INSERT' THEN
        SELECT id, seq, hash, prev_hash INTO newest FROM ledger_entry ORDER BY seq DESC LIMIT 1;
        IF FOUND THEN
            IF NEW.last_entry_id IS DISTINCT FROM newest.id OR NEW.seq <> newest.seq
               OR NEW.last_hash <> newest.hash OR NEW.prev_hash <> newest.prev_hash THEN
                RAISE EXCEPTION 'the chain head starts at the newest entry #% (seq %)',
                    newest.id, newest.seq USING ERRCODE = 'restrict_violation';
            END IF;
        ELSIF NEW.last_entry_id IS NOT NULL OR NEW.seq <> 0 OR NEW.last_hash <> repeat('0', 64)
              OR NEW.prev_hash <> '' THEN
            RAISE EXCEPTION 'the chain head of an empty ledger starts at the genesis'
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.id <> OLD.id OR NEW.seq <> OLD.seq + 1 OR NEW.prev_hash <> OLD.last_hash
       OR NEW.last_entry_id IS NULL THEN
        RAISE EXCEPTION 'UPDATE on ledger_chainhead refused: the head advances by one entry, '
            'whose prev_hash is the head''s hash' USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $function$;

CREATE OR REPLACE FUNCTION ledger_check_chain_head_entry()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
BEGIN
    PERFORM 1 FROM ledger_entry e
      WHERE e.id = NEW.last_entry_id AND e.seq = NEW.seq AND e.hash = NEW.last_hash
        AND e.prev_hash = NEW.prev_hash AND ledger_written_here(e.xmin);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'the chain head moved to entry % (seq %), which its transaction did not '
            'post with that hash', NEW.last_entry_id, NEW.seq
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NULL;
END $function$;
