"""The ledger's REST API: accounts, entries and reversals, under /api/v1/ledger/."""
