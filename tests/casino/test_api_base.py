"""The API's one idiom (casino.shared.api): one parse helper, one amount field, one
permission helper, the same way on every endpoint."""

from __future__ import annotations

import pytest
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from casino.shared.api.fields import AmountField
from casino.shared.api.parse import parse
from rounds.models import Table
from tests.players import IDENTITY_FIELDS


class Move(serializers.Serializer):
    amount = AmountField()


class Deposit(serializers.Serializer):
    amount = AmountField(positive=True)


@pytest.mark.parametrize(("sent", "minor"), [("160.50", 16050), ("160.5", 16050), (160, 16000),
                                             ("-5.00", -500), ("0", 0)])
def test_an_amount_is_parsed_into_minor_units_of_the_currency(sent, minor):
    assert parse(Move, {"amount": sent}, currency="EUR") == {"amount": minor}


@pytest.mark.parametrize("sent", [160.5, 160.0, "160.001", "1e3", "", "abc", True, [1], None])
def test_a_malformed_amount_is_refused_with_the_field_named(sent):
    with pytest.raises(ValidationError) as refused:
        parse(Move, {"amount": sent}, currency="EUR")

    assert set(refused.value.detail) == {"amount"}


@pytest.mark.parametrize("sent", ["0", "0.00", "-5.00", -5])
def test_a_positive_amount_refuses_zero_and_negative_figures(sent):
    with pytest.raises(ValidationError) as refused:
        parse(Deposit, {"amount": sent}, currency="EUR")

    assert "positive" in str(refused.value.detail)


def test_an_amount_without_a_known_currency_is_refused_not_guessed():
    with pytest.raises(ValidationError) as refused:
        parse(Move, {"amount": "10.00"})

    assert refused.value.get_codes() == {"amount": ["invalid_currency"]}


def test_an_amount_leaves_as_a_decimal_string_in_the_currency():
    out = Move({"amount": 16050}, context={"currency": "EUR"}).data

    assert out == {"amount": "160.50"}


@pytest.mark.slow  # seconds of fuzzing, sampling or waiting: make test runs it
@pytest.mark.django_db
def test_a_malformed_wager_and_a_malformed_deposit_get_the_same_answer(dealer_client,
                                                                       cage_client):
    # given a table with a round open, and a player
    table = Table.objects.create(name="Idiom table")
    round_id = dealer_client.post(f"/api/v1/tables/{table.pk}/rounds").json()["id"]
    player = cage_client.post("/api/v1/players", {"name": "Anna", **IDENTITY_FIELDS},
                              format="json").json()

    # when both get an amount with too many decimals
    wager = dealer_client.post(f"/api/v1/rounds/{round_id}/wagers",
                               {"seat": 1, "amount": "12.555"}, format="json")
    cash = cage_client.post(f"/api/v1/players/{player['id']}/deposits",
                            {"amount": "12.555"}, format="json")

    # then both are the same 400, naming the field
    for response in (wager, cash):
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "invalid" and set(error["detail"]["fields"]) == {"amount"}
        assert "at most 2 decimals" in error["message"]


@pytest.mark.slow  # seconds of fuzzing, sampling or waiting: make test runs it
@pytest.mark.django_db
def test_one_view_needs_a_permission_per_method(dealer_client, pit_boss_client):
    # requires("rounds.view_table", POST="rounds.add_table"): the dealer reads tables...
    assert dealer_client.get("/api/v1/tables").status_code == 200

    refused = dealer_client.post("/api/v1/tables", {"name": "Mine"}, format="json")

    # ...but only a pit boss opens one, and the refusal names the permission for that method
    assert refused.status_code == 403
    assert "rounds.add_table" in refused.json()["error"]["message"]
    assert "rounds.view_table" not in refused.json()["error"]["message"]
    opened = pit_boss_client.post("/api/v1/tables", {"name": "Mine"}, format="json")
    assert opened.status_code == 201
