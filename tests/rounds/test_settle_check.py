"""A results-only settlement is checked once (rounds.services.settling.round_outcomes_check):
the request for a second person's approval refuses what the settlement would refuse, with
the same answer, and neither files nor moves anything."""

from __future__ import annotations

import pytest
from django.test import override_settings

from casino.shared.approvals import Approval
from ledger.models import Entry
from rounds.models import Round

pytestmark = pytest.mark.django_db


def _settle(dealer, round_id: int, outcomes: dict, dual: bool) -> dict:
    with override_settings(CASINO_DUAL_CONTROL=dual):
        response = dealer.client.post(f"/api/v1/rounds/{round_id}/settle",
                                      {"outcomes": outcomes}, format="json")
    return {"status": response.status_code, "code": response.json()["error"]["code"]}


@pytest.mark.parametrize("dual", [False, True], ids=["settled-at-once", "asking-approval"])
def test_a_banker_set_with_no_wager_against_it_is_refused_at_either_door(
        dealer, table, seat_player, dual):
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.banker(round_id, house=True)  # nobody wagered

    answer = _settle(dealer, round_id, {}, dual)

    assert answer == {"status": 409, "code": "no_wagers"}
    assert not Approval.objects.exists()
    assert Round.objects.get(pk=round_id).state == Round.State.BANKER_SET


@pytest.mark.parametrize("dual", [False, True], ids=["settled-at-once", "asking-approval"])
def test_a_round_dealt_with_cards_is_refused_outcomes_alike_at_either_door(
        dealer, make_table, seat_player, dual):
    # a table that deals with cards and does not record results
    table = make_table(deal_modes=["electronic", "physical"])
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)
    dealer.deal(round_id)

    answer = _settle(dealer, round_id, {"1": "win"}, dual)

    assert answer == {"status": 409, "code": "wrong_state"}
    assert not Approval.objects.exists()
    assert not Entry.objects.filter(ref=f"round:{round_id}").exists()


@pytest.mark.parametrize("dual", [False, True], ids=["settled-at-once", "asking-approval"])
def test_outcomes_for_other_positions_are_refused_alike_at_either_door(
        dealer, table, seat_player, dual):
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)

    answer = _settle(dealer, round_id, {"1": "win", "dealer": "loss"}, dual)

    assert answer == {"status": 400, "code": "invalid"}
    assert not Approval.objects.exists()
