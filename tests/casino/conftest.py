"""A table with funded players in seats, for the tests here that reach the API through a
round's routes (bad bodies, Idempotency-Keys): the same fixtures as tests/rounds'."""

from tests.rounds.conftest import make_table, pit_boss, seat_player, table

__all__ = ["make_table", "pit_boss", "seat_player", "table"]
