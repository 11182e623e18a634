-- rounds/migrations/0022_variance_explanations.py (its docstring says why)

--- forward:
-- A pit boss's explanation of a day outside its band is the record of what was said about
-- the figures of that moment: never edited, never removed, whoever asks (the owner too;
-- TRUNCATE is not granted to the service's role).
CREATE FUNCTION rounds_refuse_variance_explanation_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on rounds_varianceexplanation refused: explanation % is the record of '
        'what was said, and is never changed', TG_OP, OLD.id
        USING ERRCODE = 'restrict_violation';
END $$;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION rounds_refuse_variance_explanation_change()'
                   ' SET search_path = %I, pg_temp', current_schema());
END $$;
REVOKE ALL ON FUNCTION rounds_refuse_variance_explanation_change() FROM PUBLIC;
CREATE TRIGGER rounds_varianceexplanation_append_only
    BEFORE UPDATE OR DELETE ON rounds_varianceexplanation
    FOR EACH ROW EXECUTE FUNCTION rounds_refuse_variance_explanation_change();

--- reverse:
DROP TRIGGER rounds_varianceexplanation_append_only ON rounds_varianceexplanation;
DROP FUNCTION rounds_refuse_variance_explanation_change();
