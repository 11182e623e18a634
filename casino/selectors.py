"""Reads of the floor that matter: players with their balances."""

from __future__ import annotations

from django.db.models import CharField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Cast, Coalesce, Concat

from casino.errors import NotFound
from casino.models import Player
from ledger.models import Account
from ledger.selectors import Balance


def player_account_ref(player_id: int) -> str:
    """The reference a player's ledger account carries (the ledger knows no players)."""
    return f"player:{player_id}"


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


def player_get(*, player_id: int) -> Player:
    player = _with_balances(Player.objects.filter(pk=player_id)).first()
    if player is None:
        raise NotFound(f"There is no player #{player_id}.", detail={"player_id": player_id})
    return player


def player_balance(player: Player) -> Balance:
    """The balance of a player fetched by player_list/player_get (annotated, no query)."""
    posted = getattr(player, "posted", None)
    held = getattr(player, "held", None)
    if posted is None or held is None:
        player = player_get(player_id=player.pk)
        posted, held = player.posted, player.held  # type: ignore[attr-defined]
    return Balance(posted=posted, held=held, currency=player.currency)

