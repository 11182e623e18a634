"""The pit's and the auditors' figures per table and gaming day (rules §10).

Computed from the rounds' settlements, which are the same figures their ledger entries
post (a test checks one against the other). Only settled rounds count: a reversed round's
money was moved back by its reversal, so it is counted apart, as are voided rounds.

- handle: every wager against a bank in the day's settled rounds (the house's stakes
  against player-banks are counted apart, as the house's own wagers);
- house win from house-banked play: the bank's net (won minus paid) where the house banked;
- house win from house stakes: the house stake's results against player-banks, plus the
  house's half of a co-banked bank;
- commission from winning players, and from player-bankers (5% of their net winnings);
- house result = the four above; hold % = house result / handle.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import Count, Q, Sum
from django.db.models.functions import Coalesce

from casino.errors import NotFound
from casino.models import Table
from rounds.models import Round, Wager


@dataclass(frozen=True)
class TableDayReport:
    table_id: int
    table_name: str
    currency: str
    gaming_day: date
    rounds_settled: int
    rounds_house_banked: int
    rounds_player_banked: int
    rounds_reversed: int
    rounds_voided: int
    handle: int
    house_stakes: int
    house_win_house_banked: int
    house_win_house_stakes: int
    commission_players: int
    commission_bankers: int

    @property
    def house_result(self) -> int:
        return (self.house_win_house_banked + self.house_win_house_stakes
                + self.commission_players + self.commission_bankers)

    @property
    def hold_percent(self) -> Decimal | None:
        if not self.handle:
            return None
        return (Decimal(self.house_result) * 100 / self.handle).quantize(
            Decimal("0.01"), rounding=ROUND_HALF_UP)


def table_day_report(*, table_id: int, gaming_day: date) -> TableDayReport:
    """The day's figures for one table, in two aggregate queries."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise NotFound(f"no table #{table_id}")
    rounds = Round.objects.filter(table=table, gaming_day=gaming_day)
    settled = Q(state=Round.State.SETTLED)
    house = settled & Q(banker_is_house=True)
    player = settled & Q(banker_is_house=False)

    def total(field: str, condition: Q) -> Coalesce:
        return Coalesce(Sum(field, filter=condition), 0)

    figures = rounds.aggregate(
        rounds_settled=Count("id", filter=settled),
        rounds_house_banked=Count("id", filter=house),
        rounds_player_banked=Count("id", filter=player),
        rounds_reversed=Count("id", filter=Q(state=Round.State.REVERSED)),
        rounds_voided=Count("id", filter=Q(state=Round.State.VOIDED)),
        house_stakes=total("house_stake", player),
        house_win_house_banked=total("banker_net", house),
        stake_results=total("house_stake_result", player),
        bank_shares=total("house_bank_share", player),
        commission_players=total("player_commission", settled),
        commission_bankers=total("banker_commission", player),
    )
    handle = Wager.objects.filter(
        round__in=rounds.filter(settled), state=Wager.State.ACTIVE,
    ).aggregate(handle=Coalesce(Sum("amount"), 0))["handle"]
    return TableDayReport(
        table_id=table.pk, table_name=table.name, currency=table.currency,
        gaming_day=gaming_day,
        rounds_settled=figures["rounds_settled"],
        rounds_house_banked=figures["rounds_house_banked"],
        rounds_player_banked=figures["rounds_player_banked"],
        rounds_reversed=figures["rounds_reversed"],
        rounds_voided=figures["rounds_voided"],
        handle=handle,
        house_stakes=figures["house_stakes"],
        house_win_house_banked=figures["house_win_house_banked"],
        house_win_house_stakes=figures["stake_results"] + figures["bank_shares"],
        commission_players=figures["commission_players"],
        commission_bankers=figures["commission_bankers"],
    )
