"""The reports read the play's days: the same tables, players, dealer and seeded rounds as
tests/rounds/ (a fixture is found by its name in this module)."""

from tests.rounds.conftest import (  # noqa: F401
    dealer,
    dutch_seed,
    make_table,
    pit_boss,
    seat_player,
    table,
)
