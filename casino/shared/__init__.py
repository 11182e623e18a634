"""The pieces every app shares: the domain's errors, the API's base (error shape,
permissions, fields, pagination, schema hooks), money at the edges, idempotency, dual
control and refusals, the database helpers and backend, sign-in throttling, the admin's
read-only base and the template filters for times, words and money.

Nothing here knows players, staff, tables, rounds or the ledger (tests/test_layering.py):
the ledger builds on these alone, so it could serve any table game.
"""
