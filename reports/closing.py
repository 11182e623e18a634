"""Closing a gaming day: its figures are stored once, with the ledger's chain head, and
never change again (PostgreSQL refuses UPDATE and DELETE of them).

Nothing here moves money. The close reads the day's figures and the chain head from one
REPEATABLE READ snapshot, in the transaction that stores them, so the stored head is the
head those figures were read at.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING

from django.db import IntegrityError, connection, transaction
from django.db.models import Min
from django.utils import timezone

from casino.shared.errors import Conflict
from casino.shared.gaming_day import gaming_day_of
from ledger.reports import chain_point
from ledger.services import entries_seal_all
from reports.models import ClosedDay, ClosedTableDay
from reports.play import STORED, floor_day_report
from rounds.models import Round

if TYPE_CHECKING:
    from django.contrib.auth.models import User

def _first_gaming_day() -> date | None:
    """The gaming day of the casino's first round; None before any round."""
    first: date | None = Round.objects.aggregate(first=Min("gaming_day"))["first"]
    return first


def gaming_day_close_check(*, gaming_day: date) -> None:
    """Refuse a day that is not over (by the casino's gaming-day clock), that came before
    the casino's first round (a closed day is kept for good: a day from before the casino
    played, say 0001-01-01 mistyped, would be an empty report no one can remove), that is
    already closed, or that has a round still in play."""
    today = gaming_day_of()
    if gaming_day >= today:
        raise Conflict(f"Gaming day {gaming_day} is not over yet (today is {today}).",
                       code="gaming_day_not_over",
                       detail={"gaming_day": str(gaming_day), "today": str(today)})
    first = _first_gaming_day()
    if first is None or gaming_day < first:
        since = f"the first round was played on gaming day {first}" if first is not None \
            else "no round has been played yet"
        raise Conflict(f"Gaming day {gaming_day} came before the casino's first round: "
                       f"{since}.", code="gaming_day_before_first_round",
                       detail={"gaming_day": str(gaming_day),
                               "first_gaming_day": str(first) if first is not None else None})
    if ClosedDay.objects.filter(gaming_day=gaming_day).exists():
        raise Conflict(f"Gaming day {gaming_day} is already closed.",
                       code="gaming_day_closed", detail={"gaming_day": str(gaming_day)})
    live = list(Round.objects.filter(gaming_day=gaming_day, state__in=Round.State.OPEN)
                .order_by("pk").values_list("pk", flat=True)[:20])
    if live:
        raise Conflict(f"Gaming day {gaming_day} still has rounds in play: settle or void "
                       "them first.", code="rounds_in_play",
                       detail={"gaming_day": str(gaming_day), "rounds": live})


def gaming_day_close(*, gaming_day: date, by: User | None) -> ClosedDay:
    """Store each table's figures of the day and the floor's totals, with the chain head.

    ``by`` is None for the scheduled close. Two closes at once: the unique gaming day
    lets one store its rows; the other is refused as already closed.
    """
    own_snapshot = not connection.in_atomic_block
    if own_snapshot:
        # The day's entries sealed first, as far as they can be, so the head stored with
        # the day covers them (the sealer would within seconds anyway).
        entries_seal_all()
    try:
        with transaction.atomic():
            if own_snapshot:
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            gaming_day_close_check(gaming_day=gaming_day)
            floor = floor_day_report(gaming_day=gaming_day)
            head = chain_point()
            closed = ClosedDay.objects.create(
                gaming_day=gaming_day, closed_at=timezone.now(), closed_by=by,
                chain_seq=head.seq, chain_hash=head.hash)
            ClosedTableDay.objects.bulk_create([
                ClosedTableDay(closed_day=closed, table_id=row.table_id,
                               table_name=row.table_name, currency=row.currency,
                               **{name: getattr(row, name) for name in STORED})
                for row in [*floor.tables, *floor.totals]])
    except IntegrityError:
        if ClosedDay.objects.filter(gaming_day=gaming_day).exists():
            raise Conflict(f"Gaming day {gaming_day} is already closed.",
                           code="gaming_day_closed",
                           detail={"gaming_day": str(gaming_day)}) from None
        raise
    return closed


def gaming_day_close_due(*, by: User | None = None) -> ClosedDay | None:
    """The scheduled close: yesterday's gaming day, unless it is closed already or came
    before the casino's first round (nothing to close yet)."""
    yesterday = gaming_day_of() - timedelta(days=1)
    if ClosedDay.objects.filter(gaming_day=yesterday).exists():
        return None
    first = _first_gaming_day()
    if first is None or yesterday < first:
        return None
    return gaming_day_close(gaming_day=yesterday, by=by)
