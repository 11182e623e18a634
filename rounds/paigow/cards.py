"""Cards of the 53-card deck and their notation (rules section 1).

Every card exists exactly once per process: the 53 objects of DECK are made at import and
`Card` refuses to make any other, so `parse_cards` hands out the same interned objects and a
card is valid by construction (the evaluator's checks are identity tests, no parsing); identity,
hashing and pickling (worker processes) stay cheap and consistent. The attributes the
evaluator needs on its hot path (`prime`, `suit_bits`) are precomputed on each card.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Final

from .errors import InvalidCards

RANK_CHARS: Final = "23456789TJQKA"
SUITS: Final = "SHDC"
JOKER_CODE: Final = "JK"
ACE: Final = 14

# One prime per rank, so the product of five cards' primes identifies the multiset of ranks
# whatever the order of the cards. The joker gets a prime of its own (43) because it is not
# simply an ace: it may still complete a straight or a flush (rules section 2).
RANK_PRIMES: Final = {2: 2, 3: 3, 4: 5, 5: 7, 6: 11, 7: 13, 8: 17, 9: 19, 10: 23, 11: 29,
                      12: 31, 13: 37, 14: 41}
JOKER_PRIME: Final = 43
# A five-card hand is suited when the AND of its cards' suit bits is not zero. The joker holds
# every suit bit, which is exactly its role in a flush: it joins any suit.
SUIT_BITS: Final = {"S": 1, "H": 2, "D": 4, "C": 8}
JOKER_SUIT_BITS: Final = 15


class Card:
    """One card. `rank` is 2..14 (ace 14); the joker has rank 14 because it counts as an ace
    everywhere except where it completes a straight or a flush (rules section 2)."""

    __slots__ = ("code", "index", "is_joker", "prime", "rank", "sort_key", "suit", "suit_bits")

    code: str
    index: int
    is_joker: bool
    prime: int
    rank: int
    sort_key: int
    suit: str
    suit_bits: int

    def __init__(self, rank: int, suit: str, index: int) -> None:
        if _deck_complete:
            # A 54th card would pass every check that trusts a Card to be one of the deck's.
            raise TypeError("the 53 cards exist once each: take them from DECK or parse_cards")
        self.rank = rank
        self.suit = suit
        self.index = index
        self.is_joker = suit == ""
        if self.is_joker:
            self.code = JOKER_CODE
            self.prime = JOKER_PRIME
            self.suit_bits = JOKER_SUIT_BITS
            # The joker sorts above the aces: a fixed, documented place for it in output.
            self.sort_key = ACE * 8 + 4
        else:
            self.code = RANK_CHARS[rank - 2] + suit
            self.prime = RANK_PRIMES[rank]
            self.suit_bits = SUIT_BITS[suit]
            # Higher rank first, then suits in the order S H D C (suits never rank, rules 2).
            self.sort_key = rank * 8 + (3 - SUITS.index(suit))

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __str__(self) -> str:
        return self.code

    def __lt__(self, other: Card) -> bool:
        return self.sort_key < other.sort_key

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # Unpickle to the interned card so identity comparisons keep working in workers.
        return (card_by_index, (self.index,))


_deck_complete = False
DECK: Final[tuple[Card, ...]] = tuple(
    [Card(rank, suit, i * 4 + j) for i, rank in enumerate(range(2, 15))
     for j, suit in enumerate(SUITS)]
    + [Card(ACE, "", 52)]
)
_deck_complete = True
JOKER: Final = DECK[52]
_IN_DECK: Final = frozenset(DECK)
_BY_CODE: Final = {card.code: card for card in DECK}
_TOKEN = re.compile(r"[\s,]+")


def card_by_index(index: int) -> Card:
    return DECK[index]


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Canonical order: joker, then by rank high to low, suits S H D C."""
    return tuple(sorted(cards, key=_sort_key, reverse=True))


def _sort_key(card: Card) -> int:
    return card.sort_key


def _parse_one(token: str) -> Card:
    code = token.upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    card = _BY_CODE.get(code)
    if card is None:
        raise InvalidCards(
            f"cannot read card {token!r}: expected a rank (A K Q J T 9 8 7 6 5 4 3 2, or 10) "
            "followed by a suit (S H D C), or JK for the joker"
        )
    return card


def parse_cards(
    cards: str | Iterable[str] | Iterable[Card], *, count: int | None = None
) -> tuple[Card, ...]:
    """Read cards given as one string ("AS kd 10h JK"), as a list of strings (each may hold
    several cards) or as Card objects. Order is kept. Raises InvalidCards on unreadable
    notation, on a card given twice (rules section 1) or when `count` is given and not met."""
    items: list[str | Card] = [cards] if isinstance(cards, str) else list(cards)
    result: list[Card] = []
    for item in items:
        if isinstance(item, Card):
            if item not in _IN_DECK:
                # Made around the constructor (object.__new__, a mock with spec=Card): never
                # evaluated as if it were one of the 53; its repr may not even work.
                raise InvalidCards("cannot read card: a Card object that is not one of the deck's")
            result.append(item)
        elif isinstance(item, str):
            result.extend(_parse_one(token) for token in _TOKEN.split(item) if token)
        else:
            raise InvalidCards(f"cannot read card {item!r}: expected text such as 'AS' or 'JK'")
    _check_distinct(result)
    if count is not None and len(result) != count:
        raise InvalidCards(f"expected {count} cards, got {len(result)}: {format_cards(result)}")
    return tuple(result)


def _check_distinct(cards: list[Card]) -> None:
    if len(set(cards)) != len(cards):
        counts = Counter(cards)
        twice = " ".join(card.code for card in sort_cards(c for c, n in counts.items() if n > 1))
        raise InvalidCards(f"a hand cannot hold the same card twice: {twice}")


def format_cards(cards: Iterable[Card]) -> str:
    """Canonical upper-case notation, in the order given: "AS KD JK"."""
    return " ".join(card.code for card in cards)
