"""Ranking five-card (high) and two-card (low) hands: rules sections 2, 3 and 4.

How it is fast: a five-card hand is either suited or not, and apart from that its rank depends
only on the multiset of its ranks. The product of the cards' rank primes names that multiset
whatever the order of the cards, so two dicts per wheel rule (suited, not suited) keyed by the
product give the rank in one lookup. The joker has a prime of its own and all four suit bits,
so the same two lookups also cover every joker hand; its allowed roles (rules section 2) are
worked out once, when the tables are built at import (a few thousand multisets, ~0.1 s).

Rank values are dense integers in one total order shared by both wheel rules (the wheel
straight simply has a different place under each), so the engine's hot paths compare ints and
the public API hands out one interned rank object per value.

The public call checks its input every time, and cheaply: a card is valid by construction (the
deck's 53 objects are the only Cards, cards.py), so on the usual input, a tuple of Cards, "five
distinct cards of the deck" is five dict lookups (which fetch the primes anyway) and, only
where a rank repeats, ten identity tests; anything else takes the slow path, which reads text
and says exactly what is wrong.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Iterable
from typing import Final

from .cards import ACE, DECK, JOKER_PRIME, RANK_PRIMES, Card, parse_cards
from .errors import InvalidCards, UnknownOption

# Worst to best; the index is the category's strength (rules section 2). The two-card hand uses
# the first two with the same indexes, which is what lets the foul rule compare them.
CATEGORIES: Final = (
    "high_card", "one_pair", "two_pair", "three_of_a_kind", "straight", "flush", "full_house",
    "four_of_a_kind", "straight_flush", "royal_flush", "five_aces",
)
HIGH_CARD, ONE_PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, \
    ROYAL_FLUSH, FIVE_ACES = range(len(CATEGORIES))

WHEEL_RULES: Final = ("second_highest", "lowest")
DEFAULT_WHEEL: Final = "second_highest"
_WHEEL: Final = frozenset({ACE, 2, 3, 4, 5})


@functools.total_ordering
class HighRank:
    """The rank of a five-card hand. Totally ordered and hashable.

    `ranks` lists the card ranks that decide ties, most significant first (for a joker hand,
    the ranks it plays as). It can be compared with a LowRank for the foul rule."""

    __slots__ = ("_cross", "_flush", "category", "ranks", "value")

    def __init__(self, value: int, category: int, ranks: tuple[int, ...],
                 flush: HighRank | None = None) -> None:
        self.value = value
        self.category = CATEGORIES[category]
        self.ranks = ranks
        self._cross = (category, ranks)
        # Only in the public call's tables (_RANKS_BY_PRODUCT): the rank of the same five
        # ranks suited, None where the ranks cannot be suited. Not part of what the rank is.
        self._flush = flush

    def __lt__(self, other: object) -> bool:
        if isinstance(other, HighRank):
            return self.value < other.value
        if isinstance(other, LowRank):
            return self._cross < other._cross
        return NotImplemented

    def __eq__(self, other: object) -> bool:
        # Never equal to a LowRank: when a two-card hand's ranks are all matched the five-card
        # hand is the higher one (rules section 4).
        return isinstance(other, HighRank) and self.value == other.value

    def __hash__(self) -> int:
        return hash((HighRank, self.value))

    def __repr__(self) -> str:
        return f"HighRank({self.category}, {self.ranks})"


@functools.total_ordering
class LowRank:
    """The rank of a two-card hand: one pair beats high card; the joker is an ace (section 3)."""

    __slots__ = ("_cross", "category", "ranks", "value")

    def __init__(self, high: int, low: int) -> None:
        pair = high == low
        self.category = CATEGORIES[ONE_PAIR if pair else HIGH_CARD]
        self.ranks: tuple[int, ...] = (high,) if pair else (high, low)
        self.value = 1000 + high if pair else high * 16 + low
        self._cross = (ONE_PAIR if pair else HIGH_CARD, self.ranks)

    def __lt__(self, other: object) -> bool:
        if isinstance(other, LowRank):
            return self.value < other.value
        if isinstance(other, HighRank):
            # A matched prefix makes this tuple the shorter, so the five-card hand wins it.
            return self._cross < other._cross
        return NotImplemented

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowRank) and self.value == other.value

    def __hash__(self) -> int:
        return hash((LowRank, self.value))

    def __repr__(self) -> str:
        return f"LowRank({self.category}, {self.ranks})"


# --- building the tables -------------------------------------------------------------------

Key = tuple[int, tuple[int, ...], tuple[int, ...]]  # (category, strength, ranks shown)


def _straight_top(ranks: Iterable[int]) -> int | None:
    distinct = set(ranks)
    if len(distinct) != 5:
        return None
    if distinct == _WHEEL:
        return 5
    top = max(distinct)
    return top if top - min(distinct) == 4 else None


def _natural_key(ranks: tuple[int, ...], suited: bool, wheel: str) -> Key:
    """Rank of five natural cards (no joker) in ordinary poker, with the wheel rule."""
    top = _straight_top(ranks)
    if top is not None:
        shown: tuple[int, ...]
        if top == 5 and wheel == "second_highest":
            # Rules section 2: A 2 3 4 5 ranks just below A K Q J T; doubling the heights
            # leaves room for it (27) between the K-high (26) and the A-high (28) straight.
            height, shown = 27, (ACE, 5, 4, 3, 2)
        else:
            height = top * 2
            shown = (5, 4, 3, 2, ACE) if top == 5 else tuple(range(top, top - 5, -1))
        if suited:
            if top == ACE:
                return (ROYAL_FLUSH, (), shown)
            return (STRAIGHT_FLUSH, (height,), shown)
        return (STRAIGHT, (height,), shown)
    if suited:
        desc = tuple(sorted(ranks, reverse=True))
        return (FLUSH, desc, desc)
    counts = Counter(ranks)
    # Ranks grouped by multiplicity then rank: KKK44 -> (13, 4); ordinary poker tie-breaks.
    groups = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 5:
        category = FIVE_ACES  # only reachable as four aces + joker; see _joker_plain_key
    elif shape[0] == 4:
        category = QUADS
    elif shape == [3, 2]:
        category = FULL_HOUSE
    elif shape[0] == 3:
        category = TRIPS
    elif shape == [2, 2, 1]:
        category = TWO_PAIR
    elif shape[0] == 2:
        category = ONE_PAIR
    else:
        category = HIGH_CARD
    return (category, groups, groups)


def _joker_plain_key(four: tuple[int, ...], wheel: str) -> Key:
    """Four natural ranks + the joker, not suited. The joker may complete a straight; in
    every other case it is an ace (rules section 2), which also makes A A A A JK five aces."""
    best = _natural_key((*four, ACE), False, wheel)
    for rank in range(2, ACE + 1):
        key = _natural_key((*four, rank), False, wheel)
        if key[0] == STRAIGHT and key > best:
            best = key
    return best


def _joker_flush_key(four: tuple[int, ...], wheel: str) -> Key:
    """Four suited naturals + the joker: the joker may be any card of that suit the hand lacks,
    so it makes the best flush, straight flush or royal flush it can (rules section 2)."""
    return max(_natural_key((*four, rank), True, wheel)
               for rank in range(2, ACE + 1) if rank not in four)


def _product(ranks: Iterable[int], joker: bool) -> int:
    product = JOKER_PRIME if joker else 1
    for rank in ranks:
        product *= RANK_PRIMES[rank]
    return product


def _build() -> tuple[dict[str, tuple[dict[int, int], dict[int, int]]], list[HighRank]]:
    raw: dict[str, tuple[dict[int, Key], dict[int, Key]]] = {}
    for wheel in WHEEL_RULES:
        plain: dict[int, Key] = {}
        suited: dict[int, Key] = {}
        for five in itertools.combinations_with_replacement(range(2, ACE + 1), 5):
            if max(Counter(five).values()) <= 4:
                plain[_product(five, False)] = _natural_key(five, False, wheel)
                if len(set(five)) == 5:
                    suited[_product(five, False)] = _natural_key(five, True, wheel)
        for four in itertools.combinations_with_replacement(range(2, ACE + 1), 4):
            plain[_product(four, True)] = _joker_plain_key(four, wheel)
            if len(set(four)) == 4:
                suited[_product(four, True)] = _joker_flush_key(four, wheel)
        raw[wheel] = (plain, suited)
    # One dense order over every key of both wheel rules; the ranks shown break no ties
    # (they are a function of category and strength), so sorting on the key is safe.
    keys = sorted({key for tables in raw.values() for table in tables for key in table.values()})
    value_of = {key: value for value, key in enumerate(keys)}
    ranks_by_value = [HighRank(value, key[0], key[2]) for value, key in enumerate(keys)]
    tables = {
        wheel: ({p: value_of[k] for p, k in plain.items()},
                {p: value_of[k] for p, k in suited.items()})
        for wheel, (plain, suited) in raw.items()
    }
    return tables, ranks_by_value


TABLES, HIGH_RANKS = _build()
# The lowest value of each category: "a straight or better" is one int comparison.
CATEGORY_FLOOR: Final = {
    name: min(r.value for r in HIGH_RANKS if r.category == name) for name in CATEGORIES
}
STRAIGHT_FLOOR: Final = CATEGORY_FLOOR["straight"]
# For the public call: each card's prime keyed by the card itself (a lookup that is also the
# membership test), and one lookup per wheel rule from the product straight to its rank.
# Only a hand of distinct ranks (five naturals, or four and the joker) can be suited, and
# only one with a repeated rank can hold a card twice, so the product says which of the two
# tests a hand needs. Each product's rank is a copy of the interned one (equal to it, the
# same value, category and ranks) that carries the rank of the same ranks suited, or None
# where a rank repeats: one lookup and one attribute of the object found serve either test,
# and a hand never pays for the test it cannot fail (docs/benchmarks.md).
def _product_ranks(plain: dict[int, int], suited: dict[int, int]) -> dict[int, HighRank]:
    ranks = {}
    for product, value in plain.items():
        rank = HIGH_RANKS[value]
        flush = HIGH_RANKS[suited[product]] if product in suited else None
        ranks[product] = HighRank(rank.value, rank._cross[0], rank.ranks, flush)
    return ranks


_RANKS_BY_PRODUCT: Final = {wheel: _product_ranks(*tables) for wheel, tables in TABLES.items()}
# The default rule's table without the str-keyed lookup: most calls leave `wheel` at its
# default, and that object is DEFAULT_WHEEL itself; any other string takes the dict.
_DEFAULT_RANKS: Final = _RANKS_BY_PRODUCT[DEFAULT_WHEEL]
_PRIME: Final = {card: card.prime for card in DECK}

LOW_RANKS: Final = {
    (hi, lo): LowRank(hi, lo) for hi in range(2, ACE + 1) for lo in range(2, hi + 1)
}


# --- the engine's inner functions (no checks: callers pass five distinct Cards) -------------

def tables_for(wheel: str) -> tuple[dict[int, int], dict[int, int]]:
    tables = TABLES.get(wheel)
    if tables is None:
        raise UnknownOption(f"unknown wheel rule {wheel!r}: choose one of {', '.join(WHEEL_RULES)}")
    return tables


def high_value(cards: tuple[Card, ...], plain: dict[int, int], suited: dict[int, int]) -> int:
    a, b, c, d, e = cards
    product = a.prime * b.prime * c.prime * d.prime * e.prime
    if a.suit_bits & b.suit_bits & c.suit_bits & d.suit_bits & e.suit_bits:
        return suited[product]
    return plain[product]


def low_rank(a: Card, b: Card) -> LowRank:
    # Card.rank is already 14 for the joker: in the two-card hand it is always an ace.
    ra, rb = a.rank, b.rank
    return LOW_RANKS[(ra, rb) if ra >= rb else (rb, ra)]


# --- public API ------------------------------------------------------------------------------

def evaluate_high(cards: Iterable[Card] | str, wheel: str = DEFAULT_WHEEL) -> HighRank:
    """Rank five cards as a high hand (rules section 2).

    Raises InvalidCards unless given exactly five distinct cards of the deck (Card objects or
    text), UnknownOption for a wheel rule it does not know."""
    # The checks of parse_cards(cards, count=5), inlined for a tuple of Cards because they
    # are most of the call's cost: five values (else ValueError), each one of the deck's 53
    # objects (_PRIME has no other key: an int, text or look-alike raises KeyError or
    # TypeError, and no other Card can be made), no object twice (tested only where a rank
    # repeats, see _RANKS_BY_PRODUCT). Every failure, and an unknown wheel rule (KeyError),
    # falls through to the slow path, which names the problem.
    if type(cards) is tuple:
        try:
            a, b, c, d, e = cards
            ranks = _DEFAULT_RANKS if wheel is DEFAULT_WHEEL else _RANKS_BY_PRODUCT[wheel]
            prime = _PRIME
            found = ranks[prime[a] * prime[b] * prime[c] * prime[d] * prime[e]]
            flush = found._flush
            if flush is None:
                if not (a is b or a is c or a is d or a is e or b is c or b is d or b is e
                        or c is d or c is e or d is e):
                    return found
            else:
                # Suited when the AND of the five suit bits is not zero; most hands differ in
                # their first two cards already, and then the other three are never read.
                suit = a.suit_bits & b.suit_bits
                if suit and suit & c.suit_bits & d.suit_bits & e.suit_bits:
                    return flush  # type: ignore[no-any-return]
                return found
        except (KeyError, TypeError, ValueError):
            pass
    five = parse_cards(cards, count=5)
    return HIGH_RANKS[high_value(five, *tables_for(wheel))]


def evaluate_low(cards: Iterable[Card] | str) -> LowRank:
    """Rank two cards as a low hand (rules section 3)."""
    two = parse_cards(cards, count=2)
    return low_rank(*two)


def is_foul(high: HighRank, low: LowRank) -> bool:
    """Rules section 4: the low hand may not outrank the high hand."""
    return low > high


__all__ = ["CATEGORIES", "HighRank", "InvalidCards", "LowRank", "evaluate_high", "evaluate_low"]
