"""Who is offered the bank, who passed it on, and why a seat may not take it (rules §7.1).

Plain values in, plain values out: the service that sets the banker, the one that records a
declined offer and the dealer's screen all ask this module, so the rotation is written once.
What the table and its round look like now (who sits where, who wagered, who declined, who
banked before) is read by the caller and handed over as a ``BankTable``.

The table settings it reads (docs/rules.md §7.1):
- ``bank_rotation``: ``alternate`` — the house banks every other round; in between the bank
  is offered in seat order starting after the last player who banked, a player who declines
  passes it on, and when nobody takes it the house banks. ``circle`` — each player in turn,
  then the house: after seat k banked only a later seat may bank next. ``open`` — any seated
  player may ask and the pit decides; the offer still goes round in seat order.
- ``banker_must_have_played``: only a player who wagered in the last house-banked round
  played at the table may bank.

A card-room table (``bank_mode`` ``card_room``) has no house to return the bank to: the bank
is offered to every seated player in seat order, starting after the last player who banked,
round and round; ``bank_rotation`` and ``banker_must_have_played`` do not apply. A player
may bank at most ``max_consecutive_banks`` rounds in a row, and — with ``rotation_minutes``
— no longer than that many minutes from when they took the bank; then it moves on. When no
seated player takes it, a proposition player may bank alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from .errors import UnknownOption

ROTATIONS: Final = ("alternate", "circle", "open")
CARD_ROOM: Final = "card_room"
SEATS: Final = (1, 2, 3, 4, 5, 6)


class Reason(StrEnum):
    """Why a seat may not take the bank this round, in the order they are asked."""

    NOT_SEATED = "not_seated"
    DECLINED = "declined"                # its player declined the offer this round
    HAS_WAGER = "has_wager"              # the bank holder places no wager of their own
    HOUSE_TURN = "house_turn"            # alternate: a player banked the round before
    CIRCLE_MOVED_ON = "circle_moved_on"  # circle: the bank moves on to a later seat
    NOT_PLAYED = "not_played"            # banker_must_have_played: no wager against the house
    BANK_LIMIT = "bank_limit_reached"    # card room: max_consecutive_banks banked in a row
    BANK_TIME_UP = "bank_time_up"        # card room: held the bank rotation_minutes already


@dataclass(frozen=True)
class BankTable:
    """A table and its round as the rotation sees them, read by the caller."""

    rotation: str                          # the round's bank_rotation setting
    must_have_played: bool                 # the round's banker_must_have_played setting
    seated: Mapping[int, str]              # each taken seat -> its player's name
    wagering: frozenset[int] = frozenset()  # seats with a wager in this round
    declined: tuple[int, ...] = ()         # seats whose player declined this round, in order
    # Seats whose player wagered in the last house-banked round played at the table.
    played_against_house: frozenset[int] = frozenset()
    previous_round: int | None = None      # the number of the last round played before
    previous_banker_seat: int | None = None  # its player-banker's seat (None: the house)
    last_banker_seat: int | None = None    # the seat of the last player-banked round played
    # Card room: the table's bank mode, and the player now holding a run of banks: their
    # seat, how many rounds in a row they banked (the last played rounds), how many minutes
    # ago they took the bank; with the limits of the round's settings.
    mode: str = "casino"
    streak_seat: int | None = None
    streak_banks: int = 0
    streak_minutes: float | None = None
    max_consecutive: int = 2
    rotation_minutes: int | None = None

    @property
    def card_room(self) -> bool:
        return self.mode == CARD_ROOM

    def __post_init__(self) -> None:
        if self.rotation not in ROTATIONS:
            raise UnknownOption(f"unknown bank rotation {self.rotation!r}; "
                                f"choose from {', '.join(ROTATIONS)}")


@dataclass(frozen=True)
class Refusal:
    """A seat that may not bank this round, and why, in words for the table."""

    seat: int
    reason: Reason
    message: str


@dataclass(frozen=True)
class Offer:
    """Whom the rotation offers the bank now: ``seat``, or nobody (the house banks, and
    ``why_none`` says why). ``passed`` are the seats it went past, in order, with why."""

    seat: int | None
    passed: tuple[Refusal, ...] = ()
    why_none: str = ""


def offer_order(table: BankTable) -> tuple[int, ...]:
    """Seats 1 to 6 in the order the bank is offered: starting after the last player who
    banked at the table, round again (rules §7.1); from seat 1 when no player has banked."""
    start = table.last_banker_seat or 0
    return tuple(((start + i) % len(SEATS)) + 1 for i in range(len(SEATS)))


def bank_refusal(table: BankTable, seat: int) -> Refusal | None:
    """Why ``seat`` may not take the bank this round, or None when it may. The first reason
    that applies, in the order of ``Reason``."""
    name = table.seated.get(seat)
    if name is None:
        return Refusal(seat, Reason.NOT_SEATED, f"nobody sits at seat {seat}")
    if seat in table.declined:
        return Refusal(seat, Reason.DECLINED,
                       f"{name} declined the bank this round: it has passed on")
    if seat in table.wagering:
        return Refusal(seat, Reason.HAS_WAGER,
                       "the bank holder places no wager of their own: clear seat "
                       f"{seat}'s wager first")
    if table.card_room:
        return _card_room_refusal(table, seat, name)
    player_banked_before = table.previous_round is not None \
        and table.previous_banker_seat is not None
    if table.rotation == "alternate" and player_banked_before:
        return Refusal(seat, Reason.HOUSE_TURN,
                       "with alternate rotation the bank returns to the house every other "
                       f"round, and round {table.previous_round} was banked by a player")
    if (table.rotation == "circle" and player_banked_before
            and table.previous_banker_seat is not None and seat <= table.previous_banker_seat):
        # Each player in turn, then the house: after seat k banked, the bank moves on to a
        # later seat (those between passed) or, the circle done, to the house.
        return Refusal(seat, Reason.CIRCLE_MOVED_ON,
                       "with circle rotation the bank moves on after seat "
                       f"{table.previous_banker_seat}: a later seat, or the house once the "
                       "circle is complete")
    if table.must_have_played and seat not in table.played_against_house:
        return Refusal(seat, Reason.NOT_PLAYED,
                       f"{name} may bank only after wagering against the house in the last "
                       "house-banked round at this table")
    return None


def _card_room_refusal(table: BankTable, seat: int, name: str) -> Refusal | None:
    """The card room's limits on holding the bank (docs/rules.md, card-room rotation)."""
    if seat != table.streak_seat:
        return None
    if table.streak_banks >= table.max_consecutive:
        return Refusal(seat, Reason.BANK_LIMIT,
                       f"{name} has banked {table.streak_banks} rounds in a row, the most "
                       f"this table allows ({table.max_consecutive}): the bank moves on")
    if table.rotation_minutes is not None and table.streak_minutes is not None \
            and table.streak_minutes >= table.rotation_minutes:
        return Refusal(seat, Reason.BANK_TIME_UP,
                       f"{name} took the bank {int(table.streak_minutes)} minutes ago; this "
                       f"table moves it on after {table.rotation_minutes} minutes")
    return None


def bank_offer(table: BankTable) -> Offer:
    """The seat the rotation offers the bank next: the first seat in ``offer_order`` that may
    bank (``bank_refusal``), passing over those that declined or may not; nobody when no
    seat may, and then the house banks."""
    passed: list[Refusal] = []
    for seat in offer_order(table):
        if seat not in table.seated:
            continue
        refusal = bank_refusal(table, seat)
        if table.card_room and refusal is not None and refusal.reason is Reason.HAS_WAGER:
            # A card room offers the bank to every seated player in turn (the regulator's
            # rotation): one who wagered is offered it too, and declines it or clears the
            # wager to take it.
            refusal = None
        if refusal is None:
            return Offer(seat=seat, passed=tuple(passed))
        passed.append(refusal)
    return Offer(seat=None, passed=tuple(passed), why_none=_why_none(table, passed))


def passed_before(table: BankTable, seat: int) -> list[int]:
    """The seated players the bank went past before ``seat`` took it, in offer order: they
    passed it on (a banker_set event records them)."""
    order = offer_order(table)
    return [s for s in order[:order.index(seat)] if s in table.seated]


def _why_none(table: BankTable, passed: list[Refusal]) -> str:
    if table.card_room:
        if not passed:
            return "No player is seated: a proposition player may bank alone."
        reasons = "; ".join(_short(refusal, table) for refusal in passed)
        return (f"No seated player can take the bank this round ({reasons}): a proposition "
                "player may bank alone.")
    if table.rotation == "alternate" and table.previous_banker_seat is not None \
            and table.previous_round is not None:
        return (f"The bank returns to the house this round: round {table.previous_round} was "
                "banked by a player.")
    if not passed:
        return "No player is seated: the house banks."
    reasons = "; ".join(_short(refusal, table) for refusal in passed)
    return f"No seated player can take the bank this round ({reasons}): the house banks."


def _short(refusal: Refusal, table: BankTable) -> str:
    name = f"seat {refusal.seat} · {table.seated.get(refusal.seat, '')}"
    return {
        Reason.DECLINED: f"{name} declined",
        Reason.HAS_WAGER: f"{name} has a wager",
        Reason.CIRCLE_MOVED_ON: f"{name} was passed in this circle",
        Reason.NOT_PLAYED: f"{name} did not play against the house last time",
    }.get(refusal.reason, f"{name}: {refusal.message}")
