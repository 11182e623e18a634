-- casino/migrations/0018_player_limits.py (casino.models.PlayerLimit says why)

--- forward:
-- A player's limits are their history: a change is a new row, never an edit of one set
-- before, and no row is deleted.
CREATE FUNCTION casino_refuse_player_limit_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on casino_playerlimit refused: limit % of player % is history; a '
        'change is a new row', TG_OP, OLD.id, OLD.player_id
        USING ERRCODE = 'restrict_violation';
END $$;
REVOKE ALL ON FUNCTION casino_refuse_player_limit_change() FROM PUBLIC;
CREATE TRIGGER casino_playerlimit_append_only BEFORE UPDATE OR DELETE
    ON casino_playerlimit FOR EACH ROW
    EXECUTE FUNCTION casino_refuse_player_limit_change();

--- reverse:
DROP TRIGGER casino_playerlimit_append_only ON casino_playerlimit;
DROP FUNCTION casino_refuse_player_limit_change();
