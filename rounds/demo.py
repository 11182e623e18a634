"""The demo table that `make run` loads: the demo players seated at seats 1 to 3."""

from __future__ import annotations

from django.contrib.auth.models import User

from casino.demo import seed_players
from casino.shared.money import format_minor
from rounds import services
from rounds.models import Seat, Table

DEMO_TABLE = "Demo table 1"


def seed_floor(*, by: User) -> list[str]:
    """Create what is missing of the demo floor; returns a line per thing it holds."""
    table = Table.objects.filter(name=DEMO_TABLE).first()
    if table is None:
        table = services.table_create(by=by, name=DEMO_TABLE)
    players, lines = seed_players(table.currency)
    for number, player in enumerate(players, start=1):
        seat = Seat.objects.get(table=table, number=number)
        if seat.player_id is None and not Seat.objects.filter(table=table,
                                                               player=player).exists():
            services.seat_take(table_id=table.pk, number=number, player_id=player.pk, by=by)
        lines[number - 1] += f", seat {number}"
    limits = (f"{format_minor(table.min_bet, table.currency)}-"
              f"{format_minor(table.max_bet, table.currency)} {table.currency}")
    return [f"table #{table.pk} {table.name} (wagers {limits})", *lines]
