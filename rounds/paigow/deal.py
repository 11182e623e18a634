"""The deal: shuffle, seven stacks of seven, and the dice that say where it starts (section 8)."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from typing import Final, Literal

from .cards import DECK, Card
from .errors import UnknownOption

# Table order (section 8): the dealer's position, then seats 1 to 6, then round again.
POSITIONS: Final = ("dealer", "1", "2", "3", "4", "5", "6")
FirstStack = Literal["after_counted", "counted"]
FIRST_STACK_RULES: Final = ("after_counted", "counted")


def _rng(rng: random.Random | None) -> random.Random:
    # Electronic deals must use a cryptographically secure shuffle (section 8.1); a seeded
    # random.Random is accepted for tests and simulations only.
    return rng if rng is not None else secrets.SystemRandom()


@dataclass(frozen=True)
class Deal:
    """Seven stacks of seven cards in the order they were dealt, and the four burnt cards."""

    stacks: tuple[tuple[Card, ...], ...]
    burnt: tuple[Card, ...]


def deal(rng: random.Random | None = None) -> Deal:
    deck = list(DECK)
    _rng(rng).shuffle(deck)
    stacks = tuple(tuple(deck[i * 7:(i + 1) * 7]) for i in range(7))
    return Deal(stacks=stacks, burnt=tuple(deck[49:]))


def roll_dice(rng: random.Random | None = None) -> tuple[int, int, int]:
    source = _rng(rng)
    return (source.randint(1, 6), source.randint(1, 6), source.randint(1, 6))


@dataclass(frozen=True)
class DealOrder:
    """Who the dice named, and the positions in the order they receive the stacks."""

    total: int
    counted: str
    order: tuple[str, ...]

    def assign(self, stacks: tuple[tuple[Card, ...], ...]) -> dict[str, tuple[Card, ...]]:
        """The stack each position receives: the n-th stack dealt goes to order[n]."""
        return dict(zip(self.order, stacks, strict=True))


def deal_order(
    total: int, *, banker: str = "dealer", first_stack: str = "after_counted"
) -> DealOrder:
    """Count `total` positions in table order with the banker's position as 1 (so 8 and 15
    land on the banker again). With `after_counted` (the Dutch seed) the deal starts with the
    next position and the counted one gets the seventh, last stack; with `counted` (several
    published rule books) the counted position gets the first."""
    if not 3 <= total <= 18:
        raise ValueError(f"three dice add up to 3..18, not {total}")
    if banker not in POSITIONS:
        raise UnknownOption(f"unknown position {banker!r}: one of {', '.join(POSITIONS)}")
    if first_stack not in FIRST_STACK_RULES:
        raise UnknownOption(
            f"unknown first_stack rule {first_stack!r}: one of {', '.join(FIRST_STACK_RULES)}"
        )
    counted = (POSITIONS.index(banker) + total - 1) % len(POSITIONS)
    start = counted + 1 if first_stack == "after_counted" else counted
    order = tuple(POSITIONS[(start + i) % len(POSITIONS)] for i in range(len(POSITIONS)))
    return DealOrder(total=total, counted=POSITIONS[counted], order=order)
