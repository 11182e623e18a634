-- ledger/migrations/0019_entry_dated_when_posted.py (its docstring says why)

--- forward:
CREATE OR REPLACE FUNCTION ledger_guard_entry_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
BEGIN
    -- An entry is dated when it is posted, as ledger_entry_post dates it: one dated earlier
    -- would move a day already closed or a trial balance already read; one dated later
    -- would never look overdue for the sealer; one outside the years 1000 to 9999 is not
    -- read or hashed alike by Python (ledger.chain) and by the block's trigger.
    IF NEW.created_at < transaction_timestamp() OR NEW.created_at > clock_timestamp() THEN
        RAISE EXCEPTION 'an entry is dated when it is posted (from % to now), not %',
            transaction_timestamp(), NEW.created_at USING ERRCODE = 'restrict_violation';
    END IF;
    -- An entry carries the transaction that posts it, nothing else: its place among the
    -- blocks. One dated earlier could slip into a block already sealed; the hashes of the
    -- chain before blocks are never written again.
    RAISE EXCEPTION 'an entry is stamped with the transaction that posts it (txid %), and '
        'has no chain position or hash of its own', pg_current_xact_id()
        USING ERRCODE = 'restrict_violation';
END $$;
DO $$
BEGIN
    -- CREATE OR REPLACE drops the function's settings (0018's): they go back on.
    EXECUTE format('ALTER FUNCTION ledger_guard_entry_insert() SET search_path = %I, pg_temp', current_schema());
END $$;
DROP TRIGGER ledger_entry_stamped ON ledger_entry;
CREATE TRIGGER ledger_entry_stamped BEFORE INSERT ON ledger_entry FOR EACH ROW
  WHEN (NEW.txid IS DISTINCT FROM pg_current_xact_id()::text::bigint OR NEW.seq IS NOT NULL
        OR NEW.prev_hash IS NOT NULL OR NEW.hash IS NOT NULL
        OR NEW.created_at < transaction_timestamp() OR NEW.created_at > clock_timestamp())
  EXECUTE FUNCTION ledger_guard_entry_insert();

--- reverse:
CREATE OR REPLACE FUNCTION ledger_guard_entry_insert()
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
DO $$
BEGIN
    -- CREATE OR REPLACE drops the function's settings (0018's): they go back on.
    EXECUTE format('ALTER FUNCTION ledger_guard_entry_insert() SET search_path = %I, pg_temp', current_schema());
END $$;
DROP TRIGGER ledger_entry_stamped ON ledger_entry;
CREATE TRIGGER ledger_entry_stamped BEFORE INSERT ON ledger_entry FOR EACH ROW
  WHEN (NEW.txid IS DISTINCT FROM pg_current_xact_id()::text::bigint OR NEW.seq IS NOT NULL
        OR NEW.prev_hash IS NOT NULL OR NEW.hash IS NOT NULL)
  EXECUTE FUNCTION ledger_guard_entry_insert();
