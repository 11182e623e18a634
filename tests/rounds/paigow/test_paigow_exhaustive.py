"""Every one of the 2,869,685 five-card hands of the 53-card deck, engine against reference.

Slow (about 15 s on two cores): run with `pytest -m slow`.
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


def _reference_class(codes: list[str]) -> tuple:
    """A key that determines reference_rank's answer for this hand, under either wheel rule.

    Without the joker the reference calls natural() once, which reads only the multiset of
    ranks and whether every suit is the same: so the sorted ranks and that flag. With the
    joker it ranks the four other cards against every stand-in of DECK52; it compares suits
    only with each other and tries every suit of every rank, so relabelling the suits
    (consistently, in the hand and in DECK52 alike) and reordering the cards leave its answer
    unchanged. The multiset of each suit's set of ranks names the hand up to exactly that:
    two hands with the same one are one suit relabelling apart."""
    if "JK" not in codes:
        return (False, tuple(sorted(code[0] for code in codes)),
                len({code[1] for code in codes}) == 1)
    by_suit: dict[str, list[str]] = {}
    for code in codes:
        if code != "JK":
            by_suit.setdefault(code[1], []).append(code[0])
    return (True, tuple(sorted(tuple(sorted(ranks)) for ranks in by_suit.values())))


# Every this-many hands the reference also runs on the hand itself, so the memo's key is
# checked against the reference directly, not only argued for above.
SPOT_CHECK = 997


def _check_slice(worker: int) -> tuple[dict[str, dict], Counter]:
    """Engine value per reference key, for every hand in this worker's share.

    The engine ranks every hand; the reference's answer for a hand is taken from a memo on
    _reference_class, which determines it, so the slow reference runs once per class (a few
    thousand) instead of once per hand."""
    seen: dict[str, dict] = {wheel: {} for wheel in WHEELS}
    memo: dict[tuple, tuple] = {}
    categories: Counter = Counter()
    for i, combo in enumerate(combinations(DECK, 5)):
        if i % WORKERS != worker:
            continue
        codes = [card.code for card in combo]
        reference_class = _reference_class(codes)
        for wheel in WHEELS:
            memo_key = (wheel, reference_class)
            known_key = memo.get(memo_key)
            if known_key is None:
                key = memo[memo_key] = reference_rank(codes, wheel)
            else:
                key = known_key
                if i % SPOT_CHECK == 0:
                    assert reference_rank(codes, wheel) == key, f"{codes} {wheel}: memo unsound"
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
