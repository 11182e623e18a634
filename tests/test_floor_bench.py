"""bench/floor_bench.py's schedule and verdict, without a server: a run takes minutes, and
`--quick` (half a minute, gunicorn included) is the smoke run by hand."""

from __future__ import annotations

import pytest

from bench import floor_bench
from bench.floor_bench import STEPS, Level, Schedule


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(floor_bench.time, "monotonic", lambda: now[0])
    return now


def test_the_tables_first_rounds_are_spread_evenly_over_the_minute(clock):
    schedule = Schedule(origin=1000.0, tables=4, period=60.0)

    starts = [schedule.next_start(index, None) for index in range(4)]

    assert starts == [1000.0, 1015.0, 1030.0, 1045.0]


def test_a_table_plays_its_next_round_a_period_after_the_last(clock):
    schedule = Schedule(origin=1000.0, tables=4, period=60.0)
    clock[0] = 1016.0  # the round that began at 1015 is over

    assert schedule.next_start(1, 1015.0) == 1075.0


def test_a_new_level_never_starts_a_tables_round_within_half_a_period_of_its_last(clock):
    # table 1 began a round at 1015 (one slot of four); at 1020 the level rises to 8
    # tables, whose slot for table 1 falls at 1027.5: too soon, so a period later
    clock[0] = 1020.0
    schedule = Schedule(origin=1020.0, tables=8, period=60.0)

    assert schedule.next_start(1, 1015.0) == 1087.5


def _level(p99_ms: float, errors: int = 0) -> Level:
    level = Level(tables=100)
    for step in STEPS:
        level.times[step] = [0.010] * 98 + [p99_ms / 1000] * 2  # the 99th of 100
    if errors:
        level.errors["settle"] = errors
    return level


def test_a_level_holds_while_every_steps_p99_is_under_the_line():
    assert _level(240).held(0.250)
    assert not _level(260).held(0.250)


def test_a_level_with_an_error_does_not_hold_however_fast():
    assert not _level(20, errors=1).held(0.250)
