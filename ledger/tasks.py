"""The ledger's background work: the sealer, run by beat every LEDGER_SEAL_EVERY_SECONDS."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="ledger.seal")
def ledger_seal_task() -> int:
    """Seal what can be sealed (ledger.services.entries_seal), a run of blocks at a time, until
    nothing is left; returns the entries sealed. Two runs at once take turns (the function's
    advisory lock), so a slow run never makes a second sealer."""
    from ledger.services import entries_seal

    sealed = 0
    while (done := entries_seal()).blocks:
        sealed += done.entries
    return sealed
