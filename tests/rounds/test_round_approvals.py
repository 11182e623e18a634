"""A round's request waiting for a second person is shown where the round is read (the API's
answer, the table screen) and the step it waits for is not taken around it; the approval
runs only for an asker still allowed to ask (issue 21)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client, override_settings

from casino import roles
from casino.services import staff_create
from casino.shared.approvals import Approval
from ledger.models import Entry
from rounds.models import Round
from tests.rounds.conftest import balances

pytestmark = pytest.mark.django_db

DUAL = override_settings(CASINO_DUAL_CONTROL=True)


def outcomes_waiting(dealer, table, seat_player):
    """A house-banked round at the banker step whose outcomes wait for a pit boss."""
    player = seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)
    asked = dealer.client.post(f"/api/v1/rounds/{round_id}/settle",
                               {"outcomes": {"1": "win"}}, format="json")
    assert asked.status_code == 202, asked.json()
    return player, round_id, asked.json()["id"]


@DUAL
def test_a_pending_settlement_is_shown_in_the_rounds_answer(
    dealer, pit_boss_client, table, seat_player
):
    _, round_id, approval_id = outcomes_waiting(dealer, table, seat_player)

    shown = dealer.get(round_id)["pending_approvals"]

    (request,) = shown
    assert request["id"] == approval_id and request["action"] == "rounds.settle_results"
    assert request["requested_by"] == dealer.client.user.username
    assert "win" in request["summary"] and request["requested_at"]
    listed = dealer.client.get(f"/api/v1/tables/{table.pk}/rounds").json()["results"]
    assert listed[0]["pending_approvals"] == shown
    # once decided it is gone
    pit_boss_client.post(f"/api/v1/approvals/{approval_id}/reject", {}, format="json")
    assert dealer.get(round_id)["pending_approvals"] == []


@DUAL
def test_a_pending_settlement_is_shown_on_the_table_screen(dealer, table, seat_player):
    _, _, approval_id = outcomes_waiting(dealer, table, seat_player)
    boss, _ = staff_create(username="screen-boss", role=roles.PIT_BOSS)
    client = Client()
    client.force_login(boss)

    page = client.get(f"/tables/{table.pk}/").content.decode()

    assert 'data-testid="pending-approvals"' in page
    assert f"Request #{approval_id}" in page and dealer.client.user.username in page


@DUAL
def test_a_round_whose_outcomes_wait_is_not_voided_dealt_or_rebanked_around_them(
    dealer, pit_boss_client, table, seat_player
):
    player, round_id, approval_id = outcomes_waiting(dealer, table, seat_player)
    before = balances(player)

    voided = pit_boss_client.post(f"/api/v1/rounds/{round_id}/void", {"reason": "dispute"},
                                  format="json")
    dealt = dealer.client.post(f"/api/v1/rounds/{round_id}/deal", {}, format="json")
    again = dealer.client.post(f"/api/v1/rounds/{round_id}/settle",
                               {"outcomes": {"1": "loss"}}, format="json")
    rebanked = dealer.client.post(f"/api/v1/rounds/{round_id}/banker", {"house": True},
                                  format="json")

    for refused in (voided, dealt, again, rebanked):
        assert refused.status_code == 409, refused.json()
        assert refused.json()["error"]["code"] == "approval_pending"
        assert refused.json()["error"]["detail"]["approval_id"] == approval_id
    round_ = Round.objects.get(pk=round_id)
    assert round_.state == "banker_set" and round_.entry_id is None
    assert balances(player) == before
    # rejected, the pit boss may void it
    pit_boss_client.post(f"/api/v1/approvals/{approval_id}/reject", {}, format="json")
    assert pit_boss_client.post(f"/api/v1/rounds/{round_id}/void", {"reason": "dispute"},
                                format="json").status_code == 200


def test_outcomes_asked_under_dual_control_cannot_be_settled_around_once_it_is_off(
    dealer, table, seat_player, settings
):
    # given outcomes waiting for a pit boss, and dual control then switched off
    settings.CASINO_DUAL_CONTROL = True
    player, round_id, _ = outcomes_waiting(dealer, table, seat_player)
    before = balances(player)
    settings.CASINO_DUAL_CONTROL = False

    # when the dealer settles the round with other outcomes, which now need no approval
    response = dealer.client.post(f"/api/v1/rounds/{round_id}/settle",
                                  {"outcomes": {"1": "loss"}}, format="json")

    # then the waiting request is decided first
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "approval_pending"
    assert Round.objects.get(pk=round_id).state == "banker_set"
    assert balances(player) == before


def test_a_pending_reversal_is_shown_and_runs_once_approved(
    dealer, pit_boss_client, staff_client, table, seat_player, settings
):
    player = seat_player(table, 1)
    settled = dealer.house_round(table, {1: "10.00"}, {"1": "win"})
    settings.CASINO_DUAL_CONTROL = True
    asked = pit_boss_client.post(f"/api/v1/rounds/{settled['id']}/reverse",
                                 {"reason": "wrong seat"}, format="json")
    assert asked.status_code == 202
    (shown,) = dealer.get(settled["id"])["pending_approvals"]
    assert shown["action"] == "rounds.reverse" and shown["id"] == asked.json()["id"]
    won = balances(player)

    approved = staff_client(roles.PIT_BOSS).post(
        f"/api/v1/approvals/{asked.json()['id']}/approve", {}, format="json")

    assert approved.status_code == 200, approved.json()
    round_ = Round.objects.get(pk=settled["id"])
    assert round_.state == "reversed"
    assert Entry.objects.get(reverses_id=round_.entry_id).created_by == pit_boss_client.user
    assert balances(player) != won
    assert dealer.get(settled["id"])["pending_approvals"] == []


@DUAL
def test_outcomes_whose_dealer_was_deactivated_are_not_settled(
    dealer, pit_boss_client, table, seat_player
):
    player, round_id, approval_id = outcomes_waiting(dealer, table, seat_player)
    before = balances(player)
    user = dealer.client.user
    user.is_active = False
    user.save(update_fields=["is_active"])

    refused = pit_boss_client.post(f"/api/v1/approvals/{approval_id}/approve", {},
                                   format="json")

    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "asker_not_allowed"
    assert Approval.objects.get(pk=approval_id).status == "pending"
    assert Round.objects.get(pk=round_id).state == "banker_set"
    assert balances(player) == before


def test_a_reversal_whose_pit_boss_lost_the_role_is_not_run(
    dealer, pit_boss_client, staff_client, table, seat_player, settings
):
    player = seat_player(table, 1)
    settled = dealer.house_round(table, {1: "10.00"}, {"1": "win"})
    settings.CASINO_DUAL_CONTROL = True
    approval_id = pit_boss_client.post(f"/api/v1/rounds/{settled['id']}/reverse",
                                       {"reason": "wrong seat"}, format="json").json()["id"]
    won = balances(player)
    pit_boss_client.user.groups.set([Group.objects.get(name=roles.DEALER)])

    refused = staff_client(roles.PIT_BOSS).post(f"/api/v1/approvals/{approval_id}/approve",
                                                {}, format="json")

    assert refused.status_code == 409
    assert refused.json()["error"]["detail"]["reason"] == "permission"
    assert Round.objects.get(pk=settled["id"]).state == "settled"
    assert balances(player) == won


@DUAL
def test_at_the_console_a_round_whose_outcomes_wait_is_not_voided(
    dealer, table, seat_player
):
    player, round_id, approval_id = outcomes_waiting(dealer, table, seat_player)
    before = balances(player)
    boss, _ = staff_create(username="console-boss", role=roles.PIT_BOSS)
    client = Client()
    client.force_login(boss)

    page = client.post(f"/rounds/{round_id}/void/", {"reason": "dispute"})

    assert f"Request #{approval_id}" in page.content.decode()
    assert "waits for a decision" in page.content.decode()
    assert Round.objects.get(pk=round_id).state == "banker_set"
    assert balances(player) == before
