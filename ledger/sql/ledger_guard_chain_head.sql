CREATE OR REPLACE FUNCTION public.ledger_guard_chain_head()
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

CREATE TRIGGER ledger_chainhead_guard BEFORE INSERT OR DELETE ON public.ledger_chainhead FOR EACH ROW EXECUTE FUNCTION ledger_guard_chain_head();

CREATE TRIGGER ledger_chainhead_guard_update BEFORE UPDATE ON public.ledger_chainhead FOR EACH ROW WHEN (((new.id <> old.id) OR (new.seq <> (old.seq + 1)) OR ((new.prev_hash)::text <> (old.last_hash)::text) OR (new.last_entry_id IS NULL))) EXECUTE FUNCTION ledger_guard_chain_head();
