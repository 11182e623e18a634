"""The drop: cash taken at the tables (buy-ins) and the counts of their drop boxes; the
figures the table's and the floor's day read (docs/rules.md, "Drop and win").

Reads only. A buy-in is a ledger entry of kind ``buy_in`` (the drop box pays the player's
account); what a day's buy-ins recorded at a table is read from the drop box's lines, so
it is the ledger's figure, reversals included on the day they were made. What was counted
is the table's posted ``DropCount`` of the day (one awaiting its witness has counted
nothing yet).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Q, QuerySet, Sum

from casino.models import Player
from casino.selectors import player_account_ref
from casino.shared.gaming_day import gaming_day_of, gaming_days_bounds
from ledger.models import Account, Line
from rounds.accounts import TABLE_REF, table_ref
from rounds.models import DropCount, Table

BUY_IN = "buy_in"
DROP_COUNT = "drop_count"
DROP_VARIANCE = "drop_variance"
REVERSAL = "reversal"


def drop_recorded(*, table_ids: list[int], gaming_day: date) -> dict[int, int]:
    """Per table: the cash its buy-ins of ``gaming_day`` put in the drop box, in minor
    units, by the ledger (minus buy-ins reversed on that day). One grouped query."""
    since, until = gaming_days_bounds(gaming_day, gaming_day)
    refs = {table_ref(i): i for i in table_ids}
    rows = (Line.objects
            .filter(Q(entry__kind=BUY_IN)
                    | Q(entry__kind=REVERSAL, entry__reverses__kind=BUY_IN),
                    account__kind=Account.Kind.DROP_BOX, account__ref__in=list(refs),
                    entry__created_at__gte=since, entry__created_at__lt=until)
            .values("account__ref").order_by("account__ref")
            .annotate(total=Sum("amount")).values_list("account__ref", "total"))
    # The drop box pays the player: its lines are the negatives of the cash taken.
    return {refs[ref]: -(total or 0) for ref, total in rows}


@dataclass(frozen=True)
class DropFigures:
    """A table's drop for one gaming day, in minor units; counted and variance are None
    until the box is counted."""

    recorded: int = 0
    counted: int | None = None
    variance: int | None = None


def drop_day(*, table_ids: list[int], gaming_day: date) -> dict[int, DropFigures]:
    """Each table's drop figures for the day (a table without buy-ins or a count: zeros)."""
    recorded = drop_recorded(table_ids=table_ids, gaming_day=gaming_day)
    counts = {c.table_id: c for c in DropCount.objects.filter(
        table_id__in=table_ids, gaming_day=gaming_day).exclude(
        status__in=[DropCount.Status.CORRECTED, *DropCount.UNPOSTED])}
    out = {}
    for table_id in table_ids:
        count = counts.get(table_id)
        out[table_id] = DropFigures(
            recorded=recorded.get(table_id, 0),
            counted=count.counted if count is not None else None,
            variance=count.variance if count is not None else None)
    return out


def drop_table_ids(*, gaming_day: date) -> set[int]:
    """The tables that took a buy-in on the day or whose box was counted for it (a table
    may take cash without a round: the floor day shows it)."""
    since, until = gaming_days_bounds(gaming_day, gaming_day)
    refs = (Line.objects.filter(account__kind=Account.Kind.DROP_BOX, entry__kind=BUY_IN,
                                entry__created_at__gte=since, entry__created_at__lt=until)
            .values_list("account__ref", flat=True).distinct())
    ids = {int(ref.split(":", 1)[1]) for ref in refs}
    ids |= set(DropCount.objects.filter(gaming_day=gaming_day)
               .values_list("table_id", flat=True))
    return ids


def drop_count_list(*, table_id: int | None = None, gaming_day: date | None = None,
                    exceptions: bool = False, status: str | None = None,
                    ) -> QuerySet[DropCount]:
    """Drop counts, newest day first; ``exceptions``: only posted ones with a variance
    (the exceptions: explained, or still to explain)."""
    counts = DropCount.objects.select_related("table", "counted_by", "witness",
                                              "explained_by")
    if table_id is not None:
        counts = counts.filter(table_id=table_id)
    if gaming_day is not None:
        counts = counts.filter(gaming_day=gaming_day)
    if exceptions:
        counts = counts.filter(variance__isnull=False).exclude(variance=0)
    if status:
        counts = counts.filter(status=status)
    return counts.order_by("-gaming_day", "table_id", "-id")


def player_buy_ins(*, account_id: int, gaming_day: date) -> dict[int, int]:
    """Per table: what the player whose account is ``account_id`` bought in for there on
    ``gaming_day``, in minor units, by the ledger (minus buy-ins corrected on that day, as
    the drop box's own figure counts them). One grouped query."""
    since, until = gaming_days_bounds(gaming_day, gaming_day)
    rows = (Line.objects
            .filter(Q(entry__kind=BUY_IN)
                    | Q(entry__kind=REVERSAL, entry__reverses__kind=BUY_IN),
                    account_id=account_id, entry__created_at__gte=since,
                    entry__created_at__lt=until)
            # A buy-in names its table; its correction (a reversal) carries the same ref.
            .values("entry__ref").order_by("entry__ref")
            .annotate(total=Sum("amount")).values_list("entry__ref", "total"))
    return {int(ref.removeprefix(TABLE_REF)): total or 0 for ref, total in rows
            if ref.startswith(TABLE_REF)}


@dataclass(frozen=True)
class Uncounted:
    """Cash a player bought in for at a table whose box is not counted yet (minor units)."""

    table_id: int
    table_name: str
    amount: int


def player_uncounted_buy_ins(*, account_id: int, gaming_day: date) -> list[Uncounted]:
    """The player's buy-ins of ``gaming_day`` at each table whose box for that day is not
    counted yet (or was found short, the shortfall not explained yet): cash that reached
    their account on the dealer's word alone, which only the count (or a pit boss)
    confirms went into the box."""
    taken = {t: a for t, a in player_buy_ins(account_id=account_id,
                                              gaming_day=gaming_day).items() if a > 0}
    if not taken:
        return []
    counted = set(DropCount.objects.filter(table_id__in=list(taken), gaming_day=gaming_day)
                  # Counted means posted: a count awaiting its witness (or refused by them)
                  # has moved nothing, and one corrected is counted again by its successor.
                  .exclude(status__in=(*DropCount.UNPOSTED, DropCount.Status.CORRECTED))
                  # A count that found the box short, still unexplained, confirms nothing:
                  # the cash credited may never have gone in (a dealer crediting a friend),
                  # so it waits for a pit boss until someone other than the counter
                  # explains the shortfall.
                  .exclude(status=DropCount.Status.UNEXPLAINED, variance__lt=0)
                  .values_list("table_id", flat=True))
    names = dict(Table.objects.filter(pk__in=list(taken)).values_list("pk", "name"))
    return [Uncounted(table_id=t, table_name=names.get(t, f"table #{t}"), amount=a)
            for t, a in sorted(taken.items()) if t not in counted]


def player_uncounted_today(player: Player) -> list[Uncounted]:
    """The uncounted buy-ins of ``player`` of today and of the gaming day before (the cage's
    reader: casino.services.uncounted_cash_register). The boxes of a day are counted the
    morning after: cash credited just before the gaming day turns is not paid out just
    after it on the dealer's word alone."""
    account_id = (Account.objects.filter(kind=Account.Kind.PLAYER, currency=player.currency,
                                         ref=player_account_ref(player.pk))
                  .values_list("pk", flat=True).first())
    if account_id is None:
        return []
    today = gaming_day_of()
    return [found for day in (today - timedelta(days=1), today)
            for found in player_uncounted_buy_ins(account_id=account_id, gaming_day=day)]


def drop_counts_awaiting(*, witness_id: int | None = None) -> QuerySet[DropCount]:
    """Counts awaiting their witness, oldest first; ``witness_id``: only those waiting for
    that person's signature."""
    counts = drop_count_list().filter(status=DropCount.Status.AWAITING_WITNESS)
    if witness_id is not None:
        counts = counts.filter(witness_id=witness_id)
    return counts.order_by("counted_at", "id")
