"""Edge cases of the money paths found in review; each of these once failed."""

from __future__ import annotations

import pytest
from django.test import override_settings

from casino.services import player_create, player_deposit
from casino.shared.money import MAX_MINOR
from rounds import services
from rounds.models import Round, Wager
from rounds.services import MAX_TABLE_BET

pytestmark = pytest.mark.django_db


# --- 1. any POST with a deeply nested JSON body is a 500 -------------------------------------

def test_a_deeply_nested_json_body_is_refused_not_a_server_error(table, pit_boss_client):
    round_ = services.round_open(table_id=table.pk, by=pit_boss_client.user)
    pit_boss_client.raise_request_exception = False

    response = pit_boss_client.post(f"/api/v1/rounds/{round_.pk}/wagers", "[" * 100_000,
                                    content_type="application/json")

    assert response.status_code == 400, response.status_code


def test_a_deeply_nested_json_body_with_an_idempotency_key_is_refused_not_a_server_error(
    table, pit_boss_client
):
    round_ = services.round_open(table_id=table.pk, by=pit_boss_client.user)
    pit_boss_client.raise_request_exception = False

    response = pit_boss_client.post(f"/api/v1/rounds/{round_.pk}/wagers", "[" * 100_000,
                                    content_type="application/json",
                                    HTTP_IDEMPOTENCY_KEY="deep-1")

    assert response.status_code == 400, response.status_code


# --- 2. Idempotency-Key on a path longer than the key table's column ------------------------

def test_an_idempotency_key_on_a_long_but_valid_path_places_the_wager_once(
    table, seat_player, pit_boss_client
):
    # given a wager route written with leading zeros in the round id (Django's <int:> reads it)
    player = seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss_client.user)
    path = "/api/v1/rounds/" + "0" * 600 + f"{round_.pk}/wagers"
    pit_boss_client.raise_request_exception = False

    # when it is posted with an Idempotency-Key
    response = pit_boss_client.post(path, {"seat": 1, "amount": "10"}, format="json",
                                    HTTP_IDEMPOTENCY_KEY="long-path")

    # then it is refused with a 4xx, never a 500
    assert 400 <= response.status_code < 500, response.status_code
    assert Wager.objects.filter(player=player).count() <= 1


# --- 3. rebet repeats a wager that was cleared, never played --------------------------------

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


# --- 4. a round's settlement reversed in the ledger: the round stays "settled" --------------

def test_reversing_a_rounds_entry_through_the_ledger_keeps_the_round_in_step(
    dealer, table, seat_player, pit_boss_client
):
    seat_player(table, 1)
    body = dealer.house_round(table, {1: "10"}, {"1": "loss"})
    round_id, entry_id = body["id"], body["settlement"]["entry"]

    ledger = pit_boss_client.post(f"/api/v1/ledger/entries/{entry_id}/reverse",
                                  {"reason": "wrong outcome"}, format="json")
    # the ledger refuses to reverse a round's entry behind the round's back...
    assert ledger.status_code == 409
    assert ledger.json()["error"]["code"] == "owned_entry"
    # ...and the round's own reversal records it
    rounds = pit_boss_client.post(f"/api/v1/rounds/{round_id}/reverse",
                                  {"reason": "wrong outcome"}, format="json")
    assert rounds.status_code == 200, rounds.json()
    assert Round.objects.get(pk=round_id).state == "reversed"


# --- 5. a reversed player-banked round does not count for the alternate rotation ------------

def test_with_alternate_rotation_a_reversed_player_bank_still_returns_the_bank_to_the_house(
    table, seat_player, pit_boss
):
    for n in (1, 2, 3):
        seat_player(table, n)
    r1 = services.round_open(table_id=table.pk, by=pit_boss)
    for n in (1, 2, 3):
        services.wager_place(round_id=r1.pk, seat=n, amount=1_000, by=pit_boss)
    services.banker_set(round_id=r1.pk, house=True, by=pit_boss)
    services.round_settle(round_id=r1.pk, by=pit_boss,
                          outcomes={"1": "push", "2": "push", "3": "push"})
    r2 = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=r2.pk, seat=3, amount=1_000, by=pit_boss)
    services.banker_set(round_id=r2.pk, seat=1, by=pit_boss)
    services.round_settle(round_id=r2.pk, by=pit_boss, outcomes={"3": "loss"})
    services.round_reverse(round_id=r2.pk, reason="wrong outcome keyed", by=pit_boss)

    # round 3 follows a player-banked round (played, then corrected in the ledger)
    r3 = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=r3.pk, seat=3, amount=1_000, by=pit_boss)

    from rounds.errors import BankerNotAllowed
    with pytest.raises(BankerNotAllowed):
        services.banker_set(round_id=r3.pk, seat=2, by=pit_boss)


# --- 6. table limits allow a round whose settlement can never be posted ----------------------

# The whales' funds are far above the cage's cap; the cap is not what this test is about.
@override_settings(CASINO_CAGE_APPROVAL_ABOVE="9999999999999.99")
def test_a_round_within_the_table_limits_can_always_be_settled(make_table, pit_boss):
    # given a table at the highest limit a table may have
    table = make_table(min_bet=200, max_bet=MAX_TABLE_BET)
    for n in (1, 2):
        player = player_create(name=f"Whale {n}", currency=table.currency, by=pit_boss)
        player_deposit(player_id=player.pk, amount=MAX_TABLE_BET, by=pit_boss)
        services.seat_take(table_id=table.pk, number=n, player_id=player.pk, by=pit_boss)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    for n in (1, 2):
        services.wager_place(round_id=round_.pk, seat=n, amount=MAX_TABLE_BET, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)

    # when both win, the house bankroll pays twice the maximum in one line
    services.round_settle(round_id=round_.pk, by=pit_boss, outcomes={"1": "win", "2": "win"})

    assert Round.objects.get(pk=round_.pk).state == "settled"


def test_a_table_limit_beyond_what_a_round_can_settle_is_refused(make_table):
    from casino.shared.errors import ValidationFailed

    with pytest.raises(ValidationFailed, match="The maximum bet may be at most"):
        make_table(max_bet=MAX_TABLE_BET + 1)
    assert MAX_TABLE_BET * 7 <= MAX_MINOR


# --- 7. circle rotation: the same player may keep the bank round after round -----------------

def test_with_circle_rotation_the_bank_moves_on_after_a_player_banked(make_table, seat_player,
                                                                       pit_boss):
    # "circle — each player in turn, then the house" (rules §7.1)
    table = make_table(bank_rotation="circle", banker_must_have_played=False)
    for n in (1, 2):
        seat_player(table, n)
    r1 = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=r1.pk, seat=2, amount=1_000, by=pit_boss)
    services.banker_set(round_id=r1.pk, seat=1, by=pit_boss)
    services.round_settle(round_id=r1.pk, by=pit_boss, outcomes={"2": "loss"})

    r2 = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=r2.pk, seat=2, amount=1_000, by=pit_boss)

    from rounds.errors import BankerNotAllowed
    with pytest.raises(BankerNotAllowed):
        services.banker_set(round_id=r2.pk, seat=1, by=pit_boss)  # seat 1 again, at once
