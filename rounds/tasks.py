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


@shared_task(name="rounds.games_finish_abandoned")
def games_finish_abandoned_task() -> int:
    """Finish, by the house way, the self-service games left unfinished after the deal
    (rounds.services.games): each in its own transaction, so one refusal leaves the rest."""
    from rounds.services.games import game_finish_abandoned, games_abandoned

    finished = 0
    for game_id in games_abandoned():
        try:
            game_finish_abandoned(game_id=game_id)
            finished += 1
        except Exception:  # one game's refusal is logged and the next one tried
            log.exception("could not finish abandoned game #%s", game_id)
    return finished
