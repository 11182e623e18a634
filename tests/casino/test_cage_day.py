"""The cage's cap counts the player's gaming day, corrections included; an approval reaches
the service explicitly and runs only for an asker still allowed to ask; a pending request
is not walked around (issue 21). Through the API, the console and the services."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.db import connections
from django.test import Client, override_settings

from casino import roles
from casino.models import Player
from casino.selectors import player_balance
from casino.services import player_deposit, staff_create
from casino.shared.approvals import Approval
from casino.shared.errors import Conflict
from ledger.models import Account, Entry
from ledger.services import account_get_or_create, entry_post
from tests.players import IDENTITY_FIELDS, make_player

pytestmark = pytest.mark.django_db


def register(client, name="Anna"):
    response = client.post("/api/v1/players", {"name": name, **IDENTITY_FIELDS}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def move(client, player_id, kind, amount):
    return client.post(f"/api/v1/players/{player_id}/{kind}", {"amount": amount},
                       format="json")


def correct(client, player_id, entry_id, reason="slip keyed twice"):
    return client.post(f"/api/v1/players/{player_id}/corrections",
                       {"entry": entry_id, "reason": reason}, format="json")


def approve(client, approval_id):
    return client.post(f"/api/v1/approvals/{approval_id}/approve", {}, format="json")


def posted(player_id):
    return player_balance(Player.objects.get(pk=player_id)).posted


def won_at_a_table(player_id, amount):
    table = account_get_or_create(kind="table_bankroll", currency="EUR", ref="table:1")
    account = Account.objects.get(kind="player", ref=f"player:{player_id}")
    entry_post(kind="payout", memo="", ref=f"player:{player_id}", by=None,
               lines=[(table.pk, -amount), (account.pk, amount)])


def funded(cage_client, pit_boss_client, amount="20000.00"):
    """A player holding ``amount``, deposited with a pit boss's approval."""
    player = register(cage_client)
    asked = move(cage_client, player, "deposits", amount)
    assert asked.status_code == 202, asked.json()
    assert approve(pit_boss_client, asked.json()["id"]).status_code == 200
    return player


# --- finding 1: the cap counts the player's gaming day -------------------------------------

def test_twelve_deposits_of_1000_in_a_day_the_eleventh_waits_for_a_pit_boss(
    cage_client, pit_boss_client
):
    player = register(cage_client)

    # ten deposits of 1,000.00 reach the 10,000.00 cap: each moves alone
    for _ in range(10):
        assert move(cage_client, player, "deposits", "1000.00").status_code == 201
    # the eleventh would bring the day to 11,000.00: it waits
    eleventh = move(cage_client, player, "deposits", "1000.00")
    # the twelfth would pass the line by itself too: it waits as a request of its own
    twelfth = move(cage_client, player, "deposits", "1000.00")

    assert eleventh.status_code == 202, eleventh.json()
    assert eleventh.json()["action"] == "cage.deposit"
    assert twelfth.status_code == 202, twelfth.json()
    assert twelfth.json()["id"] != eleventh.json()["id"]
    assert Entry.objects.filter(kind="deposit").count() == 10
    assert posted(player) == 1_000_000
    # the pit boss approves each on its own; past the cap, the next one waits too
    assert approve(pit_boss_client, eleventh.json()["id"]).status_code == 200
    assert approve(pit_boss_client, twelfth.json()["id"]).status_code == 200
    assert posted(player) == 1_200_000
    assert move(cage_client, player, "deposits", "1000.00").status_code == 202
    assert Entry.objects.filter(kind="deposit").count() == 12


def test_withdrawals_count_apart_from_deposits(cage_client, pit_boss_client):
    player = funded(cage_client, pit_boss_client)

    # the day's 20,000.00 in does not make a withdrawal wait; the day's out does
    assert move(cage_client, player, "withdrawals", "6000.00").status_code == 201
    assert move(cage_client, player, "withdrawals", "4000.00").status_code == 201
    waiting = move(cage_client, player, "withdrawals", "0.01")

    assert waiting.status_code == 202
    assert posted(player) == 1_000_000


def test_the_day_is_the_gaming_day(cage_client, monkeypatch):
    # given 9,000.00 deposited alone today: 1,000.01 more would wait
    player = register(cage_client)
    assert move(cage_client, player, "deposits", "9000.00").status_code == 201

    # when the next gaming day has begun (the clock moved on: ledger rows keep their time)
    import casino.services
    from casino.shared.gaming_day import gaming_day_of
    monkeypatch.setattr(casino.services, "gaming_day_of",
                        lambda: gaming_day_of() + timedelta(days=1))

    # then yesterday's 9,000.00 no longer counts: 10,000.00 moves alone
    assert move(cage_client, player, "deposits", "10000.00").status_code == 201
    assert posted(player) == 1_900_000


# --- finding 1: a correction at the cage waits for a pit boss above the cap ----------------

def test_one_clerk_cannot_credit_back_an_approved_15000_withdrawal_with_a_correction(
    cage_client, pit_boss_client, staff_client
):
    # given 15,000.00 paid out with a pit boss's approval
    player = funded(cage_client, pit_boss_client)
    asked = move(cage_client, player, "withdrawals", "15000.00")
    assert asked.status_code == 202
    assert approve(pit_boss_client, asked.json()["id"]).status_code == 200
    withdrawal = Entry.objects.get(kind="withdrawal")
    assert posted(player) == 500_000

    # when the clerk "corrects" it alone
    corrected = correct(cage_client, player, withdrawal.pk, reason="not handed out")

    # then it waits for a pit boss: nothing is credited, another clerk cannot approve it
    assert corrected.status_code == 202, corrected.json()
    assert corrected.json()["action"] == "cage.correction"
    assert posted(player) == 500_000
    assert not Entry.objects.filter(reverses=withdrawal).exists()
    other_clerk = approve(staff_client(roles.CAGE), corrected.json()["id"])
    assert other_clerk.status_code in (403, 404)
    assert posted(player) == 500_000
    # a pit boss approves it: the ledger shows the correction, by the clerk who asked
    assert approve(pit_boss_client, corrected.json()["id"]).status_code == 200
    reversal = Entry.objects.get(reverses=withdrawal)
    assert reversal.created_by == cage_client.user
    assert posted(player) == 2_000_000


def test_a_correction_never_lowers_the_day_so_washing_a_withdrawal_waits(
    cage_client, pit_boss_client
):
    # given a player who won 20,000.00 at a table, then 9,000.00 paid out and "corrected"
    # (credited back) by the clerk alone
    player = register(cage_client)
    won_at_a_table(player, 2_000_000)
    assert move(cage_client, player, "withdrawals", "9000.00").status_code == 201
    withdrawal = Entry.objects.get(kind="withdrawal")
    assert correct(cage_client, player, withdrawal.pk).status_code == 201

    # when the clerk pays the same 9,000.00 out again
    again = move(cage_client, player, "withdrawals", "9000.00")

    # then the day has 18,000.00 out: it waits, and the player keeps 20,000.00
    assert again.status_code == 202
    assert posted(player) == 2_000_000
    assert Entry.objects.filter(kind="withdrawal").count() == 1


def test_a_correction_counts_in_the_direction_it_moves_the_money(
    cage_client, pit_boss_client
):
    # given 9,500.00 deposited, and 600.00 more deposited alone (the day's in: 10,100.00?)
    player = register(cage_client)
    assert move(cage_client, player, "deposits", "9500.00").status_code == 201
    deposit = Entry.objects.get(kind="deposit")

    # when the deposit is corrected (9,500.00 taken back off the player: the day's out)
    assert correct(cage_client, player, deposit.pk).status_code == 201

    # then the day's in is still 9,500.00: 600.00 more would pass the cap and waits
    assert move(cage_client, player, "deposits", "600.00").status_code == 202
    assert posted(player) == 0


# --- finding 3: an approval runs only for an asker still allowed to ask -------------------

def test_a_request_whose_asker_was_deactivated_does_not_run(cage_client, pit_boss_client):
    player = register(cage_client)
    asked = move(cage_client, player, "deposits", "15000.00")
    assert asked.status_code == 202
    clerk = cage_client.user
    clerk.is_active = False
    clerk.save(update_fields=["is_active"])

    refused = approve(pit_boss_client, asked.json()["id"])

    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "asker_not_allowed" and error["detail"]["reason"] == "inactive"
    assert Approval.objects.get().status == "pending"
    assert not Entry.objects.filter(kind="deposit").exists()
    assert posted(player) == 0
    # the pit boss rejects it; nothing moves
    rejected = pit_boss_client.post(f"/api/v1/approvals/{asked.json()['id']}/reject",
                                    {"note": "clerk left"}, format="json")
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    assert posted(player) == 0


def test_a_request_whose_asker_lost_the_role_does_not_run(cage_client, pit_boss_client):
    player = funded(cage_client, pit_boss_client)
    asked = move(cage_client, player, "withdrawals", "15000.00")
    assert asked.status_code == 202
    cage_client.user.groups.remove(Group.objects.get(name=roles.CAGE))

    refused = approve(pit_boss_client, asked.json()["id"])

    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "asker_not_allowed"
    assert refused.json()["error"]["detail"]["reason"] == "permission"
    assert Approval.objects.get(pk=asked.json()["id"]).status == "pending"
    assert not Entry.objects.filter(kind="withdrawal").exists()
    assert posted(player) == 2_000_000


# --- a pending request is not walked around ------------------------------------------------

def test_a_pending_withdrawal_leaves_payouts_within_the_line_but_not_past_it(
    cage_client, pit_boss_client, staff_client
):
    player = funded(cage_client, pit_boss_client)
    asked = move(cage_client, player, "withdrawals", "15000.00")
    assert asked.status_code == 202

    # another clerk pays out within the line while the request waits: it goes through
    direct = move(staff_client(roles.CAGE), player, "withdrawals", "5000.00")
    # and past the line again (5,000.00 + 6,000.00 today): it waits, nothing paid
    past = move(staff_client(roles.CAGE), player, "withdrawals", "6000.00")

    assert direct.status_code == 201, direct.json()
    assert past.status_code == 202, past.json()
    assert "brings today's withdrawals to 11,000.00 EUR" in past.json()["summary"]
    assert Entry.objects.filter(kind="withdrawal").count() == 1
    assert posted(player) == 1_500_000
    # the first request, approved now, finds 15,000.00 still there: paid
    assert approve(pit_boss_client, asked.json()["id"]).status_code == 200
    assert posted(player) == 0
    # the second cannot be paid from nothing: refused, it stays pending, nothing moves
    refused = approve(pit_boss_client, past.json()["id"])
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "insufficient_funds"
    assert Approval.objects.get(pk=past.json()["id"]).status == "pending"
    assert Entry.objects.filter(kind="withdrawal").count() == 2


# --- the service checks the approval it is handed ------------------------------------------

def test_the_service_refuses_a_large_deposit_without_an_approval_and_with_another_one(
    cage_client, pit_boss_client
):
    player = register(cage_client)
    asked = move(cage_client, player, "deposits", "15000.00")
    approval = Approval.objects.get(pk=asked.json()["id"])
    approval.decided_by = pit_boss_client.user  # as approval_decide hands it over

    with pytest.raises(Conflict) as without:
        player_deposit(player_id=player, amount=1_500_000, by=cage_client.user)
    with pytest.raises(Conflict) as bigger:
        player_deposit(player_id=player, amount=5_000_000, by=cage_client.user,
                       approved_by=approval)
    with pytest.raises(Conflict) as by_the_approver:
        player_deposit(player_id=player, amount=1_500_000, by=pit_boss_client.user,
                       approved_by=approval)

    assert without.value.code == "approval_required"
    assert bigger.value.code == by_the_approver.value.code == "approval_mismatch"
    assert not Entry.objects.filter(kind="deposit").exists()


def test_an_approval_carries_out_one_operation_once(cage_client, pit_boss_client):
    player = register(cage_client)
    approval_id = move(cage_client, player, "deposits", "15000.00").json()["id"]
    assert approve(pit_boss_client, approval_id).status_code == 200
    approval = Approval.objects.get(pk=approval_id)

    with pytest.raises(Conflict) as again:
        player_deposit(player_id=player, amount=1_500_000, by=cage_client.user,
                       approved_by=approval)

    assert again.value.code == "approval_decided"
    assert Entry.objects.filter(kind="deposit").count() == 1
    assert posted(player) == 1_500_000


# --- the console: the same rules --------------------------------------------------------------

def test_at_the_console_the_eleventh_deposit_of_the_day_waits_and_says_the_days_total(db):
    clerk, _ = staff_create(username="clerk", role=roles.CAGE)
    client = Client()
    client.force_login(clerk)
    anna = make_player(name="Anna", currency="EUR", by=None)
    url = f"/cage/players/{anna.pk}/deposit/"

    for n in range(10):
        response = client.post(url, {"deposit-amount": "1000.00", "once": f"t{n}"})
        assert response.status_code == 302 and "/receipts/" in response["Location"]
    eleventh = client.post(url, {"deposit-amount": "1000.00", "once": "t10"}, follow=True)
    twelfth = client.post(url, {"deposit-amount": "500.00", "once": "t11"}, follow=True)
    # a payout from the 10,000.00 already there does not wait for the deposits
    paid = client.post(f"/cage/players/{anna.pk}/withdraw/",
                       {"withdraw-amount": "400.00", "once": "t12"})

    page = eleventh.content.decode()
    assert ("Deposit of 1,000.00 EUR for Anna: brings today&#x27;s deposits to 11,000.00 EUR, "
            "above the cage&#x27;s line of 10,000.00 EUR. It waits for a pit boss") in page
    assert "limit" not in page
    assert 'data-testid="pending-approvals"' in page
    assert "10,000.00 EUR credited" in page
    # the twelfth passes the line by itself too: a request of its own
    assert "brings today&#x27;s deposits to 10,500.00 EUR" in twelfth.content.decode()
    assert paid.status_code == 302 and "/receipts/" in paid["Location"]
    assert Entry.objects.filter(kind="deposit").count() == 10
    assert player_balance(anna).posted == 1_000_000 - 40_000
    waiting = Approval.objects.filter(status="pending").order_by("id")
    assert [a.params["amount_minor"] for a in waiting] == [100_000, 50_000]
    assert {a.requested_by for a in waiting} == {clerk}


# --- two clerks at once cannot both pass the cap on one reading ------------------------------

@pytest.mark.django_db(transaction=True)
@override_settings(CASINO_CAGE_APPROVAL_ABOVE="100.00")
def test_two_simultaneous_deposits_cannot_both_pass_the_days_cap():
    from casino.shared.approvals import action_submit

    player = make_player(name="Anna", currency="EUR", by=None)
    clerks = [staff_create(username=f"clerk-{n}", role=roles.CAGE)[0] for n in (1, 2)]
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def deposit(clerk) -> None:
        try:
            start.wait()
            done = action_submit(action="cage.deposit", by=clerk,
                                 params={"player_id": player.pk, "amount_minor": 6_000,
                                         "reference": ""})
            outcomes.append("moved" if done.approval is None else "waits")
        except Conflict as exc:
            outcomes.append(exc.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=deposit, args=(c,)) for c in clerks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["moved", "waits"]
    assert Entry.objects.filter(kind="deposit").count() == 1
    assert player_balance(player).posted == 6_000


def test_on_the_approvals_screen_a_request_of_a_deactivated_clerk_is_refused_in_words(
    cage_client, pit_boss_client
):
    player = register(cage_client)
    approval_id = move(cage_client, player, "deposits", "15000.00").json()["id"]
    clerk = cage_client.user
    clerk.is_active = False
    clerk.save(update_fields=["is_active"])
    client = Client()
    client.force_login(pit_boss_client.user)

    page = client.post(f"/approvals/{approval_id}/decide/", {"decision": "approve"},
                       follow=True)

    assert "cannot run" in page.content.decode() and "no longer active" in page.content.decode()
    assert Approval.objects.get(pk=approval_id).status == "pending"
    assert posted(player) == 0
