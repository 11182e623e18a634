"""The cage under insider controls: its movements are corrected only at the cage (issue 8,
finding 2), large movements wait for a pit boss, dual control of reversals, the cage reads
players' accounts and not the house's, refusals (and failed logins) leave a trace."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.test import Client, override_settings

from casino import roles
from casino.models import Refusal
from casino.services import staff_create
from casino.shared.approvals import Approval
from ledger.models import Account, Entry
from ledger.services import account_get_or_create, entry_post
from tests.players import IDENTITY_FIELDS

pytestmark = pytest.mark.django_db

DUAL = override_settings(CASINO_DUAL_CONTROL=True)


def register(client, name="Anna"):
    response = client.post("/api/v1/players", {"name": name, **IDENTITY_FIELDS}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def move(client, player_id, kind, amount):
    return client.post(f"/api/v1/players/{player_id}/{kind}", {"amount": amount},
                       format="json")


def available(client, player_id):
    return client.get(f"/api/v1/players/{player_id}").json()["balance"]["available"]


def correct(client, player_id, entry_id, reason="slip keyed twice"):
    return client.post(f"/api/v1/players/{player_id}/corrections",
                       {"entry": entry_id, "reason": reason}, format="json")


# --- finding 2: a pit boss alone cannot credit a player by reversing a withdrawal ----------

def test_a_pit_boss_cannot_reverse_a_cage_withdrawal_through_the_ledger(
    cage_client, pit_boss_client
):
    # given 100.00 deposited and 100.00 paid out in cash
    player = register(cage_client)
    assert move(cage_client, player, "deposits", "100.00").status_code == 201
    withdrawal = move(cage_client, player, "withdrawals", "100.00").json()

    # when the pit boss reverses the withdrawal entry
    response = pit_boss_client.post(f"/api/v1/ledger/entries/{withdrawal['id']}/reverse",
                                    {"reason": "give it back"}, format="json")

    # then it is refused, pointing at the cage, the player is not credited, a trace is left
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "owned_entry" and "/corrections" in error["message"]
    assert available(cage_client, player) == "0.00"
    assert not Entry.objects.filter(reverses_id=withdrawal["id"]).exists()
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.by) == (
        "ledger.entry_reverse", "owned_entry", pit_boss_client.user)


def test_the_cage_corrects_its_own_movement_with_a_reason(cage_client, pit_boss_client):
    player = register(cage_client)
    move(cage_client, player, "deposits", "100.00")
    withdrawal = move(cage_client, player, "withdrawals", "100.00").json()

    response = correct(cage_client, player, withdrawal["id"], reason="notes not handed out")

    assert response.status_code == 201, response.json()
    entry = response.json()
    assert entry["reverses"] == withdrawal["id"] and entry["reason"] == "notes not handed out"
    assert entry["created_by"] == cage_client.user.username
    assert available(cage_client, player) == "100.00"
    # once only; a correction is never corrected (a new movement says what happened)
    again = correct(cage_client, player, withdrawal["id"])
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_reversed"
    undo = correct(cage_client, player, entry["id"])
    assert undo.status_code == 409
    assert undo.json()["error"]["code"] == "reversal_not_reversible"
    # nor through the ledger: the correction belongs to the cage as well
    ledger = pit_boss_client.post(f"/api/v1/ledger/entries/{entry['id']}/reverse",
                                  {"reason": "undo"}, format="json")
    assert ledger.status_code == 409 and ledger.json()["error"]["code"] == "owned_entry"
    assert available(cage_client, player) == "100.00"
    assert Refusal.objects.filter(action="cage.correction").count() == 2


def test_a_correction_needs_a_reason_the_players_entry_and_the_cage(
    cage_client, pit_boss_client
):
    anna, bram = register(cage_client, "Anna"), register(cage_client, "Bram")
    deposit = move(cage_client, anna, "deposits", "50.00").json()

    assert correct(cage_client, anna, deposit["id"], reason=" ").status_code == 400
    assert correct(cage_client, bram, deposit["id"]).status_code == 404
    assert correct(pit_boss_client, anna, deposit["id"]).status_code == 403
    assert available(cage_client, anna) == "50.00"


def test_only_a_cage_movement_is_corrected_at_the_cage(cage_client):
    player = register(cage_client)
    account = Account.objects.get(ref=f"player:{player}")
    table = account_get_or_create(kind="table_bankroll", currency="EUR", ref="table:9")
    win = entry_post(kind="payout", memo="", ref=f"player:{player}", by=None,
                     lines=[(table.pk, -500), (account.pk, 500)])

    response = correct(cage_client, player, win.pk)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "not_a_cage_movement"


# --- a per-movement cap: above it a pit boss approves ----------------------------------------

def test_a_deposit_up_to_the_cap_moves_at_once(cage_client):
    player = register(cage_client)

    assert move(cage_client, player, "deposits", "10000.00").status_code == 201
    assert available(cage_client, player) == "10000.00"


def test_a_deposit_above_the_cap_waits_for_a_pit_boss(cage_client, staff_client,
                                                      pit_boss_client):
    player = register(cage_client)

    asked = move(cage_client, player, "deposits", "10000.01")

    assert asked.status_code == 202, asked.json()
    approval = asked.json()
    assert approval["status"] == "pending" and approval["action"] == "cage.deposit"
    # what was asked, in the unit: no minor units at the edge
    assert approval["params"]["amount"] == "10000.01"
    assert approval["params"]["currency"] == "EUR"
    assert not [k for k in approval["params"] if k.endswith("_minor")]
    assert available(cage_client, player) == "0.00"
    assert not Entry.objects.filter(kind="deposit").exists()
    # neither the clerk who asked nor another clerk may approve it
    for clerk in (cage_client, staff_client(roles.CAGE)):
        refused = clerk.post(f"/api/v1/approvals/{approval['id']}/approve", {},
                             format="json")
        assert refused.status_code in (403, 404)
    assert available(cage_client, player) == "0.00"

    approved = pit_boss_client.post(f"/api/v1/approvals/{approval['id']}/approve", {},
                                    format="json")

    assert approved.status_code == 200, approved.json()
    entry = Entry.objects.get(kind="deposit")
    assert approved.json()["result_ref"] == f"entry:{entry.pk}"
    assert entry.created_by == cage_client.user  # the clerk who took the cash
    assert available(cage_client, player) == "10000.01"


@override_settings(CASINO_CAGE_APPROVAL_ABOVE="50.00")
def test_the_cap_is_a_setting_and_a_withdrawal_beyond_the_funds_is_refused_at_once(
    cage_client, pit_boss_client
):
    player = register(cage_client)
    move(cage_client, player, "deposits", "50.00")

    beyond = move(cage_client, player, "withdrawals", "60.00")
    assert beyond.status_code == 409 and beyond.json()["error"]["code"] == \
        "insufficient_funds"
    assert not Approval.objects.exists()

    asked = move(cage_client, player, "deposits", "50.01")
    assert asked.status_code == 202
    rejected = pit_boss_client.post(f"/api/v1/approvals/{asked.json()['id']}/reject",
                                    {"note": "no source of funds"}, format="json")
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    assert available(cage_client, player) == "50.00"


def test_the_database_refuses_an_approval_by_the_person_who_asked(cage_client):
    player = register(cage_client)
    approval_id = move(cage_client, player, "deposits", "20000.00").json()["id"]

    with pytest.raises(IntegrityError), transaction.atomic():
        Approval.objects.filter(pk=approval_id).update(
            status="approved", decided_by=cage_client.user, decided_at="2026-01-01T00:00Z")


# --- dual control of ledger reversals ---------------------------------------------------------

def posted_payout():
    cage = account_get_or_create(kind="cage", currency="EUR")
    table = account_get_or_create(kind="table_bankroll", currency="EUR", ref="table:1")
    player = account_get_or_create(kind="player", currency="EUR", ref="player:99")
    entry_post(kind="adjustment", memo="", by=None, lines=[(cage.pk, -1000), (player.pk, 1000)])
    return player, entry_post(kind="payout", memo="", by=None,
                              lines=[(table.pk, -500), (player.pk, 500)])


@DUAL
def test_with_dual_control_a_ledger_reversal_waits_for_a_second_pit_boss(
    pit_boss_client, staff_client
):
    player, payout = posted_payout()

    asked = pit_boss_client.post(f"/api/v1/ledger/entries/{payout.pk}/reverse",
                                 {"reason": "paid the wrong seat"}, format="json")
    assert asked.status_code == 202, asked.json()
    approval_id = asked.json()["id"]
    twice = pit_boss_client.post(f"/api/v1/ledger/entries/{payout.pk}/reverse",
                                 {"reason": "again"}, format="json")
    assert twice.status_code == 409 and twice.json()["error"]["code"] == "approval_pending"
    own = pit_boss_client.post(f"/api/v1/approvals/{approval_id}/approve", {}, format="json")
    assert own.status_code == 403 and own.json()["error"]["code"] == "own_request"
    assert not Entry.objects.filter(reverses=payout).exists()

    second = staff_client(roles.PIT_BOSS)
    pending = second.get("/api/v1/approvals").json()["results"]
    assert [a["id"] for a in pending] == [approval_id]
    approved = second.post(f"/api/v1/approvals/{approval_id}/approve", {}, format="json")

    assert approved.status_code == 200, approved.json()
    reversal = Entry.objects.get(reverses=payout)
    assert reversal.created_by == pit_boss_client.user and reversal.reason == \
        "paid the wrong seat"
    player.refresh_from_db()
    assert player.posted == 1000


@DUAL
def test_with_dual_control_an_impossible_reversal_is_refused_before_it_is_filed(
    pit_boss_client, cage_client
):
    player = register(cage_client)
    deposit = move(cage_client, player, "deposits", "10.00").json()

    response = pit_boss_client.post(f"/api/v1/ledger/entries/{deposit['id']}/reverse",
                                    {"reason": "x"}, format="json")

    assert response.status_code == 409 and response.json()["error"]["code"] == "owned_entry"
    assert not Approval.objects.exists()


@DUAL
def test_with_dual_control_a_cage_correction_waits_for_a_second_clerk(
    cage_client, staff_client
):
    player = register(cage_client)
    deposit = move(cage_client, player, "deposits", "10.00").json()

    asked = correct(cage_client, player, deposit["id"])
    assert asked.status_code == 202 and available(cage_client, player) == "10.00"
    approved = staff_client(roles.CAGE).post(f"/api/v1/approvals/{asked.json()['id']}/approve",
                                             {}, format="json")

    assert approved.status_code == 200, approved.json()
    assert available(cage_client, player) == "0.00"


# --- least privilege: the cage reads players' accounts, not the house's -----------------------

def test_the_cage_reads_players_accounts_and_their_entries_only(cage_client, auditor_client):
    _, payout = posted_payout()
    cage = Account.objects.get(kind="cage")
    table = Account.objects.get(kind="table_bankroll")
    house_only = entry_post(kind="fill", memo="", by=None,
                            lines=[(cage.pk, -300), (table.pk, 300)])

    accounts = cage_client.get("/api/v1/ledger/accounts").json()["results"]
    assert {a["kind"] for a in accounts} == {"player"}
    assert cage_client.get("/api/v1/ledger/accounts?kind=cage").json()["results"] == []
    entries = [e["id"] for e in cage_client.get("/api/v1/ledger/entries").json()["results"]]
    assert house_only.pk not in entries and payout.pk in entries
    assert cage_client.get(f"/api/v1/ledger/entries/{house_only.pk}").status_code == 404
    assert cage_client.get(f"/api/v1/ledger/entries/{payout.pk}").status_code == 200
    # an auditor reads the house's too
    kinds = {a["kind"] for a in auditor_client.get("/api/v1/ledger/accounts").json()["results"]}
    assert {"cage", "table_bankroll", "player"} <= kinds
    assert auditor_client.get(f"/api/v1/ledger/entries/{house_only.pk}").status_code == 200


# --- refusals leave a trace -------------------------------------------------------------------

def test_a_refused_reversal_by_permission_leaves_one_trace(dealer_client):
    _, payout = posted_payout()

    response = dealer_client.post(f"/api/v1/ledger/entries/{payout.pk}/reverse",
                                  {"reason": "mine"}, format="json",
                                  HTTP_IDEMPOTENCY_KEY="rev-1")

    assert response.status_code == 403
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.ref, refusal.by) == (
        "ledger.entry_reverse", "permission_denied", f"entry:{payout.pk}", dealer_client.user)
    assert not Entry.objects.filter(reverses=payout).exists()


def test_a_second_reversal_leaves_a_trace_and_changes_nothing(pit_boss_client):
    player, payout = posted_payout()
    first = pit_boss_client.post(f"/api/v1/ledger/entries/{payout.pk}/reverse",
                                 {"reason": "wrong seat"}, format="json")
    assert first.status_code == 201
    entries = Entry.objects.count()

    again = pit_boss_client.post(f"/api/v1/ledger/entries/{payout.pk}/reverse",
                                 {"reason": "again"}, format="json",
                                 HTTP_IDEMPOTENCY_KEY="rev-2")

    assert again.status_code == 409
    (refusal,) = Refusal.objects.all()
    assert refusal.code == "already_reversed" and refusal.by == pit_boss_client.user
    assert Entry.objects.count() == entries
    player.refresh_from_db()
    assert player.posted == 1000


def test_a_failed_token_login_leaves_one_trace_without_the_password(api_client):
    user, _ = staff_create(username="dora", role=roles.DEALER, password="a long pass 2026!")

    response = api_client.post("/api/v1/auth/token",
                               {"username": "dora", "password": "wrong guess 1"},
                               format="json")

    assert response.status_code in (400, 401)
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.username, refusal.by) == (
        "login", "login_failed", "dora", user)
    assert refusal.detail == {"via": "api"} and "wrong guess" not in str(refusal.__dict__)


def test_a_failed_admin_login_of_an_unknown_name_leaves_one_trace():
    response = Client().post("/admin/login/", {"username": "mallory", "password": "guess"})

    assert response.status_code == 200  # the form again, with its error
    (refusal,) = Refusal.objects.all()
    assert (refusal.username, refusal.by, refusal.detail) == ("mallory", None,
                                                               {"via": "admin"})


def test_refusals_cannot_be_changed_or_deleted(api_client):
    api_client.post("/api/v1/auth/token", {"username": "x", "password": "y"}, format="json")
    refusal = Refusal.objects.get()

    for change in (lambda: Refusal.objects.filter(pk=refusal.pk).update(code="nothing"),
                   lambda: Refusal.objects.filter(pk=refusal.pk).delete()):
        with pytest.raises(IntegrityError), transaction.atomic():
            change()


@pytest.mark.parametrize(("role", "status"), [(roles.AUDITOR, 200), (roles.PIT_BOSS, 200),
                                              (roles.DEALER, 403), (roles.CAGE, 403)])
def test_auditors_and_pit_bosses_read_refusals_in_the_admin(api_client, role, status):
    api_client.post("/api/v1/auth/token", {"username": "x", "password": "y"}, format="json")
    user, _ = staff_create(username=f"admin-{role}", role=role)
    client = Client()
    client.force_login(get_user_model().objects.get(pk=user.pk))

    listing = client.get("/admin/casino/refusal/")
    detail = client.get(f"/admin/casino/refusal/{Refusal.objects.get().pk}/change/")

    assert (listing.status_code, detail.status_code) == (status, status)
    if status == 200:
        assert "login_failed" in listing.content.decode()
        assert client.get("/admin/casino/refusal/add/").status_code == 403


def test_asking_to_approve_ones_own_request_leaves_a_trace(cage_client, pit_boss_client):
    player = register(cage_client)
    approval_id = move(cage_client, player, "deposits", "20000.00").json()["id"]

    response = cage_client.post(f"/api/v1/approvals/{approval_id}/approve", {},
                                format="json", HTTP_IDEMPOTENCY_KEY="self-1")

    assert response.status_code == 403
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.ref, refusal.by) == (
        "approval.approve", f"approval:{approval_id}", cage_client.user)
    assert Approval.objects.get().status == "pending"


def test_auditors_and_pit_bosses_oversee_every_request_and_dealers_do_not(
    cage_client, auditor_client, pit_boss_client, dealer_client
):
    player = register(cage_client)
    approval_id = move(cage_client, player, "deposits", "20000.00").json()["id"]

    for client in (auditor_client, pit_boss_client):
        listed = client.get("/api/v1/approvals").json()["results"]
        assert [a["id"] for a in listed] == [approval_id]
    assert dealer_client.get("/api/v1/approvals").json()["results"] == []
    assert dealer_client.get(f"/api/v1/approvals/{approval_id}").status_code == 404
    # the auditor reads, and may not decide
    refused = auditor_client.post(f"/api/v1/approvals/{approval_id}/approve", {},
                                  format="json")
    assert refused.status_code == 403
    assert available(cage_client, player) == "0.00"


@pytest.mark.parametrize(("role", "status"), [(roles.AUDITOR, 200), (roles.PIT_BOSS, 200),
                                              (roles.DEALER, 403), (roles.CAGE, 403)])
def test_requests_are_read_in_the_admin_by_those_who_oversee_them(cage_client, role, status):
    player = register(cage_client)
    move(cage_client, player, "deposits", "20000.00")
    user, _ = staff_create(username=f"admin-{role}", role=role)
    client = Client()
    client.force_login(get_user_model().objects.get(pk=user.pk))

    listing = client.get("/admin/casino/approval/")

    assert listing.status_code == status
    if status == 200:
        assert "20,000.00 EUR" in listing.content.decode()


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_requests_for_one_reversal_file_one():
    import threading

    from django.db import connections

    from casino.shared.approvals import approval_request
    from casino.shared.errors import Conflict

    _, payout = posted_payout()
    bosses = [staff_create(username=f"boss-{n}", role=roles.PIT_BOSS)[0] for n in (1, 2)]
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def ask(boss) -> None:
        try:
            user = get_user_model().objects.get(pk=boss.pk)
            start.wait()
            approval_request(action="ledger.entry_reverse", by=user,
                             params={"entry_id": payout.pk, "reason": "wrong seat"})
            outcomes.append("filed")
        except Conflict as exc:
            outcomes.append(exc.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=ask, args=(b,)) for b in bosses]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["approval_pending", "filed"]
    assert Approval.objects.count() == 1


# --- the services hold the cap and dual control themselves, whoever calls them -------------

def test_a_deposit_above_the_cap_made_by_calling_the_service_directly_is_refused(cage_client):
    from casino.services import player_deposit
    from casino.shared.errors import Conflict

    player = register(cage_client)

    with pytest.raises(Conflict) as refused:
        player_deposit(player_id=player, amount=1_000_001, by=cage_client.user)

    assert refused.value.code == "approval_required"
    assert available(cage_client, player) == "0.00"
    assert not Entry.objects.filter(kind="deposit").exists()


@DUAL
def test_with_dual_control_a_ledger_reversal_by_calling_the_service_directly_is_refused(
    pit_boss_client
):
    from casino.shared.errors import Conflict
    from ledger.services import entry_reverse

    _, payout = posted_payout()

    with pytest.raises(Conflict) as refused:
        entry_reverse(entry_id=payout.pk, reason="keyed twice", by=pit_boss_client.user)

    assert refused.value.code == "approval_required"
    assert not Entry.objects.filter(reverses=payout).exists()
