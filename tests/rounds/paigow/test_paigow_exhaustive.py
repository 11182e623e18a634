"""Every one of the 2,869,685 five-card hands of the 53-card deck, engine against reference.

Slow (about two minutes on two cores): run with `pytest -m slow`.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from itertools import combinations
from multiprocessing import get_context

import pytest
from paigow_reference import ORDER, reference_rank

from rounds.paigow import DECK, evaluate_high
from rounds.paigow.evaluate import HIGH_RANKS

WORKERS = 2
WHEELS = ("second_highest", "lowest")

# Counted by the reference evaluator over all C(53, 5) hands, and cross-checked by hand where
# the count is easy to derive: five aces 1 (A A A A JK); royal flush 4 natural + 5 x 4 with the
# joker = 24; four of a kind 624 natural + 12 (four of a rank below aces + JK, an ace kicker)
# + 4 x 48 (three aces + JK + any non-ace) = 828; full house 3,744 natural + 48 x 4 (a set
# below aces + JK + an ace) + 6 x 72 (a pair of aces + JK + another pair) = 4,368; three of a
# kind 54,912 + 6 x 66 x 16 (a pair of aces + JK + two odd non-aces) + 48 x 44 (a set below
# aces + JK + a card of neither rank) = 63,360; two pair 123,552 + 72 x 4 x 44 (a pair below
# aces, an ace, JK, an odd card) + 66 x 36 (two pairs below aces + JK) = 138,600.
# The wheel rule changes which straights rank higher, never how many hands are straights.
EXPECTED_COUNTS = {
    "five_aces": 1,
    "royal_flush": 24,
    "straight_flush": 180,
    "four_of_a_kind": 828,
    "full_house": 4_368,
    "flush": 7_804,
    "straight": 20_532,
    "three_of_a_kind": 63_360,
    "two_pair": 138_600,
    "one_pair": 1_215_024,
    "high_card": 1_418_964,
}


def _check_slice(worker: int) -> tuple[dict[str, dict], Counter]:
    """Engine value per reference key, for every hand in this worker's share."""
    seen: dict[str, dict] = {wheel: {} for wheel in WHEELS}
    categories: Counter = Counter()
    for i, combo in enumerate(combinations(DECK, 5)):
        if i % WORKERS != worker:
            continue
        codes = [card.code for card in combo]
        for wheel in WHEELS:
            key = reference_rank(codes, wheel)
            value = evaluate_high(combo, wheel).value
            known = seen[wheel].setdefault(key, value)
            assert known == value, f"{codes} {wheel}: engine {value}, same key had {known}"
        categories[ORDER[key[0]]] += 1
    return seen, categories


@pytest.mark.slow
def test_every_five_card_hand_ranks_exactly_as_the_reference(capsys) -> None:
    started = time.perf_counter()
    with get_context().Pool(WORKERS) as pool:
        parts = pool.map(_check_slice, range(WORKERS))
    categories: Counter = Counter()
    for wheel in WHEELS:
        engine_of: dict = {}
        for seen, _ in parts:
            for key, value in seen[wheel].items():
                assert engine_of.setdefault(key, value) == value, (wheel, key)
        # One engine value per reference key and one key per value ...
        assert len(set(engine_of.values())) == len(engine_of)
        # ... in the same order, and naming the same category.
        ordered = [engine_of[key] for key in sorted(engine_of)]
        assert ordered == sorted(ordered), wheel
        for key, value in engine_of.items():
            assert HIGH_RANKS[value].category == ORDER[key[0]]
    for _, counted in parts:
        categories.update(counted)
    with capsys.disabled():
        print(f"\n53-card deck, all {sum(categories.values()):,} five-card hands "
              f"({time.perf_counter() - started:.0f} s):", file=sys.stdout)
        for name in reversed(ORDER):
            print(f"  {name:16} {categories[name]:>10,}", file=sys.stdout)
    assert sum(categories.values()) == 2_869_685
    assert dict(categories) == EXPECTED_COUNTS
