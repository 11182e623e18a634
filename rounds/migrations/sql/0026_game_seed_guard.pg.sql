-- rounds/migrations/0026_game_seed_guard.py (its docstring says why)

--- forward:
-- A game's seeds decide its deal. The server seed and its commitment never change; the
-- client seed is the player's, written with the bet while the game still takes it, and
-- never after: a seed changed after the deal would make the published recomputation
-- (docs/fairness.md) say the deal was not the one the seeds give. No seed is deleted.
CREATE FUNCTION rounds_guard_game_seed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    game_state text;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE on rounds_gameseed refused: the seeds of game % are part of '
            'the record', OLD.round_id USING ERRCODE = 'restrict_violation';
    END IF;
    IF to_jsonb(NEW) = to_jsonb(OLD) THEN
        RETURN NEW;  -- nothing changes
    END IF;
    SELECT state INTO game_state FROM rounds_round WHERE id = OLD.round_id;
    IF game_state = 'betting'
       AND to_jsonb(NEW) - 'client_seed' = to_jsonb(OLD) - 'client_seed' THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'UPDATE on rounds_gameseed refused: game % %', OLD.round_id,
        CASE WHEN game_state = 'betting' THEN 'keeps its server seed and commitment'
             ELSE 'is dealt: its seeds never change' END
        USING ERRCODE = 'restrict_violation';
END $$;
REVOKE ALL ON FUNCTION rounds_guard_game_seed() FROM PUBLIC;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION rounds_guard_game_seed() SET search_path = %I, pg_temp',
                   current_schema());
END $$;
CREATE TRIGGER rounds_gameseed_guard BEFORE UPDATE OR DELETE ON rounds_gameseed
    FOR EACH ROW EXECUTE FUNCTION rounds_guard_game_seed();

--- reverse:
DROP TRIGGER rounds_gameseed_guard ON rounds_gameseed;
DROP FUNCTION rounds_guard_game_seed();
