"""Reads of play that matter: a round with its whole story, tables with their seats."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from django.db.models import Prefetch, Q, QuerySet

from casino.models import Player
from casino.selectors import player_list
from casino.shared.errors import NotFound
from casino.shared.gaming_day import gaming_day_of
from rounds.models import Round, RoundEvent, Seat, Table
from rounds.services.tables import OPEN_STATES

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def round_detail(*, round_id: int) -> Round:
    """A round with what RoundOut shows loaded in four queries: the round with who opened it,
    its wagers, its hands, its events with who took each step. (RoundOut shows the table and
    the banker by their ids, so neither row is joined.)"""
    try:
        return (Round.objects.select_related("opened_by")
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


def table_run_by(*, table_id: int, user: User) -> bool:
    """Whether ``user`` runs this table: they opened a round here this gaming day or took a
    step of one (a round's events say who), so a dealer relieving another mid-shift runs
    it from their first step."""
    return (Round.objects.filter(table_id=table_id, gaming_day=gaming_day_of())
            .filter(Q(opened_by=user) | Q(events__by=user)).exists())


def table_players(*, table_id: int) -> list[tuple[int, Player]]:
    """(seat number, player with its balance annotated) of each taken seat, in seat order."""
    seats = dict(Seat.objects.filter(table_id=table_id, player__isnull=False)
                 .values_list("player_id", "number"))
    players = player_list().filter(pk__in=seats)
    return sorted(((seats[p.pk], p) for p in players), key=lambda pair: pair[0])


# Game protection (rules §9): while a round is in play and a player's hand is still to be set,
# nobody watching the round may learn the banker's or the dealer's cards, nor the stacks and
# burnt cards not dealt to a player. Once every player's hand is set, the banker's may show;
# once the round is over, everything does.


def round_is_protected(round_: Round) -> bool:
    """Whether the deal's hidden cards (stacks, burnt, the event log's cards) stay hidden."""
    return round_.state in OPEN_STATES


def round_hidden_positions(round_: Round) -> set[str]:
    """The positions whose cards may not be shown yet: the banker's and the dealer's while
    any player's hand is still to be set in a round in play."""
    if not round_is_protected(round_):
        return set()
    bank = round_.banker_position if round_.banker_is_house is not None else ""
    guarded = {bank, "dealer"} - {""}
    players_set = all(h.set_by for h in round_.hands.all() if h.position not in guarded)
    return set() if players_set else guarded
