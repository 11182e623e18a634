"""Players and the cage over the API: registration, balances, deposits, withdrawals."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.models import Player
from ledger.models import Entry
from ledger.services import hold_place
from tests.players import IDENTITY_FIELDS

pytestmark = pytest.mark.django_db


def register(client, name="Anna", currency="EUR"):
    response = client.post("/api/v1/players", {"name": name, "currency": currency,
                                               **IDENTITY_FIELDS}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def deposit(client, player_id, amount, reference="slip 1"):
    return client.post(f"/api/v1/players/{player_id}/deposits",
                       {"amount": amount, "reference": reference}, format="json")


def test_the_cage_registers_a_player_with_an_empty_balance(cage_client):
    player = register(cage_client, "Anna", "EUR")

    assert player["name"] == "Anna" and player["currency"] == "EUR"
    assert player["balance"] == {"posted": "0.00", "held": "0.00", "available": "0.00",
                                 "currency": "EUR"}


def test_a_deposit_is_an_entry_from_the_cage_to_the_player(cage_client):
    player = register(cage_client)

    response = deposit(cage_client, player["id"], "160.00", reference="receipt 42")

    assert response.status_code == 201
    entry = response.json()
    assert entry["kind"] == "deposit" and entry["memo"] == "receipt 42"
    assert entry["ref"] == f"player:{player['id']}"
    assert sorted((line["account_kind"], line["amount"]) for line in entry["lines"]) == [
        ("cage", "-160.00"), ("player", "160.00")]
    assert entry["created_by"] == cage_client.user.username


def test_a_player_shows_posted_held_and_available_as_decimal_strings(cage_client):
    player = register(cage_client)
    deposit(cage_client, player["id"], "120.00")
    hold_place(account_id=Entry.objects.get(kind="deposit").lines.get(amount__gt=0).account_id,
               amount=2000, by=None, ref="round:1")

    response = cage_client.get(f"/api/v1/players/{player['id']}")

    assert response.status_code == 200
    assert response.json()["balance"] == {"posted": "120.00", "held": "20.00",
                                          "available": "100.00", "currency": "EUR"}


def test_integers_are_accepted_as_whole_units(cage_client):
    player = register(cage_client)
    assert deposit(cage_client, player["id"], 25).status_code == 201
    assert cage_client.get(f"/api/v1/players/{player['id']}").json()["balance"]["posted"] == \
        "25.00"


@pytest.mark.parametrize("amount", [160.5, 160.0, "160.001", "0", 0, "0.00", "-5.00", -5, "abc",
                                    None, True, "1e3", ""])
def test_floats_extra_decimals_zero_and_negative_amounts_get_a_400(cage_client, amount):
    player = register(cage_client)

    response = deposit(cage_client, player["id"], amount)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and "amount" in error["detail"]["fields"]
    assert not Entry.objects.exists()


def test_a_withdrawal_within_the_available_balance_pays_out(cage_client):
    player = register(cage_client)
    deposit(cage_client, player["id"], "100.00")

    response = cage_client.post(f"/api/v1/players/{player['id']}/withdrawals",
                                {"amount": "60.50"}, format="json")

    assert response.status_code == 201
    assert response.json()["kind"] == "withdrawal"
    assert cage_client.get(f"/api/v1/players/{player['id']}").json()["balance"][
        "available"] == "39.50"


def test_a_withdrawal_above_the_available_balance_is_a_409_with_the_available_amount(
        cage_client):
    player = register(cage_client)
    deposit(cage_client, player["id"], "100.00")
    entries = Entry.objects.count()

    response = cage_client.post(f"/api/v1/players/{player['id']}/withdrawals",
                                {"amount": "100.01"}, format="json")

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "insufficient_funds"
    assert error["detail"]["available"] == "100.00" and error["detail"]["shortfall"] == "0.01"
    assert Entry.objects.count() == entries
    assert cage_client.get(f"/api/v1/players/{player['id']}").json()["balance"][
        "posted"] == "100.00"


def test_players_are_listed_a_page_at_a_time_and_searchable(cage_client):
    for name in ("Anna", "Bram", "Annelies"):
        register(cage_client, name)

    everyone = cage_client.get("/api/v1/players?page_size=2").json()
    found = cage_client.get("/api/v1/players?search=ann").json()

    assert everyone["count"] == 3 and len(everyone["results"]) == 2 and everyone["next"]
    assert [p["name"] for p in found["results"]] == ["Anna", "Annelies"]
    assert found["results"][0]["balance"]["available"] == "0.00"


def test_listing_players_takes_the_same_queries_for_any_page_size(cage_client):
    for n in range(6):
        register(cage_client, f"P{n}")

    def queries_for(page_size):
        with CaptureQueriesContext(connection) as queries:
            assert cage_client.get(f"/api/v1/players?page_size={page_size}").status_code == 200
        return len(queries)

    assert queries_for(1) == queries_for(6)


def test_an_unknown_player_is_a_404_in_the_error_shape(cage_client):
    response = deposit(cage_client, 999_999, "1.00")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_only_the_cage_moves_player_funds(cage_client, dealer_client, auditor_client):
    player = register(cage_client)
    assert deposit(dealer_client, player["id"], "1.00").status_code == 403
    assert deposit(auditor_client, player["id"], "1.00").status_code == 403
    assert dealer_client.post("/api/v1/players", {"name": "X"}, format="json").status_code == 403
    assert auditor_client.get(f"/api/v1/players/{player['id']}").status_code == 200


def test_an_unknown_currency_is_refused(cage_client):
    response = cage_client.post("/api/v1/players", {"name": "Z", "currency": "XYZ"},
                                format="json")
    assert response.status_code == 400
    assert not Player.objects.exists()
