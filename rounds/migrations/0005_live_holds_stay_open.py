"""A live round's holds stay open until the round's own steps resolve them.

The ledger lets a hold be released by whoever may resolve holds (it knows nothing of
rounds); a round knows which holds are its wagers' and its banker's cover. At COMMIT, a
hold resolved while it backs an active wager or the cover of a round still in play
(betting, banker set, dealt) is refused: the services clear the wager, settle or void the
round in the same transaction, so only a release behind their back meets this. Without
it, an UPDATE of a live wager's hold would free the player's stake mid-round (and leave the
round unable to settle).
"""

from django.db import migrations, models

FORWARD = r"""
CREATE FUNCTION rounds_check_live_hold() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    live_round bigint;
BEGIN
    SELECT w.round_id INTO live_round
      FROM rounds_wager w JOIN rounds_round r ON r.id = w.round_id
     WHERE w.hold_id = NEW.id AND w.state = 'active'
       AND r.state IN ('betting', 'banker_set', 'dealt');
    IF NOT FOUND THEN
        SELECT r.id INTO live_round FROM rounds_round r
         WHERE r.banker_hold_id = NEW.id AND r.state IN ('betting', 'banker_set', 'dealt');
    END IF;
    IF live_round IS NOT NULL THEN
        RAISE EXCEPTION 'hold % backs round % still in play: it is resolved by clearing the '
            'wager, settling or voiding the round', NEW.id, live_round
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NULL;
END $$;

-- A fixed search_path, pg_temp last: no session's temporary table stands in for these.
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION rounds_check_live_hold() SET search_path = %I, pg_temp',
                   current_schema());
END $$;

CREATE CONSTRAINT TRIGGER rounds_live_holds_stay_open
    AFTER UPDATE ON ledger_hold DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.status = 'open' AND NEW.status <> 'open')
    EXECUTE FUNCTION rounds_check_live_hold();
"""

BACKWARD = r"""
DROP TRIGGER rounds_live_holds_stay_open ON ledger_hold;
DROP FUNCTION rounds_check_live_hold();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("rounds", "0004_report_permission"),
        ("ledger", "0007_runtime_role_guards"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="round",
            index=models.Index(condition=models.Q(banker_hold_id__isnull=False),
                               fields=["banker_hold_id"], name="rounds_round_banker_hold"),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
