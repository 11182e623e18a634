"""The dealers' shifts of a gaming day: what a pit manager reads first about the dealers.

Per dealer and shift (rounds.models.DealerShift): the table, from when to when, the rounds
the dealer dealt there (each round records its shift when it opens), how many were played to
the end, voided or reversed, the player hands settled, the pace (rounds played per hour
signed in), and the refusals the service traced of the dealer while signed in
(casino.shared.refusals: every door records them). Rounds of the day dealt with nobody
signed in at the table are lines of their own, by who opened them, without a shift.
Then each refusal and void of the day's shifts, in words and in order: what to look into.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import Count, Q
from django.utils import timezone

from casino.shared.db import read_snapshot
from casino.shared.refusals import Refusal
from rounds.models import DealerShift, Round, RoundEvent, RoundParty
from rounds.selectors import round_dealt_by

PLAYED = Round.State.PLAYED


@dataclass(frozen=True)
class ShiftLine:
    dealer: str
    table_name: str
    started_at: datetime | None      # None: rounds dealt with nobody signed in
    ended_at: datetime | None        # None: still dealing (or no shift)
    minutes: int | None              # signed in, to the end or to the moment read
    rounds_dealt: int                # opened in the shift, whatever became of them
    rounds_played: int               # settled (a reversed round was played too)
    rounds_voided: int
    rounds_reversed: int
    hands: int                       # the player hands settled (seats that played)
    refusals: int | None             # the dealer's refused attempts while signed in

    @property
    def hands_per_hour(self) -> Decimal | None:
        """Rounds played per hour signed in: the table's pace under this dealer."""
        if not self.minutes:
            return None
        return (Decimal(self.rounds_played * 60) / self.minutes).quantize(
            Decimal("0.1"), ROUND_HALF_UP)


@dataclass(frozen=True)
class EventLine:
    """A refusal or a void during a shift, in words."""

    at: datetime
    dealer: str
    table_name: str
    what: str
    detail: str


@dataclass(frozen=True)
class DealerShiftReport:
    gaming_day: date
    lines: list[ShiftLine]
    events: list[EventLine]


def _round_counts() -> dict[str, Count]:
    """A group of rounds' counts, by what became of them."""
    return {"rounds_dealt": Count("id"),
            "rounds_played": Count("id", filter=Q(state__in=PLAYED)),
            "rounds_voided": Count("id", filter=Q(state=Round.State.VOIDED)),
            "rounds_reversed": Count("id", filter=Q(state=Round.State.REVERSED))}


def dealer_shift_report(*, gaming_day: date) -> DealerShiftReport:
    """The day's shifts with their figures, read in one snapshot."""
    with read_snapshot():
        now = timezone.now()
        shifts = list(DealerShift.objects.filter(gaming_day=gaming_day)
                      .select_related("table", "dealer").order_by("started_at", "id"))
        counts = {row.pop("dealer_shift"): row for row in (
            Round.objects.filter(dealer_shift__in=shifts).values("dealer_shift")
            .annotate(**_round_counts()).order_by())}
        hands = dict(RoundParty.objects.filter(
            round__dealer_shift__in=shifts, role=RoundParty.Role.SEAT,
            round__state__in=PLAYED).values("round__dealer_shift").annotate(n=Count("id"))
            .order_by().values_list("round__dealer_shift", "n"))
        lines, events = [], []
        for shift in shifts:
            end = shift.ended_at or now
            refused = list(Refusal.objects.filter(by=shift.dealer, at__gte=shift.started_at,
                                                  at__lt=end).order_by("at", "id"))
            figures = counts.get(shift.pk, dict.fromkeys(_round_counts(), 0))
            lines.append(ShiftLine(
                dealer=shift.dealer.get_username(), table_name=shift.table.name,
                started_at=shift.started_at, ended_at=shift.ended_at,
                minutes=int((end - shift.started_at).total_seconds() // 60),
                hands=hands.get(shift.pk, 0), refusals=len(refused), **figures))
            events += [EventLine(at=r.at, dealer=shift.dealer.get_username(),
                                 table_name=shift.table.name,
                                 what=f"Refused: {r.action.replace('_', ' ')}",
                                 detail=r.message) for r in refused]
        # A void at the moment it was made (its event), by whom, of a round the shift dealt.
        for void in (RoundEvent.objects.filter(kind="voided", round__dealer_shift__in=shifts)
                     .select_related("round__table", "round__dealer_shift__dealer", "by")
                     .order_by("at", "id")):
            dealt = void.round
            assert dealt.dealer_shift is not None
            events.append(EventLine(
                at=void.at, dealer=dealt.dealer_shift.dealer.get_username(),
                table_name=dealt.table.name,
                what=f"Round {dealt.number} voided by {void.by.get_username()}",
                detail=dealt.closed_reason))
        lines += _without_shift(gaming_day)
    events.sort(key=lambda e: e.at)
    return DealerShiftReport(gaming_day=gaming_day, lines=lines, events=events)


def _without_shift(gaming_day: date) -> list[ShiftLine]:
    """The day's rounds dealt with nobody signed in, by who dealt them (who opened them,
    for rounds opened before dealers signed in) and table."""
    who = round_dealt_by()
    rounds = (Round.objects.filter(gaming_day=gaming_day, dealer_shift__isnull=True)
              .annotate(who=who).values("who", "table__name")
              .annotate(**_round_counts()).order_by("who", "table__name"))
    hands = {(row["who"], row["table__name"]): row["n"] for row in (
        Round.objects.filter(gaming_day=gaming_day, dealer_shift__isnull=True,
                             state__in=PLAYED)
        .annotate(who=who).values("who", "table__name")
        .annotate(n=Count("parties", filter=Q(parties__role=RoundParty.Role.SEAT)))
        .order_by())}
    lines = []
    for row in rounds:
        key = (row.pop("who"), row.pop("table__name"))
        lines.append(ShiftLine(dealer=key[0], table_name=key[1], started_at=None,
                               ended_at=None, minutes=None, refusals=None,
                               hands=hands.get(key, 0), **row))
    return lines
