"""Monte Carlo: a player against a house-banked dealer, both setting by the house way.

The work is cut into chunks of fixed size, each with its own seed derived from the run's seed
and the chunk's number, so a seeded run gives the same counts on any number of workers (or as
Celery tasks: `simulate_chunk` is a pure function and its counts add up with `merge_counts`).
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing import get_context
from operator import attrgetter
from typing import Final

from .cards import DECK
from .evaluate import DEFAULT_WHEEL, high_value, low_rank, tables_for
from .houseway import DEFAULT_WAY, get_way, set_cards

CHUNK_SIZE: Final = 20_000
COMMISSION: Final = 0.05  # rules section 6: a win pays 1 to 1 less 5%
Z95: Final = 1.959963984540054
Counts = dict[str, int]
Progress = Callable[[int, int], None]


def chunk_seed(seed: int | str, index: int) -> int:
    """A chunk's own seed: a hash of the run's seed and the chunk's number."""
    digest = hashlib.sha256(f"paigow-simulation:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def plan_chunks(hands: int, seed: int | str, chunk_size: int = CHUNK_SIZE
                ) -> list[tuple[int, int]]:
    """(hands, seed) for each chunk; the plan depends only on `hands` and `seed`."""
    if hands < 1:
        raise ValueError(f"the number of hands must be positive, not {hands}")
    return [(min(chunk_size, hands - start), chunk_seed(seed, index))
            for index, start in enumerate(range(0, hands, chunk_size))]


def simulate_chunk(hands: int, seed: int, way: str = DEFAULT_WAY, wheel: str = DEFAULT_WHEEL
                   ) -> Counts:
    """Play `hands` hands; a pure function of its arguments. Returns mergeable counts."""
    rule = get_way(way)
    plain, suited = tables_for(wheel)
    sample = random.Random(seed).sample
    order = attrgetter("sort_key")
    deck = list(DECK)
    win = push = 0
    for _ in range(hands):
        cards = sample(deck, 14)  # the player's seven and the dealer's seven, from one deck
        player = tuple(sorted(cards[:7], key=order, reverse=True))
        dealer = tuple(sorted(cards[7:], key=order, reverse=True))
        p_front, p_back, _ = set_cards(player, rule, plain, suited)
        d_front, d_back, _ = set_cards(dealer, rule, plain, suited)
        # Copies go to the banker: only a strictly higher hand is a win (section 5).
        wins = (high_value(p_back, plain, suited) > high_value(d_back, plain, suited)) + (
            low_rank(*p_front).value > low_rank(*d_front).value)
        if wins == 2:
            win += 1
        elif wins == 1:
            push += 1
    return {"hands": hands, "win": win, "push": push, "loss": hands - win - push}


def merge_counts(parts: Iterable[Counts]) -> Counts:
    total = {"hands": 0, "win": 0, "push": 0, "loss": 0}
    for part in parts:
        for key in total:
            total[key] += part[key]
    return total


def _run(job: tuple[int, tuple[int, int, str, str]]) -> tuple[int, Counts]:
    index, chunk = job
    return index, simulate_chunk(*chunk)


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float  # 95% confidence interval
    high: float

    def __str__(self) -> str:
        return f"{self.value:.5f} (95% CI {self.low:.5f} .. {self.high:.5f})"


def _proportion(k: int, n: int) -> Estimate:
    # Wilson score interval: sound at the extremes too, unlike the plain normal one.
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Estimate(p, centre - half, centre + half)


@dataclass(frozen=True)
class SimulationResult:
    hands: int
    win: int
    push: int
    loss: int
    p_win: Estimate
    p_push: Estimate
    p_loss: Estimate
    ev: Estimate  # the player's result per unit wagered, a win paying 1 - commission
    seconds: float
    hands_per_second: float
    seed: int | str
    way: str
    wheel: str
    workers: int | str  # a number of processes, or "celery"
    # Each chunk's counts in the order of the plan (plan_chunks), when the run kept them:
    # the committed runs keep their first chunk, so it can be played again (edge.py).
    chunks: tuple[Counts, ...] = ()

    def lines(self) -> list[str]:
        return [
            f"hands      {self.hands:,}  (way {self.way}, wheel {self.wheel}, seed {self.seed}, "
            f"workers {self.workers})",
            f"win        {self.win:,}  P = {self.p_win}",
            f"push       {self.push:,}  P = {self.p_push}",
            f"loss       {self.loss:,}  P = {self.p_loss}",
            f"player EV  {self.ev} per unit wagered, {COMMISSION:.0%} commission on wins",
            f"speed      {self.hands_per_second:,.0f} hands/s ({self.seconds:.1f} s)",
        ]


def summarize(counts: Counts, *, seconds: float, seed: int | str, way: str, wheel: str,
              workers: int | str, chunks: tuple[Counts, ...] = ()) -> SimulationResult:
    n, win, loss = counts["hands"], counts["win"], counts["loss"]
    payout = 1 - COMMISSION
    mean = (win * payout - loss) / n
    variance = max((win * payout * payout + loss) / n - mean * mean, 0.0)
    half = Z95 * math.sqrt(variance / n)
    return SimulationResult(
        hands=n, win=win, push=counts["push"], loss=loss,
        p_win=_proportion(win, n), p_push=_proportion(counts["push"], n),
        p_loss=_proportion(loss, n), ev=Estimate(mean, mean - half, mean + half),
        seconds=seconds, hands_per_second=n / seconds if seconds > 0 else float("inf"),
        seed=seed, way=way, wheel=wheel, workers=workers, chunks=chunks,
    )


def simulate(hands: int, way: str = DEFAULT_WAY, wheel: str = DEFAULT_WHEEL,
             seed: int | str | None = None, workers: int | None = None,
             progress: Progress | None = None) -> SimulationResult:
    """Play `hands` hands over `workers` processes (all cores by default). With a seed the
    counts are the same whatever the number of workers; without one a seed is drawn and
    reported, so any run can be repeated."""
    get_way(way)
    tables_for(wheel)  # unknown names fail here, not inside a worker
    if seed is None:
        seed = secrets.randbits(64)
    workers = workers or os.cpu_count() or 1
    chunks = [(n, s, way, wheel) for n, s in plan_chunks(hands, seed)]
    workers = min(workers, len(chunks))
    started = time.perf_counter()
    parts: dict[int, Counts] = {}  # by the chunk's place in the plan: they finish in any order

    def collect(done: tuple[int, Counts]) -> None:
        index, part = done
        parts[index] = part
        if progress is not None:
            progress(sum(p["hands"] for p in parts.values()), hands)

    if workers == 1:
        for job in enumerate(chunks):
            collect(_run(job))
    else:
        with get_context().Pool(workers) as pool:
            for done in pool.imap_unordered(_run, enumerate(chunks)):
                collect(done)
    in_order = tuple(parts[index] for index in range(len(chunks)))
    return summarize(merge_counts(in_order), seconds=time.perf_counter() - started, seed=seed,
                     way=way, wheel=wheel, workers=workers, chunks=in_order)
