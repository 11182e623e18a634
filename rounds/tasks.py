"""Celery tasks for the game: a simulation split into chunks, run as a chord.

The tasks only call the engine's pure functions (rounds.paigow.simulate), so a chunk gives the
same counts on any worker and the merge is a plain sum.
"""

from __future__ import annotations

import logging

from celery import chord, shared_task

from rounds.paigow.simulate import Counts, merge_counts, plan_chunks, simulate_chunk

log = logging.getLogger(__name__)


@shared_task(name="rounds.simulate_chunk")
def simulate_chunk_task(hands: int, seed: int, way: str, wheel: str) -> Counts:
    return simulate_chunk(hands, seed, way, wheel)


@shared_task(name="rounds.simulate_merge")
def simulate_merge_task(parts: list[Counts]) -> Counts:
    return merge_counts(parts)


def simulate_on_workers(*, hands: int, way: str, wheel: str, seed: int,
                        timeout: float | None = None) -> Counts:
    """Run a simulation as one chord (a chunk task per chunk, then the merge) and wait for
    its counts. The chunks are those of `simulate`, so a seed gives the same counts."""
    header = [simulate_chunk_task.s(n, chunk_seed, way, wheel)
              for n, chunk_seed in plan_chunks(hands, seed)]
    result = chord(header)(simulate_merge_task.s())
    counts: Counts = result.get(timeout=timeout)
    return counts


@shared_task(name="rounds.report_make")
def report_make_task(report_id: int) -> str:
    """Make one asked-for report file (rounds.services.reporting.report_make)."""
    from rounds.services.reporting import report_make

    return report_make(report_id=report_id)


@shared_task(name="rounds.gaming_day_close")
def gaming_day_close_task() -> str | None:
    """Daily at GAMING_DAY_CLOSE_HOUR (CELERY_BEAT_SCHEDULE): close the previous gaming
    day unless it is closed; a day that cannot close yet (a round still in play) is
    logged and left for the pit boss."""
    from casino.shared.errors import DomainError
    from casino.shared.refusals import refusals_traced
    from rounds.services.gaming_days import gaming_day_close_due

    try:
        with refusals_traced(action="gaming_day_close", path="task rounds.gaming_day_close"):
            closed = gaming_day_close_due()
    except DomainError as refused:
        log.warning("gaming day close refused: %s", refused.message)
        return None
    return None if closed is None else closed.gaming_day.isoformat()
