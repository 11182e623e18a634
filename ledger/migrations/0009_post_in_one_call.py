"""Posting an entry, placing a hold and releasing holds: one function call each.

ledger_entry_post does in PostgreSQL what ledger.services did over four or more round trips:
take the reversal's advisory lock, lock the accounts and then the settled holds in key order,
check that the lines balance per currency, settle the holds (captured up to what the entry
debits on the hold's account, shared out in id order, else released), check the funds of
every account that may not go negative, and append the entry to the hash chain. The chain
head is locked by the function's last statement, so it is held only from there to commit;
the function also writes the chained content itself, from its own arguments, so what it
hashes is what it stores. ledger_hold_place and ledger_holds_release do the same for holds.

Every trigger and guard of 0002-0007 stays and judges these writes as it judges any other:
the functions are SECURITY INVOKER, so they can do nothing the calling role cannot do by
itself, and their search_path is fixed (pg_temp last), so no session's temporary table can
stand in for a ledger table. Their refusals use SQLSTATEs of class 23 of the ledger's own
(23L01...), with the figures as JSON in DETAIL, which ledger.services maps back to the same
domain errors as before:

  23L00 fewer than two lines    23L01 unbalanced         23L02 insufficient funds
  23L03 hold already resolved   23L04 no such account    23L05 no such hold
  23L06 entry already reversed

EXECUTE is taken from PUBLIC: the runtime role gets it from casino.shared.db_roles.runtime_grant.
Their plans are generic (plan_cache_mode): planned once per session, not at every call.
Every row they read they find by a key, so sequential scans are off for them
(enable_seqscan): planned while the account table is young and small, a scan looks cheaper
than the primary key, and the plan stays while every posting's updates bloat the table. A
generic plan does not know that an array holds two ids either, so every join with a ledger
table also restricts it by "id = ANY (the ids)".

The balance check at commit (ledger_check_entry_balanced, 0004) reads each line's currency
by its account's key instead of by a join: with a few hundred accounts the join's generic
plan scanned the whole (update-bloated) account table, three times per two-line entry, while
the chain head was locked. Same rule, same errors. ledger_written_here (0007), which the
guards call under that lock, becomes PL/pgSQL with the same expression and search_path: as
a SQL function with a SET clause it was planned again at every trigger's call.
"""

from django.db import migrations

WRITTEN_HERE = r"""
CREATE OR REPLACE FUNCTION ledger_written_here(row_xmin xid) RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog AS $$
DECLARE
    cur bigint := pg_current_xact_id()::text::bigint;
    x bigint := row_xmin::text::bigint;
BEGIN
    -- xmin is 32 bits; pg_xact_status wants the 64-bit id: take the one nearest the
    -- current transaction's (rows older than 2^31 transactions are frozen anyway).
    RETURN coalesce(pg_xact_status((cur + (x - (cur & 4294967295) + 6442450944) % 4294967296
                                    - 2147483648)::text::xid8) = 'in progress', false);
END $$;
"""

WRITTEN_HERE_0007 = r"""
CREATE OR REPLACE FUNCTION ledger_written_here(row_xmin xid) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog AS $$
    SELECT coalesce(pg_xact_status((cur + (x - (cur & 4294967295) + 6442450944) % 4294967296
                                    - 2147483648)::text::xid8) = 'in progress', false)
      FROM (SELECT pg_current_xact_id()::text::bigint AS cur,
                   row_xmin::text::bigint AS x) v
$$;
"""

BALANCED = r"""
CREATE OR REPLACE FUNCTION ledger_check_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    the_entry bigint;
    line_count bigint;
    bad_currency text;
    bad_total numeric;
BEGIN
    IF TG_TABLE_NAME = 'ledger_entry' THEN
        the_entry := NEW.id;
    ELSE
        the_entry := NEW.entry_id;
    END IF;
    -- A line whose account is missing counts for nothing, as in a join (its foreign key
    -- refuses it anyway).
    SELECT coalesce(sum(n), 0), min(currency) FILTER (WHERE total <> 0),
           min(total) FILTER (WHERE total <> 0)
      INTO line_count, bad_currency, bad_total
      FROM (SELECT c.currency, count(*) AS n, sum(c.amount) AS total
              FROM (SELECT l.amount, (SELECT a.currency FROM ledger_account a
                                       WHERE a.id = l.account_id) AS currency
                      FROM ledger_line l WHERE l.entry_id = the_entry) c
             WHERE c.currency IS NOT NULL GROUP BY c.currency) per_currency;
    IF line_count < 2 THEN
        RAISE EXCEPTION 'ledger entry % has % line(s); an entry needs at least two',
            the_entry, line_count USING ERRCODE = 'check_violation';
    END IF;
    IF bad_currency IS NOT NULL THEN
        RAISE EXCEPTION 'ledger entry % is unbalanced: its % lines sum to %',
            the_entry, bad_currency, bad_total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;
"""

FUNCTIONS = ("ledger_entry_post(text, text, text, integer, bigint, text, bigint[], bigint[],"
             " bigint[])",
             "ledger_hold_place(bigint, bigint, integer, text, text)",
             "ledger_holds_release(bigint[], integer)")

FORWARD = r"""
-- Locks, in the order of ledger.services (so postings never wait on each other in a cycle):
-- the reversed entry's advisory lock, the accounts, the settled holds, the chain head last.
CREATE FUNCTION ledger_entry_post(
    p_kind text, p_memo text, p_ref text, p_by integer, p_reverses bigint, p_reason text,
    p_accounts bigint[], p_amounts bigint[], p_holds bigint[],
    OUT o_id bigint, OUT o_created_at timestamptz, OUT o_seq bigint, OUT o_prev_hash text,
    OUT o_hash text)
LANGUAGE plpgsql SECURITY INVOKER AS $$
DECLARE
    n_lines integer := coalesce(cardinality(p_accounts), 0);
    holds bigint[] := '{}';
    hold_accounts bigint[];
    missing bigint[];
    found_id bigint;
    bad record;
    n_locked bigint;
    sums jsonb;
    short jsonb;
    body text;
BEGIN
    IF n_lines < 2 OR cardinality(p_amounts) IS DISTINCT FROM n_lines THEN
        RAISE EXCEPTION 'an entry needs at least two lines, each an account and an amount'
            USING ERRCODE = '23L00', DETAIL = json_build_object('lines', n_lines)::text;
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
    -- One statement locks the accounts and judges the entry from the rows it locked: the
    -- accounts missing, the sums per currency that are not zero, the first account (in the
    -- lines' order) that may not go negative and would, and the chained content.
    WITH locked AS MATERIALIZED (
        -- LockRows sits above the sort: the rows are locked in key order.
        SELECT a.id, a.currency, a.allow_negative, a.posted - a.held AS available
          FROM ledger_account a WHERE a.id = ANY (p_accounts || hold_accounts)
         ORDER BY a.id FOR UPDATE
    ),
    line AS (
        SELECT l.account_id, l.amount, l.n
          FROM unnest(p_accounts, p_amounts) WITH ORDINALITY l(account_id, amount, n)
    ),
    net AS (
        SELECT account_id, sum(amount) AS net, min(n) AS first FROM line GROUP BY account_id
    ),
    -- The settled holds are closed before the funds are judged, so what they hold counts as
    -- available: funds held for a wager pay that wager. (A hold's amount never changes;
    -- whether it is still open is checked once it is locked, below.)
    freed AS (
        SELECT h.account_id, sum(h.amount) AS freed FROM ledger_hold h
         WHERE h.id = ANY (holds) GROUP BY h.account_id
    )
    SELECT (SELECT count(*) FROM locked),  -- first: every account is locked before the rest
           (SELECT array_agg(n.account_id ORDER BY n.account_id) FROM net n
             WHERE NOT EXISTS (SELECT 1 FROM locked k WHERE k.id = n.account_id)),
           (SELECT jsonb_object_agg(t.currency, t.total)
              FROM (SELECT k.currency, sum(l.amount) AS total
                      FROM line l JOIN locked k ON k.id = l.account_id
                     GROUP BY k.currency HAVING sum(l.amount) <> 0) t),
           (SELECT jsonb_build_object('account_id', k.id, 'required', -n.net,
                                      'available', k.available + coalesce(f.freed, 0))
              FROM net n JOIN locked k ON k.id = n.account_id
              LEFT JOIN freed f ON f.account_id = n.account_id
             WHERE n.net < 0 AND NOT k.allow_negative
               AND k.available + coalesce(f.freed, 0) + n.net < 0
             ORDER BY n.first LIMIT 1),
           -- ledger.chain's body, written here from the arguments, so it is what is stored.
           'kind=' || length(p_kind) || ':' || p_kind
           || E'\nmemo=' || length(p_memo) || ':' || p_memo
           || E'\nref=' || length(p_ref) || ':' || p_ref
           || E'\nby=' || coalesce(p_by::text, '')
           || E'\nreverses=' || coalesce(p_reverses::text, '')
           || E'\nreason=' || length(p_reason) || ':' || p_reason
           || E'\nlines=' || (SELECT string_agg(l.account_id || ':' || l.amount, ','
                                                ORDER BY l.account_id, l.amount) FROM line l)
      INTO n_locked, missing, sums, short, body;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'no such ledger account: %', missing
            USING ERRCODE = '23L04', DETAIL = json_build_object('account_ids', missing)::text;
    END IF;
    IF sums IS NOT NULL THEN
        RAISE EXCEPTION 'the lines must sum to zero in each currency, not %', sums
            USING ERRCODE = '23L01', DETAIL = json_build_object('sums', sums)::text;
    END IF;
    o_id := nextval(pg_get_serial_sequence('ledger_entry', 'id'));
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

CREATE FUNCTION ledger_hold_place(
    p_account bigint, p_amount bigint, p_by integer, p_ref text, p_memo text,
    OUT o_id bigint, OUT o_created_at timestamptz)
LANGUAGE plpgsql SECURITY INVOKER AS $$
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
END $$;

CREATE FUNCTION ledger_holds_release(p_holds bigint[], p_by integer)
RETURNS SETOF ledger_hold
LANGUAGE plpgsql SECURITY INVOKER AS $$
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
END $$;
"""


def _forward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FORWARD)
        cursor.execute("SELECT current_schema()")
        schema = cursor.fetchone()[0]
        for signature in FUNCTIONS:
            # The search_path a guard of 0007 has: this schema, then pg_temp last.
            cursor.execute(f'ALTER FUNCTION {signature} SET search_path = "{schema}", pg_temp')
            cursor.execute(f"ALTER FUNCTION {signature} SET plan_cache_mode = force_generic_plan")
            cursor.execute(f"ALTER FUNCTION {signature} SET enable_seqscan = off")
            cursor.execute(f"REVOKE ALL ON FUNCTION {signature} FROM PUBLIC")
        _balanced(cursor, BALANCED, schema)
        cursor.execute(WRITTEN_HERE)


def _balanced(cursor, definition, schema):
    # CREATE OR REPLACE drops the function's settings: its search_path (0007) goes back on.
    cursor.execute(definition)
    cursor.execute("ALTER FUNCTION ledger_check_entry_balanced()"
                   f' SET search_path = "{schema}", pg_temp')


def _backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for signature in FUNCTIONS:
            cursor.execute(f"DROP FUNCTION {signature}")
        cursor.execute("SELECT current_schema()")
        _balanced(cursor, BALANCED_0004, cursor.fetchone()[0])
        cursor.execute(WRITTEN_HERE_0007)


BALANCED_0004 = r"""
CREATE OR REPLACE FUNCTION ledger_check_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    the_entry bigint;
    line_count bigint;
    bad_currency text;
    bad_total numeric;
BEGIN
    IF TG_TABLE_NAME = 'ledger_entry' THEN
        the_entry := NEW.id;
    ELSE
        the_entry := NEW.entry_id;
    END IF;
    SELECT coalesce(sum(n), 0), min(currency) FILTER (WHERE total <> 0),
           min(total) FILTER (WHERE total <> 0)
      INTO line_count, bad_currency, bad_total
      FROM (SELECT a.currency, count(*) AS n, sum(l.amount) AS total
              FROM ledger_line l JOIN ledger_account a ON a.id = l.account_id
             WHERE l.entry_id = the_entry GROUP BY a.currency) per_currency;
    IF line_count < 2 THEN
        RAISE EXCEPTION 'ledger entry % has % line(s); an entry needs at least two',
            the_entry, line_count USING ERRCODE = 'check_violation';
    END IF;
    IF bad_currency IS NOT NULL THEN
        RAISE EXCEPTION 'ledger entry % is unbalanced: its % lines sum to %',
            the_entry, bad_currency, bad_total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0008_house_accounts_permission")]

    operations = [migrations.RunPython(_forward, _backward)]
