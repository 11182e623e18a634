"""Background tasks of the floor (Celery; eager in development, see casino.celery)."""

from __future__ import annotations

from celery import shared_task

from casino.shared.idempotency import idempotency_keys_purge


@shared_task(name="casino.idempotency_keys_purge")
def purge_idempotency_keys() -> int:
    """Hourly (CELERY_BEAT_SCHEDULE): forget Idempotency-Keys older than 24 hours."""
    return idempotency_keys_purge()
