"""A round's story is append-only: PostgreSQL refuses UPDATE and DELETE of its events,
whatever path the change takes (ORM, admin, raw SQL)."""

from django.db import migrations

FORWARD = """
CREATE FUNCTION rounds_refuse_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'round events are append-only: % refused on event %', TG_OP, OLD.id
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER rounds_roundevent_append_only
    BEFORE UPDATE OR DELETE ON rounds_roundevent
    FOR EACH ROW EXECUTE FUNCTION rounds_refuse_event_change();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS rounds_roundevent_append_only ON rounds_roundevent;
DROP FUNCTION IF EXISTS rounds_refuse_event_change();
"""


class Migration(migrations.Migration):
    dependencies = [("rounds", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
