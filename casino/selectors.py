"""Reads of the floor that matter: players with their balances, the cage's receipts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime

from django.db.models import CharField, Exists, F, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Cast, Coalesce, Concat

from casino.models import Player
from casino.shared.errors import NotFound, ValidationFailed
from casino.shared.gaming_day import gaming_days_bounds
from ledger.models import Account
from ledger.reports import StatementReport, statement_report
from ledger.selectors import Balance, Statement, account_balance_after, entry_get

PLAYER_REF = "player:"


def player_account_ref(player_id: int) -> str:
    """The reference a player's ledger account carries (the ledger knows no players)."""
    return f"{PLAYER_REF}{player_id}"


def _with_balances(players: QuerySet[Player]) -> QuerySet[Player]:
    # One query for a whole page: the account is found by (kind, currency, ref), which its
    # unique index serves.
    account = Account.objects.filter(
        kind=Account.Kind.PLAYER, currency=OuterRef("currency"),
        ref=Concat(Value("player:"), Cast(OuterRef("pk"), CharField())),
    )
    return players.annotate(
        posted=Coalesce(Subquery(account.values("posted")[:1]), 0),
        held=Coalesce(Subquery(account.values("held")[:1]), 0),
    )


def player_list(*, search: str = "") -> QuerySet[Player]:
    """Players with ``posted`` and ``held`` annotated; ``search`` matches name or exact id."""
    players = Player.objects.all()
    search = search.strip()
    if search:
        match = Q(name__icontains=search)
        if search.isdigit():
            match |= Q(pk=int(search))
        players = players.filter(match)
    return _with_balances(players).order_by("id")


def player_find(*, search: str) -> QuerySet[Player]:
    """Players matching ``search`` (name or exact id) for the cage, each with
    ``has_namesake``: another player, found or not, has the same name (case aside), so the
    cashier checks the id before paying."""
    namesake = Player.objects.filter(name__iexact=OuterRef("name")).exclude(pk=OuterRef("pk"))
    return player_list(search=search).annotate(available=F("posted") - F("held"),
                                               has_namesake=Exists(namesake))


def player_namesakes(*, name: str, exclude_id: int | None = None) -> list[Player]:
    """The players called ``name`` (case and surrounding spaces aside), in id order."""
    found = Player.objects.filter(name__iexact=name.strip()).order_by("id")
    if exclude_id is not None:
        found = found.exclude(pk=exclude_id)
    return list(found[:20])


def namesake_text(player: Player) -> str:
    """One namesake as the cage tells them apart: "Anna #4, born 1980-05-01, passport
    NX12345"."""
    parts = [f"{player.name} #{player.pk}"]
    if player.date_of_birth:
        parts.append(f"born {player.date_of_birth.isoformat()}")
    if player.id_document_number:
        parts.append(f"{player.get_id_document_kind_display().lower()} "
                     f"{player.id_document_number}")
    return ", ".join(parts)


def player_label(player: Player, *, seat: int | None = None,
                 among: Iterable[Player | None] = ()) -> str:
    """How a player is named where others are (a table's seats, its messages and buttons):
    the name alone when nobody else in ``among`` has it (case aside), else the name with
    the id and, when known, the seat: "Anna #4 (seat 5)". Used by the table screen and the
    services' refusals, so two Annas at a table are never told apart by guesswork."""
    name = player.name.strip().casefold()
    if not any(other is not None and other.pk != player.pk
               and other.name.strip().casefold() == name for other in among):
        return player.name
    return f"{player.name} #{player.pk}" + (f" (seat {seat})" if seat is not None else "")


def player_get(*, player_id: int) -> Player:
    player = _with_balances(Player.objects.filter(pk=player_id)).first()
    if player is None:
        raise NotFound(f"There is no player #{player_id}.", detail={"player_id": player_id})
    return player


@dataclass(frozen=True)
class PlayerStatement:
    """A player's ledger statement over gaming days (the auditors' ``player_statement``)."""

    player_id: int
    player_name: str
    date_from: date | None
    date_to: date | None
    report: StatementReport

    @property
    def statement(self) -> Statement:
        return self.report.statement


def player_statement(*, player_id: int, date_from: date | None,
                     date_to: date | None) -> PlayerStatement:
    """The player's account from the start of gaming day ``date_from`` to the end of
    ``date_to``: opening balance, every movement with its reference, closing balance. An
    open end (None) runs from the first movement, or up to now (the cage's "all time")."""
    if date_from is not None and date_to is not None and date_to < date_from:
        raise ValidationFailed("date_to is before date_from.", code="invalid",
                               detail={"fields": {"date_to": ["before date_from"]}})
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise NotFound(f"There is no player #{player_id}.", detail={"player_id": player_id})
    since, until = gaming_days_bounds(date_from, date_to)
    return PlayerStatement(
        player_id=player.pk, player_name=player.name, date_from=date_from, date_to=date_to,
        report=statement_report(account_ref=player_account_ref(player.pk),
                                currency=player.currency, since=since, until=until))


def player_balance(player: Player) -> Balance:
    """The balance of a player fetched by player_list/player_get (annotated, no query)."""
    posted = getattr(player, "posted", None)
    held = getattr(player, "held", None)
    if posted is None or held is None:
        player = player_get(player_id=player.pk)
        posted, held = player.posted, player.held  # type: ignore[attr-defined]
    return Balance(posted=posted, held=held, currency=player.currency)



# Entry kinds the cage posts (casino.services._cage_move).
CAGE_KINDS = ("deposit", "withdrawal")


@dataclass(frozen=True)
class CageReceipt:
    """What a cage receipt prints: the movement and the player's balance after it."""

    entry_id: int
    kind: str
    player: Player
    amount: int  # the amount handed over, positive either way
    currency: str
    balance_after: int
    by: str
    at: datetime
    reference: str


def cage_receipt(*, entry_id: int) -> CageReceipt:
    """The receipt of a cage deposit or withdrawal; any other entry is not a receipt."""
    entry = entry_get(entry_id=entry_id)
    player_id = entry.ref.removeprefix("player:")
    line = next((ln for ln in entry.lines.all() if ln.account.kind == Account.Kind.PLAYER
                 and ln.account.ref == entry.ref), None)
    if entry.kind not in CAGE_KINDS or not player_id.isdigit() or line is None:
        raise NotFound(f"Entry #{entry_id} is not a deposit or withdrawal at the cage.",
                       detail={"entry_id": entry_id})
    player = Player.objects.get(pk=int(player_id))
    return CageReceipt(
        entry_id=entry.pk, kind=entry.kind, player=player, amount=abs(line.amount),
        currency=line.account.currency,
        balance_after=account_balance_after(account_id=line.account_id, entry_id=entry.pk),
        by=entry.created_by.get_username() if entry.created_by else "the system",
        at=entry.created_at, reference=entry.memo)
