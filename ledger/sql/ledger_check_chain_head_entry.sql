CREATE OR REPLACE FUNCTION public.ledger_check_chain_head_entry()
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

CREATE CONSTRAINT TRIGGER ledger_chainhead_advanced AFTER UPDATE ON public.ledger_chainhead DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_chain_head_entry();
