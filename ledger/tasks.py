"""The ledger's background work: the sealer, run by beat every LEDGER_SEAL_EVERY_SECONDS."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="ledger.seal")
def ledger_seal_task() -> int:
    """Seal what can be sealed (ledger.services.entries_seal_all); returns the entries
    sealed. Two runs at once take turns (the function's advisory lock), so a slow run never
    makes a second sealer."""
    from ledger.services import entries_seal_all

    return entries_seal_all().entries
