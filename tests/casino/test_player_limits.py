"""A player's own limits (casino.player_limits): lowering at once, raising after a wait, and
a wager past a limit refused in words by the wager's service, whatever door places it."""

from __future__ import annotations

import contextlib
import functools
import threading
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.test import override_settings
from django.utils import timezone

from casino import player_limits as limits_module
from casino import roles
from casino.models import PlayerLimit
from casino.player_limits import player_limits, player_limits_set
from casino.player_logins import player_login_give
from casino.services import staff_create
from casino.shared.errors import DomainError
from rounds import services
from rounds.models import Wager
from rounds.services import games
from tests.rounds.test_lock_order import Worker

pytestmark = pytest.mark.django_db

WAGER, LOSS = "wager_per_day", "loss_per_day"


@pytest.fixture
def anna(table, seat_player):
    player = seat_player(table, 1, funds=100_000, name="Anna Meyer")
    clerk, _ = staff_create(username="carla", role=roles.CAGE)
    player_login_give(player_id=player.pk, username="anna", password="felt-and-tiles-2026",
                      by=clerk)
    player.refresh_from_db()
    return player


def later(hours: float):
    return timezone.now() + timedelta(hours=hours)


def test_a_first_or_lower_limit_is_in_force_at_once_a_raise_after_24_hours(anna):
    player_limits_set(player_id=anna.pk, changes={WAGER: 5_000}, by=anna.user)
    assert player_limits(player_id=anna.pk)[WAGER].amount == 5_000

    player_limits_set(player_id=anna.pk, changes={WAGER: 9_000}, by=anna.user)
    state = player_limits(player_id=anna.pk)[WAGER]
    assert state.amount == 5_000
    assert state.pending is not None
    assert state.pending.amount == 9_000
    assert state.pending.effective_from - timezone.now() > timedelta(hours=23, minutes=59)
    assert player_limits(player_id=anna.pk, at=later(24.01))[WAGER].amount == 9_000

    player_limits_set(player_id=anna.pk, changes={WAGER: 3_000}, by=anna.user)
    assert player_limits(player_id=anna.pk)[WAGER].amount == 3_000
    # the lower limit replaced the raise still waiting: a day later it is still 30.00
    after = player_limits(player_id=anna.pk, at=later(25))[WAGER]
    assert (after.amount, after.pending) == (3_000, None)


def test_removing_a_limit_waits_too_and_the_same_amount_cancels_the_wait(anna):
    player_limits_set(player_id=anna.pk, changes={LOSS: 5_000}, by=anna.user)
    player_limits_set(player_id=anna.pk, changes={LOSS: None}, by=anna.user)
    state = player_limits(player_id=anna.pk)[LOSS]
    assert state.pending is not None
    assert (state.amount, state.pending.amount) == (5_000, None)
    assert player_limits(player_id=anna.pk, at=later(25))[LOSS].amount is None

    player_limits_set(player_id=anna.pk, changes={LOSS: 5_000}, by=anna.user)
    assert player_limits(player_id=anna.pk, at=later(25))[LOSS].amount == 5_000


@override_settings(PLAYER_LIMIT_RAISE_HOURS=2)
def test_the_wait_is_a_setting(anna):
    player_limits_set(player_id=anna.pk, changes={WAGER: 5_000}, by=anna.user)
    player_limits_set(player_id=anna.pk, changes={WAGER: 6_000}, by=anna.user)
    assert player_limits(player_id=anna.pk, at=later(2.01))[WAGER].amount == 6_000


def test_only_the_player_sets_their_limits(anna, pit_boss):
    with pytest.raises(DomainError) as refused:
        player_limits_set(player_id=anna.pk, changes={WAGER: 5_000}, by=pit_boss)
    assert refused.value.code == "permission_denied"
    assert not PlayerLimit.objects.exists()


def test_a_wager_past_the_daily_wager_limit_is_refused_in_words(anna, table, pit_boss):
    player_limits_set(player_id=anna.pk, changes={WAGER: 5_000}, by=anna.user)
    first = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=first.pk, seat=1, amount=4_200, by=pit_boss)
    services.banker_set(round_id=first.pk, house=True, by=pit_boss)
    services.round_settle(round_id=first.pk, by=pit_boss, outcomes={"1": "push"})
    second = services.round_open(table_id=table.pk, by=pit_boss)

    with pytest.raises(DomainError) as refused:
        services.wager_place(round_id=second.pk, seat=1, amount=1_000, by=pit_boss)

    assert refused.value.code == "limit_reached"
    assert refused.value.status == 409
    assert refused.value.message == ("Your daily wager limit of 50.00 EUR leaves 8.00 EUR "
                                     "today: a wager of 10.00 EUR is past it.")
    assert services.wager_place(round_id=second.pk, seat=1, amount=800, by=pit_boss)


def test_the_daily_loss_limit_counts_the_days_losses_and_the_wager(anna, table, pit_boss):
    player_limits_set(player_id=anna.pk, changes={LOSS: 5_000}, by=anna.user)
    first = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=first.pk, seat=1, amount=3_000, by=pit_boss)
    services.banker_set(round_id=first.pk, house=True, by=pit_boss)
    services.round_settle(round_id=first.pk, by=pit_boss, outcomes={"1": "loss"})
    second = services.round_open(table_id=table.pk, by=pit_boss)

    with pytest.raises(DomainError) as refused:
        services.wager_place(round_id=second.pk, seat=1, amount=2_500, by=pit_boss)

    assert refused.value.code == "limit_reached"
    assert "daily loss limit of 50.00 EUR leaves 20.00 EUR" in refused.value.message
    assert services.wager_place(round_id=second.pk, seat=1, amount=2_000, by=pit_boss)


def test_no_limit_no_refusal(anna, table, pit_boss):
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    assert services.wager_place(round_id=round_.pk, seat=1, amount=10_000, by=pit_boss)


@pytest.mark.parametrize("statement", ["UPDATE casino_playerlimit SET amount = 1",
                                       "DELETE FROM casino_playerlimit"])
def test_the_history_is_append_only_in_postgresql(anna, statement):
    player_limits_set(player_id=anna.pk, changes={WAGER: 5_000}, by=anna.user)
    with pytest.raises(IntegrityError, match="is history"), transaction.atomic(), \
            connection.cursor() as cursor:
        cursor.execute(statement)


def test_a_limit_of_nothing_is_refused_by_postgresql_too(anna):
    with pytest.raises(IntegrityError, match="player_limit_amount_positive"), \
            transaction.atomic():
        PlayerLimit.objects.create(player=anna, kind=WAGER, amount=0, set_at=timezone.now(),
                                   effective_from=timezone.now(), set_by=anna.user)


def test_a_player_with_a_loss_limit_cannot_bank_a_felt_past_it(anna, table, pit_boss,
                                                               seat_player):
    # given Anna's own daily loss limit of 5.00 and Bob's 100.00 against the bank
    player_limits_set(player_id=anna.pk, changes={"loss_per_day": 500}, by=anna.user)
    seat_player(table, 2, name="Bob")
    # (she may bank only after wagering against the house: a push, nothing lost)
    first = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=first.pk, seat=1, amount=200, by=pit_boss)
    services.banker_set(round_id=first.pk, house=True, by=pit_boss)
    services.round_settle(round_id=first.pk, by=pit_boss, outcomes={"1": "push"})
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=10_000, by=pit_boss)
    # when Anna banks (her money at stake: Bob's 100.00), then Bob wins
    refused = None
    try:
        services.banker_set(round_id=round_.pk, seat=1, by=pit_boss)
        services.round_settle(round_id=round_.pk, by=pit_boss, outcomes={"2": "win"})
    except DomainError as exc:
        refused = exc
    # then the limit she set was held: the bank (or the deal) is refused for it
    assert refused is not None and refused.code == "limit_reached", refused


@pytest.mark.slow  # two real connections, one waiting for the other's commit
@pytest.mark.django_db(transaction=True)
def test_two_wagers_at_once_cannot_pass_the_daily_wager_limit_together(anna, table,
                                                                        make_table, pit_boss,
                                                                        monkeypatch):
    # given Anna's own limit of 10.00 a day, seated at a live table and with a game open
    player_limits_set(player_id=anna.pk, changes={"wager_per_day": 1_000}, by=anna.user)
    online = make_table(name="Online 1", self_service=True, deal_modes=["electronic"])
    game = games.game_open(table_id=online.pk, player_id=anna.pk, by=anna.user).game
    live = services.round_open(table_id=table.pk, by=pit_boss)
    # both wagers read the day before either writes (what two requests at once may do)
    together = threading.Barrier(2)
    read = limits_module.player_played_day

    def read_then_wait(**kwargs):
        day = read(**kwargs)
        # With the player's row locked the second never reads before the first commits:
        # the barrier then breaks after its timeout, and that is the point.
        with contextlib.suppress(threading.BrokenBarrierError):
            together.wait(timeout=5)
        return day

    monkeypatch.setattr(limits_module, "player_played_day", read_then_wait)
    # when 8.00 at the live seat and 8.00 on her game go at once
    workers = [Worker(functools.partial(services.wager_place, round_id=live.pk, seat=1,
                                        amount=800, by=pit_boss)),
               Worker(functools.partial(games.game_deal, game_id=game.pk, player_id=anna.pk,
                                        amount=800, by=anna.user))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.finish()
    # then one of them is refused: 16.00 is past her 10.00
    wagered = sum(Wager.objects.filter(player=anna, state="active").values_list("amount",
                                                                               flat=True))
    assert wagered <= 1_000, ([repr(w.error) for w in workers], wagered)
