-- casino/migrations/0015_cash_report_filings.py (its docstring says why)

--- forward:
-- A filing is what went to the authority: who filed, when, the figures filed. It never
-- changes and is never deleted; an amendment is a filing of its own.
CREATE FUNCTION casino_refuse_cash_report_filing_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on casino_cashreportfiling refused: filing % of cash report % is what '
        'was filed; an amendment is a filing of its own', TG_OP, OLD.id, OLD.report_id
        USING ERRCODE = 'restrict_violation';
END $$;
REVOKE ALL ON FUNCTION casino_refuse_cash_report_filing_change() FROM PUBLIC;
CREATE TRIGGER casino_cashreportfiling_append_only BEFORE UPDATE OR DELETE
    ON casino_cashreportfiling FOR EACH ROW
    EXECUTE FUNCTION casino_refuse_cash_report_filing_change();

--- reverse:
DROP TRIGGER casino_cashreportfiling_append_only ON casino_cashreportfiling;
DROP FUNCTION casino_refuse_cash_report_filing_change();
