"""The whole service works with the runtime role's privileges alone (casino/shared/db_roles.py):
the cage, a settled and reversed round, the audit, logging out."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.models.functions import Now

from ledger.models import Hold
from rounds.models import Round, Wager
from tests.players import IDENTITY_FIELDS
from tests.rounds.conftest import balances


@pytest.mark.django_db
def test_cage_rounds_reversals_and_the_audit_run_as_the_runtime_role(
        as_runtime_role, cage_client, pit_boss_client, dealer, table, seat_player, capsys):
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone() == (as_runtime_role,)

    # the cage: a new player, a deposit and a withdrawal
    player = cage_client.post("/api/v1/players", {"name": "Anna", "currency": "EUR",
                                                  **IDENTITY_FIELDS}, format="json").json()
    deposit = cage_client.post(f"/api/v1/players/{player['id']}/deposits",
                               {"amount": "500.00", "reference": "slip 1"}, format="json")
    withdrawal = cage_client.post(f"/api/v1/players/{player['id']}/withdrawals",
                                  {"amount": "100.00", "reference": "slip 2"}, format="json")
    assert (deposit.status_code, withdrawal.status_code) == (201, 201)
    assert cage_client.get(f"/api/v1/players/{player['id']}").json()["balance"][
        "available"] == "400.00"

    # a house-banked round that seat 1 wins, settled, then reversed by the pit boss
    winner = seat_player(table, 1, funds=10_000)
    before = balances(winner)
    body = dealer.house_round(table, {1: "50.00"}, {"1": "win"})
    assert body["state"] == "settled"
    assert balances(winner)[0][0] > before[0][0]
    reversed_ = pit_boss_client.post(f"/api/v1/rounds/{body['id']}/reverse",
                                     {"reason": "wrong outcome"}, format="json")
    assert reversed_.status_code == 200, reversed_.json()
    assert balances(winner) == before
    assert not Hold.objects.filter(status=Hold.Status.OPEN).exists()

    # the audit, and a logout (which deletes the token)
    call_command("ledger_verify")
    assert capsys.readouterr().out.startswith("OK: ")
    assert cage_client.post("/api/v1/auth/token/revoke").status_code in (200, 204)


def released_behind_the_services(hold_id: int) -> None:
    """An insider's release: as the ledger's guard wants it (resolved now), but no round
    step; the deferred guards run now, as at COMMIT."""
    with transaction.atomic():
        Hold.objects.filter(pk=hold_id).update(status="released", resolved_at=Now())
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


@pytest.mark.django_db
def test_a_live_wagers_hold_cannot_be_released_behind_the_round(as_runtime_role, dealer,
                                                                  table, seat_player):
    seat_player(table, 1, funds=10_000)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "50.00")
    hold_id = Wager.objects.get(round_id=round_id, seat=1).hold_id

    with pytest.raises(IntegrityError, match=f"backs round {round_id} still in play"):
        released_behind_the_services(hold_id)

    assert Hold.objects.get(pk=hold_id).status == Hold.Status.OPEN
    # the round's own step still releases it
    dealer.call("delete", f"/api/v1/rounds/{round_id}/wagers/1", expect=200)
    assert Hold.objects.get(pk=hold_id).status == Hold.Status.RELEASED


@pytest.mark.django_db
def test_a_player_bankers_cover_cannot_be_released_while_the_round_is_dealt(
        as_runtime_role, dealer, table, seat_player):
    seat_player(table, 1, funds=100_000)
    seat_player(table, 2, funds=10_000)
    dealer.house_round(table, {1: "100.00"}, {"1": "push"})  # seat 1 may bank next
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "20.00")
    dealer.banker(round_id, seat=1, house_stake="0")
    dealer.deal(round_id)
    cover = Round.objects.get(pk=round_id).banker_hold_id
    assert cover is not None

    with pytest.raises(IntegrityError, match=f"backs round {round_id} still in play"):
        released_behind_the_services(cover)
    assert Hold.objects.get(pk=cover).status == Hold.Status.OPEN
