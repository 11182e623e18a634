"""The ledger's models (see docs/ledger.md)."""
