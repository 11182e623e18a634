CREATE OR REPLACE FUNCTION public.ledger_seal(p_max_entries integer, p_max_blocks integer, OUT o_blocks integer, OUT o_entries bigint, OUT o_last_block bigint)
 RETURNS record
 LANGUAGE plpgsql
 SET search_path TO 'public', 'pg_temp'
AS $function$
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
END $function$;
