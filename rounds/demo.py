"""The demo tables that `make run` loads: a casino table with the demo players seated at
seats 1 to 3, a card room (docs/rules.md §14) with its own three players and a
proposition player funded to bank beside them, and a self-service table (§15) where players
play their own games."""

from __future__ import annotations

from django.contrib.auth.models import User

from casino.demo import CARD_ROOM_PLAYERS, seed_players, seed_proposition_player
from casino.shared.money import format_minor
from rounds import services
from rounds.models import Seat, Table

DEMO_TABLE = "Demo table 1"
CARD_ROOM_TABLE = "Card room 1"
# The German seed's electronic game: players play their own games from /play/.
SELF_SERVICE_TABLE = "Online 1"


def seed_floor(*, by: User) -> list[str]:
    """Create what is missing of the demo floor; returns a line per thing it holds."""
    lines = _seeded_table(DEMO_TABLE, None, by=by)
    lines += _seeded_table(CARD_ROOM_TABLE, CARD_ROOM_PLAYERS, by=by,
                           bank_mode=Table.BankMode.CARD_ROOM, collection_player=50)
    _, line = seed_proposition_player()
    online = Table.objects.filter(name=SELF_SERVICE_TABLE).first() or services.table_create(
        by=by, name=SELF_SERVICE_TABLE, self_service=True)
    limits = (f"{format_minor(online.min_bet, online.currency)}-"
              f"{format_minor(online.max_bet, online.currency)} {online.currency}")
    return [*lines, line,
            f"table #{online.pk} {online.name} (wagers {limits}, self-service: /play/)"]


def _seeded_table(name: str, players: dict[str, int] | None, *, by: User,
                  **settings: object) -> list[str]:
    table = Table.objects.filter(name=name).first()
    if table is None:
        table = services.table_create(by=by, name=name, **settings)
    seated, lines = seed_players(table.currency, players)
    for number, player in enumerate(seated, start=1):
        seat = Seat.objects.get(table=table, number=number)
        if seat.player_id is None and not Seat.objects.filter(player=player).exists():
            services.seat_take(table_id=table.pk, number=number, player_id=player.pk, by=by)
        lines[number - 1] += f", seat {number}"
    limits = (f"{format_minor(table.min_bet, table.currency)}-"
              f"{format_minor(table.max_bet, table.currency)} {table.currency}")
    mode = ", card room" if table.bank_mode == Table.BankMode.CARD_ROOM else ""
    return [f"table #{table.pk} {table.name} (wagers {limits}{mode})", *lines]
