"""The balance check at commit in one plain aggregate when an entry has a single currency.

The check (0002, 0004, 0009) runs at commit while the chain head is locked. Its query
grouped the lines by currency under a second aggregate, and looked each line's currency up
twice (once to drop lines whose account is missing, once to group): about twice the work of
the rule for the common entry, whose lines are all in one currency. It now counts the lines,
sums them and takes the smallest and largest currency in one pass, each line's currency
looked up once (OFFSET 0 keeps the planner from copying the lookup into every aggregate);
only an entry whose lines span several currencies runs the grouped query of 0009, for the
currency that does not balance. Same rule, same errors, same figures in them.
"""

from importlib import import_module

from django.db import migrations

BALANCED = r"""
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
"""

# The check as 0009 made it, for the way back.
BALANCED_0009 = import_module("ledger.migrations.0009_post_in_one_call").BALANCED

# CREATE OR REPLACE drops the function's settings: its fixed search_path (0007) goes back on.
SEARCH_PATH = r"""
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION ledger_check_entry_balanced() SET search_path = %I, pg_temp',
                   current_schema());
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0010_line_check_only_for_existing_entries")]

    operations = [migrations.RunSQL(BALANCED + SEARCH_PATH, BALANCED_0009 + SEARCH_PATH)]
