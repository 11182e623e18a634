"""The money of one round, worked out from its outcomes (rules §6 and §7).

Pure arithmetic on integers (minor units), no database: rounds.services feeds it the
positions' wagers and outcomes and turns what it returns into one ledger entry.

From each position's point of view against the bank:
- win: paid 1 to 1 by the bank, less a commission on the win (rules §6);
- push: nothing moves;
- loss: the wager goes to the bank.
A player-banker then pays commission on the bank's NET winnings over the round (rules §7.6):
everything the bank won minus everything it paid out, and nothing when that is zero or
negative. The house's stake against a player-banker pays no commission: it is the house's
own money (rules §7.7 counts the stake's result as house income as it is).

Co-banking (rules §7, table setting ``co_banking``): the house and the player-banker each
cover half the action. This module reads that as: every amount the bank wins or pays is
split, the player-banker's share being half rounded down and the house taking the other
half (so an odd cent falls to the house); the player-banker's commission is on the net of
its own share. The house stakes nothing against a bank it half holds (services refuse a
house stake then).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from typing import NamedTuple


class Party(StrEnum):
    """Whose balance a settlement moves, by role; rounds.accounts maps each to a ledger
    account, in that one place. A seat's value is its position ("1"-"6")."""

    BANK = "bank"              # whoever banks: the table's bankroll, or the player-banker
    HOUSE = "house"            # the table's bankroll, when it stakes against a player-bank
    COMMISSION = "commission"  # the house's commission income
    SEAT_1 = "1"
    SEAT_2 = "2"
    SEAT_3 = "3"
    SEAT_4 = "4"
    SEAT_5 = "5"
    SEAT_6 = "6"

    @classmethod
    def seat(cls, number: int | str) -> Party:
        return cls(str(number))

    @property
    def seat_number(self) -> int | None:
        return int(self.value) if self.value.isdigit() else None


class Outcome(StrEnum):
    """A position's result against the bank, from the position's point of view."""

    WIN = "win"
    PUSH = "push"
    LOSS = "loss"


class PositionOutcome(NamedTuple):
    """How one position came out against the bank: overall, and for its high and low hands
    when cards were shown down (a results-only round records the outcome alone)."""

    outcome: Outcome
    high: str = ""
    low: str = ""

QUARTER = 25   # minor units in 0.25 of a two-decimal currency
UNIT = 100     # minor units in 1.00


def commission_on(amount: int, rate: Decimal, rounding: str) -> int:
    """Commission on a win of ``amount`` minor units at ``rate`` (0.05 = 5%), rounded by the
    table's ``commission_rounding`` setting (rules §6). Never more than the win itself:
    rounding up to a quarter must not turn a tiny win into a loss."""
    return min(_rounded(Decimal(amount) * rate, rounding), amount) if amount > 0 else 0


def _rounded(exact: Decimal, rounding: str) -> int:
    if rounding == "exact":
        # To the currency's minor unit, half up.
        return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))
    if rounding == "up_to_quarter":
        # Up to the next 0.25 (a card-room practice); an exact quarter stays.
        return math.ceil(exact / QUARTER) * QUARTER
    if rounding == "down_to_unit":
        return math.floor(exact / UNIT) * UNIT
    raise ValueError(f"unknown commission rounding {rounding!r}")


@dataclass(frozen=True)
class PositionResult:
    position: str
    wager: int
    outcome: Outcome
    amount: int           # won (+) or lost (-) from the position's view, before commission
    commission: int       # paid by the position to the house


@dataclass
class Settlement:
    positions: list[PositionResult]
    banker_won: int        # everything the bank took from losing positions (under
    banker_paid: int       # co-banking, the player-banker's share); and paid to winners
    banker_commission: int
    house_stake_result: int  # + the house's stake won, - lost (player-banked rounds only)
    player_commission: int   # total commission from winning players
    house_bank_share: int = 0  # co-banking: the house's half of the bank's result
    # Signed balance changes per party: {BANK: ..., HOUSE: ..., COMMISSION: ...,
    # SEAT_1: ...}; they sum to zero. Keys are Party members, typed as the strings they are,
    # so a reader may look one up by its plain name ("bank", "3") too.
    moves: dict[str, int] = field(default_factory=dict)

    @property
    def banker_net(self) -> int:
        return self.banker_won - self.banker_paid


def settle(
    *,
    wagers: Mapping[str, int],
    outcomes: Mapping[str, str],
    banker_is_house: bool,
    house_stake: int,
    rate: Decimal,
    rounding: str,
    co_banking: bool = False,
) -> Settlement:
    """The money of a round.

    ``wagers`` maps each seat playing against the bank ("1"-"6") to its wager; for a
    player-banked round with a house stake, ``"dealer"`` maps to the stake. ``outcomes``
    maps the same positions to their ``Outcome`` against the bank.
    """
    if set(wagers) != set(outcomes):
        raise ValueError("every position against the bank needs exactly one outcome")
    co_banking = co_banking and not banker_is_house
    if co_banking and "dealer" in wagers:
        raise ValueError("the house stakes nothing against a bank it half holds")
    moves: dict[Party, int] = defaultdict(int)
    results: list[PositionResult] = []
    won = paid = player_commission = 0
    stake_result = 0
    for position in sorted(wagers, key=_position_order):
        wager = wagers[position]
        try:
            outcome = Outcome(outcomes[position])
        except ValueError:
            raise ValueError(f"unknown outcome {outcomes[position]!r}") from None
        is_house_stake = position == "dealer"
        if is_house_stake and banker_is_house:
            raise ValueError("the dealer's hand is the bank's in a house-banked round")
        party = Party.HOUSE if is_house_stake else Party.seat(position)
        if outcome == Outcome.WIN:
            # The house's stake pays no commission to the house itself.
            commission = 0 if is_house_stake else commission_on(wager, rate, rounding)
            moves[party] += wager - commission
            moves[Party.COMMISSION] += commission
            share = banker_share(wager) if co_banking else wager
            moves[Party.BANK] -= share
            moves[Party.HOUSE] -= wager - share
            paid += share
            player_commission += commission
            amount = wager
        elif outcome == Outcome.LOSS:
            moves[party] -= wager
            share = banker_share(wager) if co_banking else wager
            moves[Party.BANK] += share
            moves[Party.HOUSE] += wager - share
            won += share
            commission = 0
            amount = -wager
        else:  # a push
            commission = amount = 0
        if is_house_stake:
            stake_result = amount
        results.append(PositionResult(position, wager, outcome, amount, commission))

    banker_commission = 0
    if not banker_is_house:
        banker_commission = commission_on(won - paid, rate, rounding)
        moves[Party.BANK] -= banker_commission
        moves[Party.COMMISSION] += banker_commission
    assert sum(moves.values()) == 0, moves
    return Settlement(
        positions=results,
        banker_won=won,
        banker_paid=paid,
        banker_commission=banker_commission,
        house_stake_result=stake_result,
        player_commission=player_commission,
        house_bank_share=moves[Party.HOUSE] if co_banking else 0,
        moves={Party(k): v for k, v in moves.items() if v},
    )


def positions_against_bank(*, wagers: Mapping[int, int], banker_is_house: bool | None,
                           house_stake: int) -> dict[str, int]:
    """Who plays against the bank, with the stake each risks (rules §5, §7.5): every seat
    with a wager, and — against a player-bank with a house stake — the dealer's hand, which
    plays the stake for the house. In position order: the dealer, then seats 1 to 6. The one
    answer the deal, the settlement, the solvency figures and the screens all use."""
    stakes = {} if banker_is_house is not False or not house_stake else {"dealer": house_stake}
    stakes.update((str(seat), amount) for seat, amount in sorted(wagers.items()))
    return stakes


def positions_in_play(against_bank: Mapping[str, int], *, banker_position: str | None
                      ) -> list[str]:
    """The positions dealt a hand: those against the bank and the bank's own (``None``
    while the banker is not chosen), in position order."""
    playing = set(against_bank) | ({banker_position} if banker_position else set())
    return sorted(playing, key=_position_order)


def banker_share(amount: int) -> int:
    """The player-banker's half of an amount under co-banking (rounded down)."""
    return amount // 2


def _position_order(position: str) -> int:
    return 0 if position == "dealer" else int(position)
