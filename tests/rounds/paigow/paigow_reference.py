"""An independent, deliberately plain Pai Gow hand evaluator for checking the engine.

It shares no code with rounds.paigow: cards are strings ("AS", "JK"), hands are ranked the way
one would by hand, and the joker is tried as every card it could stand for (rules section 2):
a substitution counts only when the hand it makes is a straight, a flush, a straight flush or
a royal flush; otherwise the joker is an ace (which also gives five aces). It is slow on
purpose; only its answers matter.
"""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "SHDC"
DECK52 = [r + s for r in RANKS for s in SUITS]
DECK53 = [*DECK52, "JK"]
ORDER = [
    "high_card", "one_pair", "two_pair", "three_of_a_kind", "straight", "flush", "full_house",
    "four_of_a_kind", "straight_flush", "royal_flush", "five_aces",
]
JOKER_ROLES = {"straight", "flush", "straight_flush", "royal_flush"}


def rank_of(card: str) -> int:
    return RANKS.index(card[0]) + 2


def natural(cards: list[str], wheel: str) -> tuple[int, tuple[float, ...]]:
    """Rank five cards without a joker. A card "A*" is an ace of no suit (the joker as ace)."""
    ranks = sorted((rank_of(c) for c in cards), reverse=True)
    flush = len({c[1] for c in cards}) == 1
    counts: dict[int, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    by_count = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    pattern = [n for _, n in by_count]
    grouped = tuple(float(r) for r, _ in by_count)
    top: float | None = None
    if len(counts) == 5 and ranks[0] - ranks[4] == 4:
        top = ranks[0]
    elif ranks == [14, 5, 4, 3, 2]:
        top = 13.5 if wheel == "second_highest" else 5
    if pattern[0] == 5:
        return ORDER.index("five_aces"), ()
    if top is not None and flush:
        if top == 14:
            return ORDER.index("royal_flush"), ()
        return ORDER.index("straight_flush"), (top,)
    if pattern[0] == 4:
        return ORDER.index("four_of_a_kind"), grouped
    if pattern == [3, 2]:
        return ORDER.index("full_house"), grouped
    if flush:
        return ORDER.index("flush"), tuple(float(r) for r in ranks)
    if top is not None:
        return ORDER.index("straight"), (top,)
    if pattern[0] == 3:
        return ORDER.index("three_of_a_kind"), grouped
    if pattern == [2, 2, 1]:
        return ORDER.index("two_pair"), grouped
    if pattern[0] == 2:
        return ORDER.index("one_pair"), grouped
    return ORDER.index("high_card"), grouped


def reference_rank(
    cards: list[str], wheel: str = "second_highest"
) -> tuple[int, tuple[float, ...]]:
    """A comparable key: higher is better. `ORDER[key[0]]` is the category."""
    if "JK" not in cards:
        return natural(cards, wheel)
    others = [c for c in cards if c != "JK"]
    best = natural([*others, "A*"], wheel)
    ranks = {c[0] for c in others}
    suits = {c[1] for c in others}
    for stand_in in DECK52:
        if stand_in in others:
            continue
        if stand_in[0] in ranks and suits != {stand_in[1]}:
            continue  # a paired, unsuited hand is neither a straight nor a flush
        key = natural([*others, stand_in], wheel)
        if ORDER[key[0]] in JOKER_ROLES and key > best:
            best = key
    return best


def reference_low(cards: list[str]) -> tuple[int, tuple[int, ...]]:
    """Two-card hand: pair beats high card; the joker is an ace (rules section 3)."""
    ranks = sorted((14 if c == "JK" else rank_of(c) for c in cards), reverse=True)
    if ranks[0] == ranks[1]:
        return 1, (ranks[0],)
    return 0, tuple(ranks)
