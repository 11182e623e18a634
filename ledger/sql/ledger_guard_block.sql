CREATE OR REPLACE FUNCTION public.ledger_guard_block()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
END $function$;

CREATE TRIGGER ledger_block_guard BEFORE INSERT OR DELETE OR UPDATE ON public.ledger_block FOR EACH ROW EXECUTE FUNCTION ledger_guard_block();
