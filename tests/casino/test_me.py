"""The player's own API (/api/v1/me...): their account, statement, limits and
self-exclusion, with their token or their session; staff are refused it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from casino import roles
from casino.exclusions import player_exclusion_on
from casino.player_logins import player_login_give
from casino.services import player_deposit, player_withdraw, staff_create
from rounds import services

pytestmark = pytest.mark.django_db

PASSWORD = "felt-and-tiles-2026"


@pytest.fixture
def anna(table, seat_player):
    player = seat_player(table, 1, funds=100_000, name="Anna Meyer")
    clerk, _ = staff_create(username="carla", role=roles.CAGE)
    player_login_give(player_id=player.pk, username="anna", password=PASSWORD, by=clerk)
    player.refresh_from_db()
    return player


@pytest.fixture
def me(anna) -> APIClient:
    answer = APIClient().post("/api/v1/auth/token", {"username": "anna", "password": PASSWORD},
                              format="json")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    return client


def test_the_player_reads_their_own_account(me, anna, table, pit_boss):
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=2_500, by=pit_boss)

    answer = me.get("/api/v1/me")

    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert (body["id"], body["name"]) == (anna.pk, "Anna Meyer")
    assert body["balance"] == {"posted": "1000.00", "available": "975.00", "currency": "EUR"}
    assert body["limits"] == {
        "wager_per_day": {"amount": None, "pending": None},
        "loss_per_day": {"amount": None, "pending": None},
        "wagered_today": "25.00", "lost_today": "0.00"}
    assert body["session"]["minutes_played"] == 0
    assert body["session"]["reminder_every_minutes"] == 30


def test_minutes_played_count_from_the_tokens_sign_in(me):
    # given a sign-in an hour and a minute ago
    AuthToken.objects.update(created=timezone.now() - timedelta(minutes=61, seconds=5))
    session = me.get("/api/v1/me").json()["session"]
    assert session["minutes_played"] == 61


def test_limits_are_set_lowered_at_once_raised_later(me):
    first = me.put("/api/v1/me/limits", {"wager_per_day": "50.00", "loss_per_day": "80.00"},
                   format="json")
    assert first.status_code == 200, first.content
    assert first.json()["wager_per_day"] == {"amount": "50.00", "pending": None}

    raised = me.put("/api/v1/me/limits", {"wager_per_day": "90.00", "loss_per_day": None},
                    format="json").json()

    assert raised["wager_per_day"]["amount"] == "50.00"
    assert raised["wager_per_day"]["pending"]["amount"] == "90.00"
    assert raised["loss_per_day"]["amount"] == "80.00"
    assert raised["loss_per_day"]["pending"]["amount"] is None
    assert "from" in raised["loss_per_day"]["pending"]
    assert me.get("/api/v1/me").json()["limits"]["wager_per_day"]["pending"]["amount"] == "90.00"


def test_a_wager_past_the_limit_set_through_the_api_is_refused(me, anna, table,
                                                               dealer_client, pit_boss):
    me.put("/api/v1/me/limits", {"wager_per_day": "20.00"}, format="json")
    round_ = services.round_open(table_id=table.pk, by=pit_boss)

    answer = dealer_client.post(f"/api/v1/rounds/{round_.pk}/wagers",
                                {"seat": 1, "amount": "25.00"}, format="json")

    assert answer.status_code == 409, answer.content
    error = answer.json()["error"]
    assert error["code"] == "limit_reached"
    assert error["message"] == ("Your daily wager limit of 20.00 EUR leaves 20.00 EUR today: "
                                "a wager of 25.00 EUR is past it.")


@pytest.mark.parametrize("body", [{"wager_per_day": "0.00"}, {"wager_per_day": "-5"},
                                  {"loss_per_day": 1.5}])
def test_a_limit_of_nothing_or_a_float_is_refused(me, body):
    answer = me.put("/api/v1/me/limits", body, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid"


def test_the_statement_is_the_players_own_newest_first(me, anna, pit_boss):
    player_withdraw(player_id=anna.pk, amount=10_000, by=pit_boss)
    player_deposit(player_id=anna.pk, amount=5_000, reference="Slip 7", by=pit_boss)

    answer = me.get("/api/v1/me/statement?page_size=2")

    assert answer.status_code == 200, answer.content
    page = answer.json()
    assert page["count"] == 3
    assert [(r["kind"], r["amount"], r["balance"]) for r in page["results"]] == [
        ("deposit", "50.00", "950.00"), ("withdrawal", "-100.00", "900.00")]
    assert page["results"][0]["reference"] == "Slip 7"
    assert page["next"]


def test_the_player_excludes_themselves_and_cannot_lift_it(me, anna):
    answer = me.post("/api/v1/me/exclusions", {"period": "six_months"}, format="json")

    assert answer.status_code == 201, answer.content
    exclusion = answer.json()
    assert (exclusion["kind"], exclusion["state"]) == ("self", "in_force")
    assert player_exclusion_on(player_id=anna.pk) is not None
    assert [e["id"] for e in me.get("/api/v1/me/exclusions").json()] == [exclusion["id"]]
    lift = me.post(f"/api/v1/exclusions/{exclusion['id']}/lift", {"reason": "changed my mind"},
                   format="json")
    assert lift.status_code == 403
    assert me.post("/api/v1/me/exclusions", {"period": "a_weekend"},
                   format="json").status_code == 400


def test_the_players_session_reaches_their_own_api_with_its_csrf_token(anna):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(anna.user)
    assert browser.get("/api/v1/me").json()["id"] == anna.pk
    refused = browser.put("/api/v1/me/limits", {"wager_per_day": "50.00"},
                          content_type="application/json")
    assert refused.status_code == 403


@pytest.mark.parametrize("url", ["/api/v1/me", "/api/v1/me/statement", "/api/v1/me/exclusions"])
def test_staff_and_nobody_are_refused_the_players_own_operations(url, cage_client):
    assert cage_client.get(url).status_code == 403
    assert APIClient().get(url).status_code == 401


@pytest.mark.parametrize(("starts", "months", "until"), [
    ("2026-12-06", 6, "2027-06-05"), ("2026-12-06", 12, "2027-12-05"),
    ("2026-08-31", 6, "2027-02-28"), ("2027-11-30", 3, "2028-02-29"),
    ("2026-01-01", 60, "2030-12-31")])
def test_a_self_exclusions_months_end_the_day_before_the_same_date(starts, months, until):
    from datetime import date

    from casino.exclusions import _months_later

    assert _months_later(date.fromisoformat(starts), months) == date.fromisoformat(until)
