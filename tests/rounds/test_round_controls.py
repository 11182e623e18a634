"""Rounds under insider controls: owned entries stay owned (issue 8, finding 1), dual
control of reversals and results-only settlements, a dealer sees the players of the tables
they run, refused deals leave a trace."""

from __future__ import annotations

import pytest
from django.test import override_settings

from casino import roles
from casino.models import Refusal
from casino.services import staff_create
from ledger.models import Entry, Hold
from rounds.models import Round
from tests.rounds.conftest import Dealer, balances

pytestmark = pytest.mark.django_db

DUAL = override_settings(CASINO_DUAL_CONTROL=True)
WEAK = "2S 3H 4D 6C 8S 9H JD"
STRONG = "AS AH AD KS KH QS QH"


def physical_round(dealer: Dealer, table, wagers: dict[int, str], *, banker_seat=None,
                   seats_win: bool = True) -> dict:
    """A round dealt with chosen cards: every seat beats the dealer (or loses to it)."""
    round_id = dealer.open_round(table)["id"]
    for seat, amount in wagers.items():
        dealer.wager(round_id, seat, amount)
    if banker_seat is None:
        dealer.banker(round_id, house=True)
    else:
        dealer.banker(round_id, seat=banker_seat, house_stake="0")
    taken = set(WEAK.split()) | set(STRONG.split())
    rest = [c for c in (r + s for r in "AKQJT98765432" for s in "SHDC") if c not in taken]
    hands = {"dealer": WEAK if seats_win else STRONG}
    for n, seat in enumerate(sorted(wagers)):
        hands[str(seat)] = (STRONG if seats_win and n == 0 else
                            " ".join(rest[n * 7:(n + 1) * 7]))
    dealer.deal(round_id, {"hands": hands})
    for seat in wagers:
        dealer.hand(round_id, position=str(seat), house_way=True)
    return dealer.settle(round_id)


# --- finding 1: a round's reversal cannot be reversed through the ledger -------------------

def test_the_reversal_of_a_round_cannot_be_reversed_through_the_ledger(
    dealer, pit_boss_client, table, seat_player
):
    # given a house-banked round that seat 1 won, reversed with its round
    player = seat_player(table, 1)
    before = balances(player)
    settled = physical_round(dealer, table, {1: "10.00"})
    assert balances(player) != before
    reversed_ = pit_boss_client.post(f"/api/v1/rounds/{settled['id']}/reverse",
                                     {"reason": "wrong hands keyed"}, format="json").json()
    reversal_id = reversed_["settlement"]["reversal_entry"]
    assert balances(player) == before

    # when the pit boss reverses the reversal entry through the ledger
    response = pit_boss_client.post(f"/api/v1/ledger/entries/{reversal_id}/reverse",
                                    {"reason": "pay the win again"}, format="json")

    # then it is refused as the round's, the win is not paid again, and a trace is left
    assert response.status_code == 409, response.json()
    error = response.json()["error"]
    assert error["code"] == "owned_entry" and "/reverse" in error["message"]
    assert balances(player) == before
    assert not Entry.objects.filter(reverses_id=reversal_id).exists()
    assert Round.objects.get(pk=settled["id"]).state == "reversed"
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.ref) == (
        "ledger.entry_reverse", "owned_entry", f"entry:{reversal_id}")
    assert refusal.by == pit_boss_client.user and refusal.at is not None


# --- refusals leave a trace ----------------------------------------------------------------

def test_an_insolvent_bankers_refused_deal_leaves_one_trace_and_changes_nothing(
    dealer, table, seat_player
):
    banker = seat_player(table, 1, funds=5_000)
    other = seat_player(table, 2)
    physical_round(dealer, table, {1: "10.00"})  # seat 1 has played: may bank next
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "100.00")
    dealer.banker(round_id, seat=1, house_stake="0")
    before = (balances(banker, other), list(Hold.objects.values_list("pk", "status")))

    # with an Idempotency-Key, the request runs in a transaction that rolls back on refusal
    response = dealer.client.post(f"/api/v1/rounds/{round_id}/deal", {}, format="json",
                                  HTTP_IDEMPOTENCY_KEY="deal-1")

    assert response.status_code == 409 and response.json()["error"]["code"] == \
        "banker_insolvent"
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.ref, refusal.by) == (
        "round_deal", "banker_insolvent", f"round:{round_id}", dealer.client.user)
    assert refusal.detail["shortfall"] and refusal.at is not None
    assert (balances(banker, other), list(Hold.objects.values_list("pk", "status"))) == before
    assert Round.objects.get(pk=round_id).state == "banker_set"


def test_a_refused_round_reversal_leaves_a_trace(dealer, dealer_client, table, seat_player):
    seat_player(table, 1)
    settled = physical_round(dealer, table, {1: "10.00"})

    response = dealer_client.post(f"/api/v1/rounds/{settled['id']}/reverse",
                                  {"reason": "mine"}, format="json")

    assert response.status_code == 403
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.by) == (
        "rounds.reverse", "permission_denied", dealer_client.user)
    assert Round.objects.get(pk=settled["id"]).state == "settled"


# --- dual control --------------------------------------------------------------------------

@DUAL
def test_with_dual_control_a_round_reversal_waits_for_a_second_pit_boss(
    dealer, pit_boss_client, staff_client, table, seat_player
):
    player = seat_player(table, 1)
    before = balances(player)
    settled = physical_round(dealer, table, {1: "10.00"})
    after_win = balances(player)

    asked = pit_boss_client.post(f"/api/v1/rounds/{settled['id']}/reverse",
                                 {"reason": "wrong hands"}, format="json")
    assert asked.status_code == 202, asked.json()
    approval = asked.json()
    assert approval["status"] == "pending" and approval["action"] == "rounds.reverse"
    assert Round.objects.get(pk=settled["id"]).state == "settled"
    assert balances(player) == after_win

    own = pit_boss_client.post(f"/api/v1/approvals/{approval['id']}/approve", {},
                               format="json")
    assert own.status_code == 403 and own.json()["error"]["code"] == "own_request"
    assert Round.objects.get(pk=settled["id"]).state == "settled"

    second = staff_client(roles.PIT_BOSS)
    approved = second.post(f"/api/v1/approvals/{approval['id']}/approve", {"note": "seen"},
                           format="json")
    assert approved.status_code == 200, approved.json()
    body = approved.json()
    assert body["status"] == "approved" and body["decided_by"] == second.user.username
    assert body["result_ref"] == f"round:{settled['id']}"
    assert Round.objects.get(pk=settled["id"]).state == "reversed"
    assert balances(player) == before
    again = second.post(f"/api/v1/approvals/{approval['id']}/approve", {}, format="json")
    assert again.status_code == 409 and again.json()["error"]["code"] == "approval_decided"


@DUAL
def test_with_dual_control_a_dealers_outcomes_wait_for_a_pit_boss(
    dealer, dealer_client, pit_boss_client, table, seat_player
):
    player = seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)
    before = balances(player)  # the wager held

    asked = dealer.client.post(f"/api/v1/rounds/{round_id}/settle",
                               {"outcomes": {"1": "win"}}, format="json")
    assert asked.status_code == 202, asked.json()
    approval_id = asked.json()["id"]
    assert Round.objects.get(pk=round_id).state == "banker_set"
    assert balances(player) == before

    # another dealer holds no casino.approve_results
    refused = dealer_client.post(f"/api/v1/approvals/{approval_id}/approve", {},
                                 format="json")
    assert refused.status_code in (403, 404)
    # the dealer who asked sees the request; the pit boss approves it
    mine = dealer.client.get("/api/v1/approvals").json()["results"]
    assert [a["id"] for a in mine] == [approval_id]
    approved = pit_boss_client.post(f"/api/v1/approvals/{approval_id}/approve", {},
                                    format="json")
    assert approved.status_code == 200, approved.json()
    round_ = Round.objects.get(pk=round_id)
    assert round_.state == "settled" and round_.events.get(kind="settled").by == \
        dealer.client.user
    assert balances(player) != before


@DUAL
def test_with_dual_control_a_rejected_settlement_moves_nothing(
    dealer, pit_boss_client, table, seat_player
):
    player = seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)
    before = balances(player)  # the wager held
    approval_id = dealer.client.post(f"/api/v1/rounds/{round_id}/settle",
                                     {"outcomes": {"1": "win"}}, format="json").json()["id"]

    rejected = pit_boss_client.post(f"/api/v1/approvals/{approval_id}/reject",
                                    {"note": "cards say otherwise"}, format="json")

    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    assert Round.objects.get(pk=round_id).state == "banker_set"
    assert balances(player) == before


@DUAL
def test_with_dual_control_wrong_outcomes_are_refused_before_anything_is_filed(
    dealer, table, seat_player
):
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)

    response = dealer.client.post(f"/api/v1/rounds/{round_id}/settle",
                                  {"outcomes": {"2": "win"}}, format="json")

    assert response.status_code == 400
    assert dealer.client.get("/api/v1/approvals").json()["results"] == []


# --- least privilege: a dealer sees the players of the tables they run ---------------------

def test_a_dealer_does_not_list_every_player_and_balance(dealer_client, table, seat_player):
    player = seat_player(table, 1)

    assert dealer_client.get("/api/v1/players").status_code == 403
    assert dealer_client.get(f"/api/v1/players/{player.pk}").status_code == 403


def test_a_dealer_sees_the_players_of_a_table_they_run_and_no_other(
    dealer, make_table, seat_player, pit_boss_client
):
    mine, other = make_table(name="Mine"), make_table(name="Other")
    anna = seat_player(mine, 2, funds=12_345, name="Anna")
    seat_player(other, 1, name="Bram")
    url = f"/api/v1/tables/{mine.pk}/players"

    before = dealer.client.get(url)
    assert before.status_code == 403 and before.json()["error"]["code"] == "not_your_table"

    dealer.open_round(mine)
    players = dealer.client.get(url)

    assert players.status_code == 200
    assert players.json() == [{"seat": 2, "player": anna.pk, "name": "Anna", "balance": {
        "posted": "123.45", "held": "0.00", "available": "123.45", "currency": "EUR"}}]
    assert dealer.client.get(f"/api/v1/tables/{other.pk}/players").status_code == 403
    # a pit boss sees any table's players
    assert pit_boss_client.get(f"/api/v1/tables/{other.pk}/players").status_code == 200


def test_a_dealer_relieving_another_runs_the_table_from_their_first_step(
    dealer, make_table, seat_player
):
    table = make_table()
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    _, token = staff_create(username="relief", role=roles.DEALER)
    relief = Dealer(type(dealer.client)())
    relief.client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    url = f"/api/v1/tables/{table.pk}/players"
    assert relief.client.get(url).status_code == 403

    relief.wager(round_id, 1, "10.00")

    assert relief.client.get(url).status_code == 200


# --- the services hold dual control themselves, whoever calls them ---------------------------

@DUAL
def test_with_dual_control_a_round_reversed_by_calling_the_service_directly_is_refused(
    dealer, pit_boss_client, table, seat_player
):
    from casino.shared.errors import Conflict
    from rounds import services

    player = seat_player(table, 1)
    settled = physical_round(dealer, table, {1: "10.00"})
    after_win = balances(player)

    with pytest.raises(Conflict) as refused:
        services.round_reverse(round_id=settled["id"], reason="wrong hands",
                               by=pit_boss_client.user)

    assert refused.value.code == "approval_required"
    assert Round.objects.get(pk=settled["id"]).state == "settled"
    assert balances(player) == after_win


@DUAL
def test_with_dual_control_outcomes_given_to_the_service_directly_are_refused(
    dealer, table, seat_player
):
    from casino.shared.errors import Conflict
    from rounds import services

    player = seat_player(table, 1)
    before = balances(player)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)

    with pytest.raises(Conflict) as refused:
        services.round_settle(round_id=round_id, by=dealer.client.user,
                              outcomes={"1": "win"})

    assert refused.value.code == "approval_required"
    assert Round.objects.get(pk=round_id).state == "banker_set"
    assert balances(player)[0][0] == before[0][0]  # nothing posted


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
