"""The round bench's floor: its scratch database (bench._scratch) and tables to play at.

Import after ``django.setup()``.
"""

from __future__ import annotations

from typing import Any

from bench._scratch import database_url, scratch_database
from casino import roles
from casino.services import player_create, player_deposit, staff_create
from rounds import services
from rounds.models import Table

__all__ = ["database_url", "dealer_token", "full_table", "pit_boss", "scratch_database"]


def pit_boss(username: str = "bench-pit") -> Any:
    user, _ = staff_create(username=username, role=roles.PIT_BOSS)
    return user


def dealer_token(username: str) -> str:
    """A dealer's API token (``Authorization: Token ...``)."""
    _, token = staff_create(username=username, role=roles.DEALER)
    return token


def full_table(*, name: str, by: Any, funds: int) -> Table:
    """A table with six seated players, each funded with ``funds`` (minor units).

    Open rotation and no must-have-played rule make any order of house- and player-banked
    rounds legal, so the bench can alternate them; a player-banker may stake up to the table
    maximum."""
    table = services.table_create(by=by, name=name, bank_rotation="open",
                                  banker_must_have_played=False, house_stake_cap="table_max")
    for seat in range(1, 7):
        player = player_create(name=f"{name} player {seat}", currency=table.currency, by=by)
        player_deposit(player_id=player.pk, amount=funds, by=by)
        services.seat_take(table_id=table.pk, number=seat, player_id=player.pk, by=by)
    return table
