"""The pit's and the auditors' figures about play (rules §10): a table's day, the floor's
day, and the player-bankers' rounds.

Summed from each settled round's parties (rounds.models.RoundParty), the figures its
settlement stored and its ledger entry posted (tests check one against the other); nothing
here works a figure out from hands. Only settled rounds count: a reversed round's money was
moved back by its reversal, so it is counted apart, as are voided rounds.

- handle: every wager against a bank in the day's settled rounds (the house's stakes
  against player-banks are counted apart, as the house's own wagers);
- house win from house-banked play: the bank's net (won minus paid) where the house banked;
- house win from house stakes: the house stake's results against player-banks, plus the
  house's half of a co-banked bank;
- commission from winning players, and from player-bankers (5% of their net winnings;
  a card room's proposition player counts among the bankers);
- collection at card-room tables: the bank's fees by band and the players' flat fees;
- house result = the six above; hold % = house result / handle.
- the drop (rounds.drop): the cash the day's buy-ins put in the table's drop box as the
  ledger recorded it, what the count found (None until counted) and the variance; the
  table's win is its house result (every wager is known here), and win / drop is the
  industry's ratio, beside hold %. The drop is read live even for a closed day: a box is
  counted after its day ends, often after the close.

Each report is read from one snapshot (casino.shared.db.read_snapshot) and returned as plain
typed rows in minor units; the renderers (reports/files/) only format them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import (
    Count,
    Exists,
    OuterRef,
    Q,
    Subquery,
    Sum,
)
from django.db.models.functions import Coalesce, TruncHour
from django.utils import timezone

from casino.shared.db import read_snapshot
from casino.shared.errors import NotFound, ValidationFailed
from casino.shared.gaming_day import gaming_days_bounds
from ledger.models import Entry
from reports.models import ClosedDay, ClosedTableDay
from rounds.drop import drop_day, drop_table_ids
from rounds.models import Round, RoundParty, Table
from rounds.selectors import party_house_share
from rounds.variance import house_banked_bands


def hold_percent(result: int, handle: int) -> Decimal | None:
    """``result / handle`` in percent to two places; None for a day without handle."""
    if not handle:
        return None
    return (Decimal(result) * 100 / handle).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def win_to_drop(win: int, drop: int | None) -> Decimal | None:
    """``win / drop`` as a ratio to four places (0.1834); None before the count or for a
    day whose box held nothing."""
    if not drop:
        return None
    return (Decimal(win) / drop).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class DayFigures:
    """A table's day (or the floor's total in one currency) as the auditor reads it.

    The figures are read once, in SQL, from one snapshot; the derived ones (house result,
    hold %, win, win / drop) are properties of this class and nowhere else: the API, the
    console, the admin, the command and the files read them here, so they cannot disagree.
    A closed day's stored row is read through ``closed_figures``.
    """

    table_id: int | None      # None on the floor's total row
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
    rounds_co_banked: int = 0   # counted among rounds_player_banked too
    # The house result moved back on this day by reversals of rounds of days closed
    # before (their own days' figures never change); not part of house_result.
    adjustments: int = 0
    # A closed day read again: its stored figures, and the rounds reversed since.
    closed: bool = False
    reversed_after_close: tuple[int, ...] = ()
    # The drop (rounds.drop): the buy-ins recorded; the cash counted and the variance,
    # None until the box is counted (on the total row: until one of its tables' is).
    drop_recorded: int = 0
    drop: int | None = None
    drop_variance: int | None = None
    # The house-banked play against the game's expectation (rounds.variance); None on
    # the floor's total rows, which add up tables of different rules.
    band_handle: int | None = None
    band_result: int | None = None
    expected: int | None = None
    band: int | None = None
    outside_band: bool | None = None
    # Card room: the collection fees the house earned, by kind (the bank's by band on
    # the covered action; the flat fee of each wager with action).
    collection_banker: int = 0
    collection_players: int = 0

    @property
    def collection(self) -> int:
        return self.collection_banker + self.collection_players

    @property
    def house_result(self) -> int:
        return (self.house_win_house_banked + self.house_win_house_stakes
                + self.commission_players + self.commission_bankers + self.collection)

    @property
    def house_result_adjusted(self) -> int:
        return self.house_result + self.adjustments

    @property
    def hold_percent(self) -> Decimal | None:
        return hold_percent(self.house_result, self.handle)

    @property
    def win(self) -> int:
        """The table's win for the day: the house's result at the table (docs/rules.md,
        "Drop and win"); every wager is known, so no inventory count is needed."""
        return self.house_result

    @property
    def win_to_drop(self) -> Decimal | None:
        return win_to_drop(self.win, self.drop)


# The rounds counted, each with the rounds it counts.
_SETTLED = Q(state=Round.State.SETTLED)
_HOUSE = _SETTLED & Q(banker_is_house=True)
_PLAYER = _SETTLED & Q(banker_is_house=False)

_COUNTS = {
    "rounds_settled": Count("id", filter=_SETTLED),
    "rounds_house_banked": Count("id", filter=_HOUSE),
    "rounds_player_banked": Count("id", filter=_PLAYER),
    # Co-banking is a casino table's (rounds.rules.TableRules.co_banks).
    "rounds_co_banked": Count("id", filter=_PLAYER & Q(rules__co_banking=True)
                              & ~Q(rules__bank_mode="card_room")),
    "rounds_reversed": Count("id", filter=Q(state=Round.State.REVERSED)),
    "rounds_voided": Count("id", filter=Q(state=Round.State.VOIDED)),
}


def _total(column: str, condition: Q) -> Coalesce:
    return Coalesce(Sum(column, filter=condition), 0)


# The money, summed over the settled rounds' parties (RoundParty): each figure with the
# parties it sums.
_SEAT = Q(role=RoundParty.Role.SEAT)
_HOUSE_PARTY = Q(role=RoundParty.Role.HOUSE)
_BANKS = Q(role__in=[RoundParty.Role.PLAYER_BANKER, RoundParty.Role.PLAYER_DEALER,
                     RoundParty.Role.PROPOSITION])
_MONEY = {
    # A card room's wager no bank covered got no action (returned): handle is the action.
    "handle": _total("covered", _SEAT),
    "house_stakes": _total("wager", _HOUSE_PARTY & Q(round__banker_is_house=False)),
    "house_win_house_banked": _total("net", _HOUSE_PARTY & Q(round__banker_is_house=True)),
    # The house stakes' results and the house's half of co-banked banks.
    "house_win_house_stakes": _total("net", _HOUSE_PARTY & Q(round__banker_is_house=False)),
    "commission_players": _total("commission", _SEAT),
    # A proposition player banks as a player-banker does: its commission is a banker's.
    "commission_bankers": _total("commission", _BANKS),
    "collection_banker": _total("fee", ~_SEAT),
    "collection_players": _total("fee", _SEAT),
}


STORED = ("rounds_settled", "rounds_house_banked", "rounds_player_banked",
          "rounds_co_banked", "rounds_reversed", "rounds_voided", "handle", "house_stakes",
          "house_win_house_banked", "house_win_house_stakes", "commission_players",
          "commission_bankers", "adjustments", "collection_banker", "collection_players")


def _reversal_time() -> Subquery:
    return Subquery(Entry.objects.filter(pk=OuterRef("reversal_entry_id"))
                    .values("created_at")[:1])


def _adjustments(alias: str, gaming_day: date, ids: list[int]) -> dict[int, int]:
    """Per table: minus the house result of rounds of days closed before, reversed on
    ``gaming_day`` (their reversing entries fall in the day)."""
    since, until = gaming_days_bounds(gaming_day, gaming_day)
    reversed_today = Entry.objects.using(alias).filter(
        created_at__gte=since, created_at__lt=until).values("pk")
    closed_before = ClosedDay.objects.using(alias).filter(
        gaming_day=OuterRef("gaming_day"), closed_at__lt=OuterRef("reversed_at"))
    rounds = (Round.objects.using(alias)
              .filter(table_id__in=ids, state=Round.State.REVERSED, gaming_day__lt=gaming_day,
                      reversal_entry_id__in=reversed_today)
              .annotate(reversed_at=_reversal_time())
              .filter(Exists(closed_before)))
    rows = (RoundParty.objects.using(alias).filter(round__in=rounds.values("pk"))
            .values("round__table_id").order_by("round__table_id")
            .annotate(total=Sum(party_house_share()))
            .values_list("round__table_id", "total"))
    return {table_id: -(total or 0) for table_id, total in rows}


def closed_figures(row: ClosedTableDay, *, gaming_day: date | None = None) -> DayFigures:
    """A closed day's stored row (a table's, or the floor's total) as figures: what the
    console's closed days, their chart, the admin and the API show of it."""
    figures: dict[str, Any] = {name: getattr(row, name) for name in STORED}
    return DayFigures(
        table_id=row.table_id, table_name=row.table_name, currency=row.currency,
        gaming_day=gaming_day or row.closed_day.gaming_day, closed=True, **figures)


def _closed_days(alias: str, gaming_day: date, tables: list[Table],
                 closed: ClosedDay) -> list[DayFigures]:
    """A closed day's stored figures, noting the rounds reversed after the close."""
    stored = {row.table_id: row for row in
              ClosedTableDay.objects.using(alias).filter(closed_day=closed,
                                                         table__isnull=False)}
    later = defaultdict(list)
    for table_id, number in (
            Round.objects.using(alias)
            .filter(table__in=tables, gaming_day=gaming_day, state=Round.State.REVERSED)
            .annotate(reversed_at=_reversal_time())
            .filter(reversed_at__gt=closed.closed_at)
            .order_by("table_id", "number").values_list("table_id", "number")):
        later[table_id].append(number)
    out = []
    for table in tables:
        row = stored.get(table.pk)
        figures: dict[str, Any] = {name: getattr(row, name) if row else 0 for name in STORED}
        out.append(DayFigures(
            table_id=table.pk, table_name=table.name, currency=table.currency,
            gaming_day=gaming_day, closed=True,
            reversed_after_close=tuple(later[table.pk]), **figures))
    return out


def _table_days(alias: str, gaming_day: date, tables: list[Table]) -> list[DayFigures]:
    """Every table's day with its drop (read live, closed day or not: rounds.drop)."""
    rows = _play_days(alias, gaming_day, tables)
    drops = drop_day(table_ids=[t.pk for t in tables], gaming_day=gaming_day)
    return [replace(row, drop_recorded=drops[row.table_id].recorded,
                    drop=drops[row.table_id].counted, drop_variance=drops[row.table_id].variance)
            if row.table_id is not None else row for row in rows]


def _play_days(alias: str, gaming_day: date, tables: list[Table]) -> list[DayFigures]:
    """Every given table's play in two grouped queries (the rounds' counts, then their
    parties' money), whatever the number of tables; both are served by the (table,
    gaming_day) index of rounds. A closed day is read from its stored figures instead."""
    closed = ClosedDay.objects.using(alias).filter(gaming_day=gaming_day).first()
    if closed is not None:
        return _closed_days(alias, gaming_day, tables, closed)
    ids = [t.pk for t in tables]
    adjustments = _adjustments(alias, gaming_day, ids)
    rounds = Round.objects.using(alias).filter(table_id__in=ids, gaming_day=gaming_day)
    counts = {row["table_id"]: row for row in
              rounds.values("table_id").order_by("table_id").annotate(**_COUNTS)}
    money = {row["round__table_id"]: row for row in
             RoundParty.objects.using(alias).filter(round__in=rounds.filter(_SETTLED))
             .values("round__table_id").order_by("round__table_id").annotate(**_MONEY)}
    out = []
    for table in tables:
        c = counts.get(table.pk) or dict.fromkeys(_COUNTS, 0)
        m = money.get(table.pk) or dict.fromkeys(_MONEY, 0)
        out.append(DayFigures(
            table_id=table.pk, table_name=table.name, currency=table.currency,
            gaming_day=gaming_day, **{name: c[name] for name in _COUNTS},
            **{name: m[name] for name in _MONEY},
            adjustments=adjustments.get(table.pk, 0),
        ))
    return out


def _with_bands(alias: str, gaming_day: date, rows: list[DayFigures]
                ) -> list[DayFigures]:
    bands = house_banked_bands(alias=alias, gaming_day=gaming_day,
                               table_ids=[r.table_id for r in rows if r.table_id])
    return [replace(r, band_handle=b.handle, band_result=b.result, expected=b.expected,
                    band=b.band, outside_band=b.outside_band)
            if r.table_id and (b := bands.get(r.table_id)) else r for r in rows]
def table_day_report(*, table_id: int, gaming_day: date) -> DayFigures:
    """The day's figures for one table, from one snapshot."""
    with read_snapshot() as alias:
        table = Table.objects.using(alias).filter(pk=table_id).first()
        if table is None:
            raise NotFound(f"There is no table #{table_id}.", detail={"table_id": table_id})
        return _with_bands(alias, gaming_day, _table_days(alias, gaming_day, [table]))[0]


@dataclass(frozen=True)
class FloorDayReport:
    """Every table that played (or was open) on the day, and a total row per currency."""

    gaming_day: date
    tables: list[DayFigures]
    totals: list[DayFigures]


def _sum_counted(values: list[int | None]) -> int | None:
    """The total of the tables counted; None when none was."""
    counted = [v for v in values if v is not None]
    return sum(counted) if counted else None


def _sum_rows(gaming_day: date, currency: str, rows: list[DayFigures]) -> DayFigures:
    totals: dict[str, Any] = {name: sum(getattr(r, name) for r in rows) for name in STORED}
    return DayFigures(
        table_id=None, table_name="Total", currency=currency, gaming_day=gaming_day,
        closed=any(r.closed for r in rows), drop_recorded=sum(r.drop_recorded for r in rows),
        drop=_sum_counted([r.drop for r in rows]),
        drop_variance=_sum_counted([r.drop_variance for r in rows]), **totals)


def floor_day_report(*, gaming_day: date) -> FloorDayReport:
    """All tables with a round on the day (or an adjustment, a buy-in or a drop count), in
    table order, plus their totals."""
    with read_snapshot() as alias:
        since, until = gaming_days_bounds(gaming_day, gaming_day)
        reversed_today = Entry.objects.using(alias).filter(
            created_at__gte=since, created_at__lt=until).values("pk")
        tables = list(Table.objects.using(alias).filter(
            Q(pk__in=Round.objects.using(alias).filter(gaming_day=gaming_day)
              .values("table_id"))
            | Q(pk__in=Round.objects.using(alias).filter(
                reversal_entry_id__in=reversed_today).values("table_id"))
            | Q(pk__in=drop_table_ids(gaming_day=gaming_day))).order_by("pk"))
        rows = _with_bands(alias, gaming_day, _table_days(alias, gaming_day, tables))
    by_currency: dict[str, list[DayFigures]] = defaultdict(list)
    for row in rows:
        by_currency[row.currency].append(row)
    return FloorDayReport(gaming_day=gaming_day, tables=rows, totals=[
        _sum_rows(gaming_day, cur, by_currency[cur]) for cur in sorted(by_currency)])


@dataclass(frozen=True)
class HourResult:
    """The house result of the rounds settled in one hour of a gaming day (one currency)."""

    hour: datetime            # the hour's start, aware, cut in the casino's zone
    currency: str
    rounds: int
    house_result: int


def day_by_hour(*, gaming_day: date, table_id: int | None = None) -> list[HourResult]:
    """A gaming day's settled rounds (one table's, or every table's) grouped by the hour of
    the casino's clock they were settled in, with their house result as the day's figures
    count it: the hours of an open day add up to its house result. One grouped query."""
    with read_snapshot() as alias:
        rounds = Round.objects.using(alias).filter(_SETTLED, gaming_day=gaming_day)
        if table_id is not None:
            rounds = rounds.filter(table_id=table_id)
        rows = (RoundParty.objects.using(alias).filter(round__in=rounds)
                .annotate(hour=TruncHour("round__settled_at",
                                         tzinfo=timezone.get_current_timezone()))
                .values("hour", "round__currency").order_by("hour", "round__currency")
                .annotate(rounds=Count("round", distinct=True),
                          result=Sum(party_house_share()))
                .values_list("hour", "round__currency", "rounds", "result"))
        return [HourResult(hour=hour, currency=currency, rounds=count,
                           house_result=result or 0)
                for hour, currency, count, result in rows if hour is not None]


# --- the bankers ----------------------------------------------------------------------------

@dataclass(frozen=True)
class BankerLine:
    """One bank party of one settled round (the player-banker, a card room's player-dealer
    or proposition player), its figures as the settlement stored them (RoundParty): a
    co-banked bank's are the player-banker's share. ``net == bank_won - bank_paid``;
    ``result == net - commission - fee``, what the round moved on its account."""

    gaming_day: date
    table_id: int
    table_name: str
    round_id: int
    round_number: int
    party: str          # player_banker, player_dealer, proposition
    player_id: int
    player: str         # the party's name
    currency: str
    co_banked: bool
    house_stake: int
    covered: int        # the wagers it covered (its share when co-banked), and the house stake
    bank_won: int
    bank_paid: int
    net: int
    commission: int
    fee: int
    result: int


@dataclass(frozen=True)
class BankerTotal:
    player_id: int
    player: str
    currency: str
    rounds: int
    covered: int
    bank_won: int
    bank_paid: int
    net: int
    commission: int
    fee: int
    result: int


@dataclass(frozen=True)
class BankerReport:
    date_from: date
    date_to: date
    lines: list[BankerLine]
    totals: list[BankerTotal] = field(default_factory=list)


_BANK_ROLES = [RoundParty.Role.PLAYER_BANKER, RoundParty.Role.PLAYER_DEALER,
               RoundParty.Role.PROPOSITION]


def banker_report(*, date_from: date, date_to: date) -> BankerReport:
    """Every bank party of the settled rounds of the gaming days ``date_from``..``date_to``
    that a player banked (a player-banker, a player-dealer, a proposition player), in day,
    table, round and party order, and each banker's totals; one query from one snapshot."""
    if date_to < date_from:
        raise ValidationFailed("date_to is before date_from.", code="invalid",
                               detail={"fields": {"date_to": ["before date_from"]}})
    with read_snapshot() as alias:
        parties = list(
            RoundParty.objects.using(alias)
            .filter(role__in=_BANK_ROLES, round__state=Round.State.SETTLED,
                    round__gaming_day__gte=date_from, round__gaming_day__lte=date_to)
            .select_related("round__table", "player")
            .order_by("round__gaming_day", "round__table_id", "round__number", "id"))
    lines = []
    for p in parties:
        round_ = p.round
        assert p.player is not None and p.player_id is not None  # a bank party is a player's
        lines.append(BankerLine(
            gaming_day=round_.gaming_day, table_id=round_.table_id,
            table_name=round_.table.name, round_id=round_.pk, round_number=round_.number,
            party=p.role, player_id=p.player_id, player=p.player.name,
            currency=round_.currency,
            co_banked=round_.table_rules.co_banks and round_.banker_is_house is False,
            house_stake=round_.house_stake, covered=p.covered, bank_won=p.won,
            bank_paid=p.paid, net=p.net, commission=p.commission, fee=p.fee,
            result=p.result))
    return BankerReport(date_from=date_from, date_to=date_to, lines=lines,
                        totals=_banker_totals(lines))


def _banker_totals(lines: list[BankerLine]) -> list[BankerTotal]:
    grouped: dict[tuple[int, str], list[BankerLine]] = defaultdict(list)
    for line in lines:
        grouped[(line.player_id, line.currency)].append(line)
    return [BankerTotal(
        player_id=player_id, player=group[0].player, currency=currency,
        rounds=len({x.round_id for x in group}), covered=sum(x.covered for x in group),
        bank_won=sum(x.bank_won for x in group), bank_paid=sum(x.bank_paid for x in group),
        net=sum(x.net for x in group), commission=sum(x.commission for x in group),
        fee=sum(x.fee for x in group), result=sum(x.result for x in group),
    ) for (player_id, currency), group in sorted(grouped.items())]
