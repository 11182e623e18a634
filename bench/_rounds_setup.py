"""The round bench's floor: a scratch database it creates and drops, and tables to play at.

Import after ``django.setup()``. The scratch database lives on the server the project uses
(DATABASE_URL, or the embedded server under .data/pg), so the development database is
never touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.core.management import call_command
from django.db import connection, connections

from casino import roles
from casino.models import Table
from casino.services import player_create, player_deposit, staff_create
from rounds import services


def _admin_sql(statement: str) -> None:
    """CREATE/DROP DATABASE run from the maintenance database, outside any transaction."""
    with connection._nodb_cursor() as cursor:
        cursor.execute(statement)


def _use_database(name: str) -> None:
    connections.close_all()
    settings.DATABASES["default"]["NAME"] = name
    connection.settings_dict["NAME"] = name


@contextmanager
def scratch_database(name: str) -> Iterator[str]:
    """Create ``name``, point Django at it and migrate it; drop it on the way out, whatever
    happened (WITH (FORCE) ends connections a crashed subprocess may have left)."""
    original = settings.DATABASES["default"]["NAME"]
    _admin_sql(f'CREATE DATABASE "{name}"')
    try:
        _use_database(name)
        call_command("migrate", verbosity=0)
        yield name
    finally:
        _use_database(original)
        _admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_url() -> str:
    """DATABASE_URL of the database Django uses now, for a subprocess (gunicorn)."""
    db = settings.DATABASES["default"]
    user = quote(db.get("USER") or "postgres", safe="")
    password = f":{quote(db['PASSWORD'], safe='')}" if db.get("PASSWORD") else ""
    host = quote(db.get("HOST") or "localhost", safe="")  # a socket directory is a path
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{user}{password}@{host}{port}/{quote(db['NAME'], safe='')}"


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
