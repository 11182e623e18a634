"""Wagers: Clear and Re-Bet for a seat and for the whole table, all or nothing, and only
what was really played."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from casino.services import player_withdraw
from casino.shared.errors import Conflict
from ledger.models import Hold
from rounds import services
from rounds.models import Round, Wager
from tests.round_trips import round_trips
from tests.rounds.conftest import available

pytestmark = pytest.mark.django_db


def _played(pit_boss, table, wagers: dict[int, int]) -> Round:
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    for seat, amount in wagers.items():
        services.wager_place(round_id=round_.pk, seat=seat, amount=amount, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    return services.round_settle(round_id=round_.pk, by=pit_boss,
                                 outcomes={str(s): "push" for s in wagers})


def test_rebet_for_the_table_repeats_each_players_last_played_wager(pit_boss, table,
                                                                      seat_player):
    a, b, c = (seat_player(table, n, funds=10_000) for n in (1, 2, 3))
    _played(pit_boss, table, {1: 1_000, 2: 2_500})
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=500, by=pit_boss)

    placed = services.wager_rebet_all(round_id=round_.pk, by=pit_boss)

    # seat 1 repeats its 10.00; seat 2 keeps the wager it has; seat 3 never played
    assert [(w.seat, w.amount) for w in placed] == [(1, 1_000)]
    active = round_.wagers.filter(state=Wager.State.ACTIVE).order_by("seat")
    assert [(w.seat, w.amount) for w in active] == [(1, 1_000), (2, 500)]
    assert [available(p) for p in (a, b, c)] == [9_000, 9_500, 10_000]


def test_rebet_for_the_table_is_all_or_nothing(pit_boss, table, seat_player):
    a, b = (seat_player(table, n, funds=10_000) for n in (1, 2))
    _played(pit_boss, table, {1: 1_000, 2: 5_000})
    player_withdraw(player_id=b.pk, amount=8_000, by=pit_boss)  # Bram keeps 20.00
    round_ = services.round_open(table_id=table.pk, by=pit_boss)

    with pytest.raises(Conflict) as refused:
        services.wager_rebet_all(round_id=round_.pk, by=pit_boss)

    assert refused.value.code == "insufficient_funds"
    assert not round_.wagers.exists()
    assert not Hold.objects.filter(ref=f"round:{round_.pk}").exists()
    assert available(a) == 10_000


def test_rebet_for_the_table_with_nothing_to_repeat_is_refused(pit_boss, table, seat_player):
    seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)

    with pytest.raises(Conflict) as refused:
        services.wager_rebet_all(round_id=round_.pk, by=pit_boss)

    assert refused.value.code == "no_previous_wager"


def test_clear_for_the_table_releases_every_wager_before_the_deal(pit_boss, table,
                                                                   seat_player):
    a, b = (seat_player(table, n, funds=10_000) for n in (1, 2))
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    for seat in (1, 2):
        services.wager_place(round_id=round_.pk, seat=seat, amount=1_000, by=pit_boss)

    cleared = services.wager_clear_all(round_id=round_.pk, by=pit_boss)

    assert sorted(w.seat for w in cleared) == [1, 2]
    assert not round_.wagers.filter(state=Wager.State.ACTIVE).exists()
    assert not Hold.objects.filter(ref=f"round:{round_.pk}", status="open").exists()
    assert [available(p) for p in (a, b)] == [10_000, 10_000]


def test_clear_for_the_table_is_refused_after_the_deal(pit_boss, table, seat_player):
    # (Until issue 22 it was refused once the banker was set; wagers now come down until
    # the deal, so an insolvent bank can be resolved at the table.)
    seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    services.round_deal(round_id=round_.pk, by=pit_boss)

    with pytest.raises(Conflict) as refused:
        services.wager_clear_all(round_id=round_.pk, by=pit_boss)

    assert refused.value.code == "wrong_state"
    assert round_.wagers.filter(state=Wager.State.ACTIVE).count() == 1


def test_clear_for_the_table_still_works_once_the_banker_is_set(pit_boss, table, seat_player):
    player = seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)

    services.wager_clear_all(round_id=round_.pk, by=pit_boss)

    assert not round_.wagers.filter(state=Wager.State.ACTIVE).exists()
    assert available(player) == 100_000


def test_rebet_repeats_the_last_wager_played_not_one_that_was_cleared(table, seat_player,
                                                                      pit_boss):
    seat_player(table, 1)
    seat_player(table, 2)
    # round 1: seat 1 plays 10.00
    r1 = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=r1.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=r1.pk, house=True, by=pit_boss)
    services.round_settle(round_id=r1.pk, by=pit_boss, outcomes={"1": "push"})
    # round 2: seat 1 puts out 50.00, then takes it back and sits the round out
    r2 = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=r2.pk, seat=1, amount=5_000, by=pit_boss)
    services.wager_clear(round_id=r2.pk, seat=1, by=pit_boss)
    services.wager_place(round_id=r2.pk, seat=2, amount=1_000, by=pit_boss)
    services.banker_set(round_id=r2.pk, house=True, by=pit_boss)
    services.round_settle(round_id=r2.pk, by=pit_boss, outcomes={"2": "push"})

    # round 3: "Re-Bet places exactly the chips you wagered in the last hand" (German seed)
    r3 = services.round_open(table_id=table.pk, by=pit_boss)
    wager = services.wager_rebet(round_id=r3.pk, seat=1, by=pit_boss)

    assert wager.amount == 1_000, wager.amount  # 10.00 played, not the cleared 50.00


def test_a_wager_reads_its_seat_its_wager_and_the_account_with_the_rounds_lock(
        pit_boss, table, seat_player):
    # given a round open for betting and a funded player in seat 1
    player = seat_player(table, 1, funds=10_000)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)

    # when the wager is placed
    with CaptureQueriesContext(connection) as statements, round_trips() as trips:
        services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)

    # then, one statement a round trip: its savepoint (inside the test's transaction); the
    # round's lock, the seat's lock, the player's exclusions (casino.exclusions), whether
    # the seat has a wager, the player's account; the hold (the ledger's call, without a
    # savepoint of its own); the wager, its event; the release. The exclusions' read runs
    # here for the third time on this connection (the deposit and the seating ran it
    # first), so psycopg prepares it now (after prepare_threshold 2 runs,
    # casino/settings.py): one round trip more, once.
    assert (len(statements), trips.count) == (10, 11), trips
    assert available(player) == 9_000
    assert Wager.objects.get(round=round_).hold_id == Hold.objects.get(
        ref=f"round:{round_.pk}").pk


def test_a_wager_short_of_funds_is_refused_with_its_figures_and_changes_nothing(
        pit_boss, table, seat_player):
    # given a player with 5.00 in seat 1 and another wager placed in seat 2
    player = seat_player(table, 1, funds=500)
    seat_player(table, 2, funds=10_000)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=1_000, by=pit_boss)

    # when seat 1 wagers 10.00, alone and then inside a larger transaction
    for inside in (False, True):
        with pytest.raises(Conflict) as refused:
            if inside:
                with transaction.atomic():
                    services.wager_place(round_id=round_.pk, seat=1, amount=1_000,
                                         by=pit_boss)
            else:
                services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)

        # then the refusal names the player and the figures, and nothing was written
        assert refused.value.code == "insufficient_funds"
        assert refused.value.message.startswith(f"{player.name} (account #")
        assert "has 5.00 EUR available; this needs 10.00 EUR." in refused.value.message
        assert refused.value.detail["shortfall"] == "5.00"
        assert available(player) == 500
        assert [w.seat for w in round_.wagers.all()] == [2]
        assert not Hold.objects.filter(ref=f"round:{round_.pk}", memo="wager, seat 1").exists()
    # and the round goes on: the other seat's wager stands, a wager within the funds is held
    services.wager_place(round_id=round_.pk, seat=1, amount=500, by=pit_boss)
    assert available(player) == 0
