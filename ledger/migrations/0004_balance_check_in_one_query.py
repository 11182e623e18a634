"""The balance check at commit in one query instead of two.

It runs for each entry and each of its lines at every commit that posts, while the chain
head is locked, so its cost bounds how fast entries can be posted. Same rule, same errors.
"""

from django.db import migrations

FORWARD = r"""
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
    SELECT coalesce(sum(n), 0), min(currency) FILTER (WHERE total <> 0),
           min(total) FILTER (WHERE total <> 0)
      INTO line_count, bad_currency, bad_total
      FROM (SELECT a.currency, count(*) AS n, sum(l.amount) AS total
              FROM ledger_line l JOIN ledger_account a ON a.id = l.account_id
             WHERE l.entry_id = the_entry GROUP BY a.currency) per_currency;
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
"""

BACKWARD = r"""
CREATE OR REPLACE FUNCTION ledger_check_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    the_entry bigint;
    line_count integer;
    bad record;
BEGIN
    IF TG_TABLE_NAME = 'ledger_entry' THEN
        the_entry := NEW.id;
    ELSE
        the_entry := NEW.entry_id;
    END IF;
    SELECT count(*) INTO line_count FROM ledger_line WHERE entry_id = the_entry;
    IF line_count < 2 THEN
        RAISE EXCEPTION 'ledger entry % has % line(s); an entry needs at least two',
            the_entry, line_count USING ERRCODE = 'check_violation';
    END IF;
    SELECT a.currency, sum(l.amount) AS total INTO bad
      FROM ledger_line l JOIN ledger_account a ON a.id = l.account_id
     WHERE l.entry_id = the_entry
     GROUP BY a.currency HAVING sum(l.amount) <> 0
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger entry % is unbalanced: its % lines sum to %',
            the_entry, bad.currency, bad.total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;

"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0003_chain_head")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
