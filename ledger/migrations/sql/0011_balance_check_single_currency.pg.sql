-- ledger/migrations/0011_balance_check_single_currency.py (its docstring says why)

--- forward:
CREATE OR REPLACE FUNCTION ledger_check_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    the_entry bigint;
    line_count bigint;
    first_currency text;
    last_currency text;
    line_total numeric;
    bad_currency text;
    bad_total numeric;
BEGIN
    IF TG_TABLE_NAME = 'ledger_entry' THEN
        the_entry := NEW.id;
    ELSE
        the_entry := NEW.entry_id;
    END IF;
    -- A line whose account is missing counts for nothing, as in a join (its foreign key
    -- refuses it anyway).
    SELECT count(c.currency), min(c.currency), max(c.currency),
           sum(c.amount) FILTER (WHERE c.currency IS NOT NULL)
      INTO line_count, first_currency, last_currency, line_total
      FROM (SELECT l.amount, (SELECT a.currency FROM ledger_account a
                               WHERE a.id = l.account_id) AS currency
              FROM ledger_line l WHERE l.entry_id = the_entry OFFSET 0) c;
    IF line_count < 2 THEN
        RAISE EXCEPTION 'ledger entry % has % line(s); an entry needs at least two',
            the_entry, line_count USING ERRCODE = 'check_violation';
    END IF;
    IF first_currency = last_currency THEN
        IF line_total <> 0 THEN
            RAISE EXCEPTION 'ledger entry % is unbalanced: its % lines sum to %',
                the_entry, first_currency, line_total USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
    END IF;
    SELECT min(currency) FILTER (WHERE total <> 0), min(total) FILTER (WHERE total <> 0)
      INTO bad_currency, bad_total
      FROM (SELECT c.currency, sum(c.amount) AS total
              FROM (SELECT l.amount, (SELECT a.currency FROM ledger_account a
                                       WHERE a.id = l.account_id) AS currency
                      FROM ledger_line l WHERE l.entry_id = the_entry) c
             WHERE c.currency IS NOT NULL GROUP BY c.currency) per_currency;
    IF bad_currency IS NOT NULL THEN
        RAISE EXCEPTION 'ledger entry % is unbalanced: its % lines sum to %',
            the_entry, bad_currency, bad_total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;

DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION ledger_check_entry_balanced() SET search_path = %I, pg_temp',
                   current_schema());
END $$;

--- reverse:
CREATE OR REPLACE FUNCTION ledger_check_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    the_entry bigint;
    line_count bigint;
    bad_currency text;
    bad_total numeric;
BEGIN
    IF TG_TABLE_NAME = 'ledger_entry' THEN
        the_entry := NEW.id;
    ELSE
        the_entry := NEW.entry_id;
    END IF;
    -- A line whose account is missing counts for nothing, as in a join (its foreign key
    -- refuses it anyway).
    SELECT coalesce(sum(n), 0), min(currency) FILTER (WHERE total <> 0),
           min(total) FILTER (WHERE total <> 0)
      INTO line_count, bad_currency, bad_total
      FROM (SELECT c.currency, count(*) AS n, sum(c.amount) AS total
              FROM (SELECT l.amount, (SELECT a.currency FROM ledger_account a
                                       WHERE a.id = l.account_id) AS currency
                      FROM ledger_line l WHERE l.entry_id = the_entry) c
             WHERE c.currency IS NOT NULL GROUP BY c.currency) per_currency;
    IF line_count < 2 THEN
        RAISE EXCEPTION 'ledger entry % has % line(s); an entry needs at least two',
            the_entry, line_count USING ERRCODE = 'check_violation';
    END IF;
    IF bad_currency IS NOT NULL THEN
        RAISE EXCEPTION 'ledger entry % is unbalanced: its % lines sum to %',
            the_entry, bad_currency, bad_total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;

DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION ledger_check_entry_balanced() SET search_path = %I, pg_temp',
                   current_schema());
END $$;
