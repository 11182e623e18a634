"""Refused steps leave the same trace through every door (casino.shared.refusals): the
console, the cage's screens, the admin, a command and the API; a 403 logs one line; the
schema answers every caller alike; a gaming day closes only between the first round and
today."""

from __future__ import annotations

import logging
from datetime import date, timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client

from casino import roles
from casino.models import Refusal
from casino.selectors import player_balance
from casino.services import player_deposit, staff_create
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Entry, Hold
from reports.models import ClosedDay
from rounds import services
from rounds.models import Round
from tests.players import make_player

pytestmark = pytest.mark.django_db


class StaffClient(Client):
    """A console client signed in as one member of staff, who is kept to check the traces."""

    user: User


def signed_in(role: str, name: str) -> StaffClient:
    user, _ = staff_create(username=name, role=role)
    client = StaffClient()
    client.force_login(user)
    client.user = user
    return client


# --- the console ------------------------------------------------------------------------------

def test_an_insolvent_deal_on_the_console_leaves_one_trace_with_the_shortfall(
        make_table, seat_player, pit_boss):
    table = make_table(bank_rotation="open", banker_must_have_played=False)
    seat_player(table, 1, funds=5_000)
    seat_player(table, 2)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=10_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, seat=1, house_stake=0, by=pit_boss)
    holds = list(Hold.objects.values_list("pk", "status"))
    dana = signed_in(roles.DEALER, "dana")

    response = dana.post(f"/rounds/{round_.pk}/deal/", follow=True)

    assert response.status_code == 200
    assert "short" in response.content.decode()  # in words on the screen
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.ref, refusal.by, refusal.path) == (
        "round_deal", "banker_insolvent", f"round:{round_.pk}", dana.user,
        f"/rounds/{round_.pk}/deal/")
    assert refusal.detail["shortfall"] == "50.00" and refusal.message
    assert list(Hold.objects.values_list("pk", "status")) == holds
    assert Round.objects.get(pk=round_.pk).state == Round.State.BANKER_SET


def test_a_foul_hand_on_the_console_leaves_one_trace(table, seat_player, pit_boss):
    seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    services.round_deal(round_id=round_.pk, by=pit_boss, hands={
        "dealer": "KD KC 9S 7H 4D QH JS", "1": "AS AH KS QC 7C 5D 2C"})
    dana = signed_in(roles.DEALER, "dana")

    response = dana.post(f"/rounds/{round_.pk}/hands/1/", {"low": ["AS", "AH"]}, follow=True)

    assert "foul" in response.content.decode()
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.ref, refusal.by) == (
        "hand_set", "foul_setting", f"round:{round_.pk}", dana.user)
    assert refusal.detail
    assert round_.hands.get(position="1").low == ""


def test_a_withdrawal_beyond_the_funds_at_the_cage_leaves_one_trace():
    anna = make_player(name="Anna", currency="EUR", by=None)
    player_deposit(player_id=anna.pk, amount=12_000, by=None)
    entries = Entry.objects.count()
    cora = signed_in(roles.CAGE, "cora")

    response = cora.post(f"/cage/players/{anna.pk}/withdraw/", {"withdraw-amount": "500.00"})

    assert response.status_code == 409
    assert "Anna has 120.00 EUR available" in response.content.decode()
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.ref, refusal.by) == (
        "cage.withdrawal", "insufficient_funds", f"player:{anna.pk}", cora.user)
    assert (refusal.detail["shortfall"], refusal.detail["required"]) == ("380.00", "500.00")
    assert Entry.objects.count() == entries and player_balance(anna).posted == 12_000


def test_a_dealer_trying_a_pit_bosses_step_leaves_one_trace_and_one_log_line(
        table, seat_player, caplog):
    seat_player(table, 1)
    dana = signed_in(roles.DEALER, "dana")

    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = dana.post(f"/tables/{table.pk}/seats/1/leave/")

    assert response.status_code == 403 and b"Not allowed" in response.content
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.ref, refusal.by) == (
        "seat_leave", "permission_denied", f"table:{table.pk}", dana.user)
    assert table.seats.get(number=1).player_id is not None
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.levelno == logging.WARNING and record.exc_info is None
    line = record.getMessage()
    assert "\n" not in line and "Traceback" not in caplog.text
    assert "dana" in line and f"/tables/{table.pk}/seats/1/leave/" in line
    assert "POST console:seat-leave" in line


def test_a_page_one_may_not_read_is_no_refused_step(table):
    dana = signed_in(roles.DEALER, "dana")

    assert dana.get(f"/tables/{table.pk}/settings/").status_code == 403
    assert not Refusal.objects.exists()


# --- the admin ----------------------------------------------------------------------------------

def test_a_refused_void_in_the_admin_leaves_a_trace(table, seat_player, pit_boss):
    seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.round_void(round_id=round_.pk, reason="opened by mistake", by=pit_boss)
    boss = signed_in(roles.PIT_BOSS, "petra")

    boss.post("/admin/rounds/round/", {"action": "void_selected", "_selected_action":
                                      [round_.pk], "post": "yes", "reason": "again"})

    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.ref, refusal.by) == (
        "round_void", "wrong_state", f"round:{round_.pk}", boss.user)
    assert refusal.path == "/admin/rounds/round/"


# --- the API: unchanged answers, and the same trace --------------------------------------------

def test_a_foul_through_the_api_is_traced_as_on_the_console(table, seat_player, pit_boss,
                                                          dealer_client):
    seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    services.round_deal(round_id=round_.pk, by=pit_boss, hands={
        "dealer": "KD KC 9S 7H 4D QH JS", "1": "AS AH KS QC 7C 5D 2C"})

    response = dealer_client.post(f"/api/v1/rounds/{round_.pk}/hands",
                                  {"position": "1", "high": "KS QC 7C 5D 2C", "low": "AS AH"},
                                  format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "foul_setting"
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.by) == (
        "round_hands", "foul_setting", dealer_client.user)


def test_an_api_403_logs_one_line(dealer_client, caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = dealer_client.post("/api/v1/gaming-days/close", {"gaming_day": "2020-01-01"},
                                      format="json")

    assert response.status_code == 403
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.exc_info is None
    assert dealer_client.user.username in record.getMessage()
    assert "api:gaming-day-close" in record.getMessage()


# --- closing a gaming day: only between the first round and today ------------------------------

def test_a_gaming_day_before_the_first_round_is_refused_and_traced(
        table, seat_player, pit_boss, pit_boss_client):
    seat_player(table, 1)
    services.round_open(table_id=table.pk, by=pit_boss)
    first = gaming_day_of()

    for day in ("0001-01-02", (first - timedelta(days=1)).isoformat()):
        response = pit_boss_client.post("/api/v1/gaming-days/close", {"gaming_day": day},
                                        format="json")
        assert response.status_code == 409, day
        error = response.json()["error"]
        assert error["code"] == "gaming_day_before_first_round"
        assert error["detail"] == {"gaming_day": day, "first_gaming_day": first.isoformat()}
    assert not ClosedDay.objects.exists()
    assert list(Refusal.objects.order_by("pk").values_list("action", "code", "by")) == [
        ("gaming_day_close", "gaming_day_before_first_round", pit_boss_client.user.pk)] * 2


def test_no_gaming_day_closes_before_any_round_and_the_schedule_waits(pit_boss_client):
    from reports.tasks import gaming_day_close_task

    yesterday = gaming_day_of() - timedelta(days=1)
    response = pit_boss_client.post("/api/v1/gaming-days/close",
                                    {"gaming_day": yesterday.isoformat()}, format="json")

    assert response.status_code == 409
    assert response.json()["error"]["detail"]["first_gaming_day"] is None
    assert gaming_day_close_task.apply().get() is None
    assert not ClosedDay.objects.exists()
    assert date.fromisoformat(response.json()["error"]["detail"]["gaming_day"]) == yesterday


# --- the schema: the same answer whatever the caller's credentials ------------------------------

@pytest.mark.parametrize("url", ["/api/schema/", "/api/docs/", "/api/redoc/"])
def test_the_schema_and_its_docs_answer_every_caller_alike(url, pit_boss_client):
    from rest_framework.test import APIClient

    anonymous = APIClient()
    valid = pit_boss_client
    stale = APIClient()
    stale.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef-no-such-token")
    session = signed_in(roles.PIT_BOSS, "petra")

    statuses = {name: client.get(url).status_code for name, client in
                (("anonymous", anonymous), ("valid", valid), ("stale", stale),
                 ("session", session))}

    assert statuses == dict.fromkeys(statuses, 200)


def test_the_console_closes_a_day_and_refuses_one_before_the_first_round_in_words(
        table, seat_player, pit_boss):
    seat_player(table, 1)
    played = services.round_open(table_id=table.pk, by=pit_boss)
    yesterday = gaming_day_of() - timedelta(days=1)
    Round.objects.filter(pk=played.pk).update(gaming_day=yesterday)
    services.round_void(round_id=played.pk, reason="a quiet day", by=pit_boss)
    petra = signed_in(roles.PIT_BOSS, "petra")

    before = yesterday - timedelta(days=1)
    refused = petra.post("/reports/days/close/", {"gaming_day": before.isoformat()},
                         follow=True)
    not_over = petra.post("/reports/days/close/", {"gaming_day": gaming_day_of().isoformat()},
                          follow=True)

    assert f"Not closed: Gaming day {before} came before the casino&#x27;s first round" in \
        refused.content.decode()
    assert "is not over yet" in not_over.content.decode()
    assert not ClosedDay.objects.exists()
    assert list(Refusal.objects.order_by("pk").values_list("action", "code", "ref", "by")) == [
        ("gaming_day_close", "gaming_day_before_first_round", f"gaming_day:{before}",
         petra.user.pk),
        ("gaming_day_close", "gaming_day_not_over", f"gaming_day:{gaming_day_of()}",
         petra.user.pk)]

    closed = petra.post("/reports/days/close/", {"gaming_day": yesterday.isoformat()},
                        follow=True)

    assert f"Gaming day {yesterday} is closed" in closed.content.decode()
    assert ClosedDay.objects.get().closed_by == petra.user
    dana = signed_in(roles.DEALER, "dana")
    assert dana.post("/reports/days/close/", {"gaming_day": yesterday.isoformat()}
                     ).status_code == 403


def test_a_settings_change_the_admin_form_refuses_leaves_a_trace(table, seat_player, pit_boss):
    from tests.rounds.test_admin import TABLES, change_form_data, login, open_round_with_wagers

    for seat in (1, 2, 3):
        seat_player(table, seat, funds=10_000)
    open_round_with_wagers(table, pit_boss)
    boss = login(roles.PIT_BOSS)
    page = boss.get(f"{TABLES}{table.pk}/change/")

    response = boss.post(f"{TABLES}{table.pk}/change/", change_form_data(page, max_bet="250.00"))

    assert response.status_code == 200 and "Not saved" in response.content.decode()
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.ref, refusal.by) == (
        "table_update", "round_in_progress", f"table:{table.pk}",
        User.objects.get(username=f"admin-{roles.PIT_BOSS}"))
    table.refresh_from_db()
    assert table.max_bet == 10_000


def test_deciding_ones_own_request_on_the_console_leaves_a_trace():
    anna = make_player(name="Anna", currency="EUR", by=None)
    cora = signed_in(roles.CAGE, "cora")
    cora.post(f"/cage/players/{anna.pk}/deposit/", {"deposit-amount": "20000.00"})
    from casino.shared.approvals import Approval

    approval = Approval.objects.get()

    response = cora.post(f"/approvals/{approval.pk}/decide/", {"decision": "approve"},
                         follow=True)

    assert response.status_code == 200
    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.ref, refusal.by) == (
        "approval.approve", f"approval:{approval.pk}", cora.user)
    assert Approval.objects.get().status == "pending"
