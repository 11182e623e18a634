"""Splitting seven cards into a five-card high hand and a two-card low hand (rules section 4)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from .cards import Card, format_cards, parse_cards, sort_cards
from .errors import FoulSetting, InvalidCards
from .evaluate import DEFAULT_WHEEL, HIGH_RANKS, high_value, low_rank, tables_for

CardsIn = Iterable[Card] | str

# The 21 ways to pick the two front cards out of seven, as index pairs.
FRONT_PAIRS: Final = tuple(itertools.combinations(range(7), 2))
BACK_OF: Final = {pair: tuple(i for i in range(7) if i not in pair) for pair in FRONT_PAIRS}


@dataclass(frozen=True, repr=False)
class Setting:
    """A split of seven cards. Both hands are kept in canonical card order, so equal settings
    compare equal however the cards were given. `foul` is only ever True in `all_settings`."""

    high: tuple[Card, ...]
    low: tuple[Card, ...]
    foul: bool = False

    @property
    def cards(self) -> tuple[Card, ...]:
        return sort_cards(self.high + self.low)

    def __str__(self) -> str:
        return f"{format_cards(self.high)} / {format_cards(self.low)}"

    def __repr__(self) -> str:
        return f"Setting({str(self)!r}{', foul' if self.foul else ''})"


def make_setting(high: Iterable[Card], low: Iterable[Card], foul: bool = False) -> Setting:
    return Setting(high=sort_cards(high), low=sort_cards(low), foul=foul)


def seven_cards(cards: CardsIn) -> tuple[Card, ...]:
    return parse_cards(cards, count=7)


def setting_is_foul(high: tuple[Card, ...], low: tuple[Card, ...], wheel: str) -> bool:
    plain, suited = tables_for(wheel)
    return low_rank(*low) > HIGH_RANKS[high_value(high, plain, suited)]


def validate_setting(
    seven: CardsIn | None = None, *, high: CardsIn, low: CardsIn, wheel: str = DEFAULT_WHEEL
) -> Setting:
    """Check a setting a player submits: five cards in the high hand, two in the low hand, no
    card twice, the same cards as `seven` when given, and no foul (rules section 4)."""
    five = parse_cards(high, count=5)
    two = parse_cards(low, count=2)
    parse_cards(five + two)  # a card may not sit in both hands
    if seven is not None:
        dealt = seven_cards(seven)
        if set(dealt) != set(five + two):
            raise InvalidCards(
                f"the setting {format_cards(five)} / {format_cards(two)} does not use exactly "
                f"the cards dealt: {format_cards(dealt)}"
            )
    if setting_is_foul(five, two, wheel):
        raise FoulSetting(
            f"foul: the low hand {format_cards(sort_cards(two))} outranks the high hand "
            f"{format_cards(sort_cards(five))}; the five-card hand must be the higher one"
        )
    return make_setting(five, two)


def all_settings(seven: CardsIn, wheel: str = DEFAULT_WHEEL) -> tuple[Setting, ...]:
    """All 21 splits of seven cards, each marked foul or not, in a fixed order."""
    cards = sort_cards(seven_cards(seven))
    result = []
    for pair in FRONT_PAIRS:
        low = (cards[pair[0]], cards[pair[1]])
        high = tuple(cards[i] for i in BACK_OF[pair])
        result.append(make_setting(high, low, foul=setting_is_foul(high, low, wheel)))
    return tuple(result)
