"""A closed gaming day's figures never change: PostgreSQL refuses UPDATE and DELETE of
closed days and their tables' figures, whatever path the change takes."""

from django.db import migrations

FORWARD = """
CREATE FUNCTION rounds_refuse_closed_day_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a closed gaming day''s figures never change: % refused on % row %',
        TG_OP, TG_TABLE_NAME, OLD.id USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER rounds_closedday_append_only
    BEFORE UPDATE OR DELETE ON rounds_closedday
    FOR EACH ROW EXECUTE FUNCTION rounds_refuse_closed_day_change();
CREATE TRIGGER rounds_closedtableday_append_only
    BEFORE UPDATE OR DELETE ON rounds_closedtableday
    FOR EACH ROW EXECUTE FUNCTION rounds_refuse_closed_day_change();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS rounds_closedtableday_append_only ON rounds_closedtableday;
DROP TRIGGER IF EXISTS rounds_closedday_append_only ON rounds_closedday;
DROP FUNCTION IF EXISTS rounds_refuse_closed_day_change();
"""


class Migration(migrations.Migration):
    dependencies = [("rounds", "0007_closed_days")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
