"""Reads of play that matter: a round with its whole story, tables with their seats."""

from __future__ import annotations

from datetime import date

from django.db.models import Prefetch, QuerySet

from casino.errors import NotFound
from casino.models import Table
from rounds.models import Round, RoundEvent, Seat


def round_detail(*, round_id: int) -> Round:
    """A round with its table, wagers, hands and events loaded in a fixed number of queries."""
    try:
        return (Round.objects.select_related("table", "banker_player", "opened_by")
                .prefetch_related(
                    "wagers", "hands",
                    Prefetch("events", queryset=RoundEvent.objects.select_related("by")))
                .get(pk=round_id))
    except Round.DoesNotExist:
        raise NotFound(f"no round #{round_id}") from None


def table_detail(*, table_id: int) -> Table:
    try:
        return Table.objects.prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("number"))
        ).get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound(f"no table #{table_id}") from None


def table_list() -> QuerySet[Table]:
    return Table.objects.prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("number"))
    ).order_by("id")


def table_rounds(*, table_id: int, state: str | None = None,
                 gaming_day: date | None = None) -> QuerySet[Round]:
    if not Table.objects.filter(pk=table_id).exists():
        raise NotFound(f"no table #{table_id}")
    rounds = Round.objects.filter(table_id=table_id).select_related(
        "table", "banker_player", "opened_by").prefetch_related(
        "wagers", "hands",
        Prefetch("events", queryset=RoundEvent.objects.select_related("by")))
    if state:
        rounds = rounds.filter(state=state)
    if gaming_day:
        rounds = rounds.filter(gaming_day=gaming_day)
    return rounds.order_by("-number")


def round_currency(*, round_id: int) -> str:
    currency = Round.objects.filter(pk=round_id).values_list("currency", flat=True).first()
    if currency is None:
        raise NotFound(f"no round #{round_id}")
    return currency
