"""What each kind of round event records: one typed payload per kind, in one place.

A round's story is its events (``RoundEvent``, ``kind`` and ``data``), written by the
services at each step (rounds.services: ``round_event_add``) and read by the round's page,
the API and the auditors. Amounts are recorded as the API writes them, decimal strings in
the currency's unit (``"10.00"``): the record, readable without the code. They are put in
the casino's writing only where shown (rounds.screens.history_selectors, the money
filter). tests/rounds/test_round_events.py plays rounds of every kind and checks each
event against its payload here, so a step that records a new field names it here first.
"""

# No ``from __future__ import annotations`` here: TypedDict reads NotRequired from the
# evaluated annotations (payload_fields relies on it).
from typing import Any, Literal, NotRequired, TypedDict


class Opened(TypedDict):
    rules: dict[str, Any]  # the table's rules the round plays under (min_bet, max_bet in minor)


class WagerPlaced(TypedDict):
    seat: int
    player: int
    amount: str
    hold: int


class WagerCleared(TypedDict):
    seat: int
    amount: str


class WagerLowered(TypedDict):
    seat: int
    player: int
    amount: str  # what the wager came down to
    was: str
    hold: int


class BankDeclined(TypedDict):
    seat: int
    player: int


class BankerSet(TypedDict):
    banker: Literal["house", "player"]
    seat: NotRequired[int]
    player: NotRequired[int]
    house_stake: NotRequired[str]
    passed: NotRequired[list[Any]]  # the seats the offer passed before this one


class SolvencyChecked(TypedDict):
    required: str
    available: str
    hold: int


class Dealt(TypedDict):
    deal: Literal["electronic", "physical", "results"]
    positions: NotRequired[list[str]]       # results: the positions in play
    hands: NotRequired[dict[str, str]]      # physical: the cards of each position
    dice: NotRequired[list[int]]            # electronic
    counted: NotRequired[int]
    order: NotRequired[list[str]]
    stacks: NotRequired[dict[str, str]]
    discarded: NotRequired[list[str]]
    burnt: NotRequired[str]


class HandSet(TypedDict):
    position: str
    high: str
    low: str
    set_by: str


class Settled(TypedDict):
    entry: int | None
    outcomes: dict[str, str]
    banker_net: str
    banker_commission: str
    player_commission: str


class Voided(TypedDict):
    reason: str
    released_holds: list[int]


class Reversed(TypedDict):
    reason: str
    entry: int


PAYLOADS: dict[str, type] = {
    "opened": Opened, "wager_placed": WagerPlaced, "wager_cleared": WagerCleared,
    "wager_lowered": WagerLowered, "bank_declined": BankDeclined, "banker_set": BankerSet,
    "solvency_checked": SolvencyChecked, "dealt": Dealt, "hand_set": HandSet,
    "settled": Settled, "voided": Voided, "reversed": Reversed,
}


def payload_fields(kind: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the fields every event of ``kind`` records, every field it may record)."""
    shape = PAYLOADS[kind]
    return (frozenset(shape.__required_keys__),  # type: ignore[attr-defined]
            frozenset(shape.__required_keys__ | shape.__optional_keys__))  # type: ignore[attr-defined]
