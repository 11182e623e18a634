"""Settling one hand against the banker's hand (rules section 5)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Literal

from .cards import format_cards
from .errors import FoulSetting, InvalidCards
from .evaluate import DEFAULT_WHEEL, HIGH_RANKS, HighRank, LowRank, high_value, low_rank, tables_for
from .setting import Setting


class Result(StrEnum):
    """A position's result against the bank, from the position's point of view: the one
    outcome type of the showdown, the round's hands (rounds.models.Hand) and the
    settlement (rounds.settlement.Outcome is this type)."""

    WIN = "win"
    PUSH = "push"
    LOSS = "loss"


HandResult = Literal["win", "copy", "loss"]
RESULTS: Final = tuple(r.value for r in Result)


@dataclass(frozen=True)
class Outcome:
    """The player's result against the banker, and each hand's, from the player's view."""

    result: Result
    high: HandResult
    low: HandResult
    player_high: HighRank
    player_low: LowRank
    banker_high: HighRank
    banker_low: LowRank


def _hand_result(player: HighRank | LowRank, banker: HighRank | LowRank) -> HandResult:
    if player > banker:
        return "win"
    return "copy" if player == banker else "loss"


def result_of(high: HandResult, low: HandResult) -> Result:
    # Copies go to the banker, so only outright wins count for the player (section 5):
    # both won -> win; one won (the other lost or copied) -> push; none won -> loss.
    wins = (high == "win") + (low == "win")
    return Result.WIN if wins == 2 else Result.PUSH if wins == 1 else Result.LOSS


def _ranks(setting: Setting, wheel: str, who: str) -> tuple[HighRank, LowRank]:
    plain, suited = tables_for(wheel)
    high = HIGH_RANKS[high_value(setting.high, plain, suited)]
    low = low_rank(*setting.low)
    if low > high:
        raise FoulSetting(f"the {who}'s setting {setting} is foul: it cannot play")
    return high, low


def showdown(*, player: Setting, banker: Setting, wheel: str = DEFAULT_WHEEL) -> Outcome:
    """Play the player's setting against the banker's: high against high, low against low.

    Both settings come from one 53-card deck, so they may not share a card; a foul setting
    cannot play (the table's foul policy must have dealt with it first, section 4)."""
    shared = set(player.high + player.low) & set(banker.high + banker.low)
    if shared:
        raise InvalidCards(
            f"player and banker cannot hold the same card: {format_cards(sorted(shared))}"
        )
    player_high, player_low = _ranks(player, wheel, "player")
    banker_high, banker_low = _ranks(banker, wheel, "banker")
    high = _hand_result(player_high, banker_high)
    low = _hand_result(player_low, banker_low)
    return Outcome(result_of(high, low), high, low, player_high, player_low, banker_high,
                   banker_low)
