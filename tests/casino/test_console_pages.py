"""What every console page does alike: a favicon (no 404 on each page), a 403 page that says
in words what may not be done (never a permission's code), each message shown once, and no
double full stop where a person's words end one of our sentences."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from django.test import Client, override_settings

from casino import roles
from casino.services import player_deposit, staff_create
from casino.shared.approvals import Approval
from casino.shared.permissions import permission_words
from casino.shared.templatetags.words import sentence_text
from rounds import services
from rounds.models import Table
from tests.players import make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def pit_boss(db):
    user, _ = staff_create(username="pit", role=roles.PIT_BOSS)
    return user


@pytest.fixture
def table(pit_boss) -> Table:
    return services.table_create(by=pit_boss, name="Table 1",
                                 deal_modes=list(Table.DealMode.values))


def seat_player(table: Table, by) -> None:
    player = make_player(name="Anna", currency=table.currency, by=by)
    player_deposit(player_id=player.pk, amount=100_000, by=by)
    services.seat_take(table_id=table.pk, number=1, player_id=player.pk, by=by)


def login(role: str, name: str) -> Client:
    user, _ = staff_create(username=name, role=role)
    client = Client()
    client.force_login(user)
    client.user = user  # type: ignore[attr-defined]
    return client


def permission_codes() -> set[str]:
    return {f"{app}.{codename}" for app, codename in
            Permission.objects.values_list("content_type__app_label", "codename")}


def test_the_favicon_answers_and_every_console_page_links_it():
    login_page = Client().get("/login/").content.decode()
    linked = re.search(r'<link rel="icon" href="([^"]+)"', login_page)
    assert linked is not None
    for url in (linked[1], "/favicon.ico"):  # the admin's and the API docs' pages ask for it
        response = Client().get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"].startswith("image/"), url


def test_a_403_page_says_in_words_what_may_not_be_done_and_names_no_permission(table):
    dealer, cage = login(roles.DEALER, "dana"), login(roles.CAGE, "carl")
    round_ = services.round_open(table_id=table.pk, by=dealer.user)  # type: ignore[attr-defined]
    codes = permission_codes()
    for client, method, url, words in (
            (dealer, "get", f"/tables/{table.pk}/settings/", "change the tables"),
            (dealer, "post", f"/rounds/{round_.pk}/void/", "void a round before settlement"),
            (dealer, "get", "/cage/", "see the players"),
            (cage, "get", f"/tables/{table.pk}/", "see the rounds"),
            (cage, "get", f"/tables/{table.pk}/history/", "see the rounds")):
        response = getattr(client, method)(url, {"reason": "x"} if method == "post" else None)
        assert response.status_code == 403, url
        html = response.content.decode()
        assert f"you may not {words}." in html, (url, html)
        assert not {code for code in codes if code in html}, url


def test_a_permission_unknown_to_the_database_is_still_said_in_words():
    assert permission_words("rounds.no_such_thing") == "do this"
    assert permission_words("rounds.reverse_round") == "reverse a settled round"


def test_the_api_403_keeps_its_one_error_shape(dealer_client):
    response = dealer_client.post("/api/v1/tables", {"name": "x"}, format="json")

    assert response.status_code == 403
    assert set(response.json()["error"]) == {"code", "message", "detail"}


def test_a_sentence_ending_in_a_persons_full_stop_gets_no_second_one():
    assert sentence_text("paid the wrong seat.") == "paid the wrong seat."
    assert sentence_text("paid the wrong seat") == "paid the wrong seat."
    assert sentence_text("wrong seat?  ") == "wrong seat?"


@override_settings(CASINO_DUAL_CONTROL=True)
def test_an_approved_reversal_ending_in_a_full_stop_reads_with_one(table, pit_boss):
    seat_player(table, pit_boss)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    services.round_deal(round_id=round_.pk, by=pit_boss)
    services.hand_set(round_id=round_.pk, position="1", house_way=True, by=pit_boss)
    services.round_settle(round_id=round_.pk, by=pit_boss)
    asker, decider = login(roles.PIT_BOSS, "petra"), login(roles.PIT_BOSS, "paul")
    asker.post(f"/rounds/{round_.pk}/page/reverse/", {"reason": "paid the wrong seat."})
    approval = Approval.objects.get(action="rounds.reverse")

    response = decider.post(f"/approvals/{approval.pk}/decide/", {"decision": "approve"},
                            follow=True)

    html = response.content.decode()
    assert "paid the wrong seat.</li>" in html
    assert "seat.." not in html


def test_an_htmx_step_replaces_the_messages_of_the_page_before(table, pit_boss):
    # given the table screen loaded with a message of the step before (a plain form post)
    client = login(roles.PIT_BOSS, "petra")
    client.post(f"/tables/{table.pk}/rounds/open/")
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert page.count("Round 1 is open") == 1
    round_ = table.rounds.get()
    services.round_void(round_id=round_.pk, reason="test", by=pit_boss)

    # when the next step is taken through htmx
    step = client.post(f"/tables/{table.pk}/rounds/open/", headers={"HX-Request": "true"})

    # then its answer replaces the page's messages (out of band), the old one gone, the new
    # one shown once, and nothing is left to show again on the next page
    html = step.content.decode()
    assert '<div id="messages" hx-swap-oob="true">' in html
    assert html.count("Round 2 is open") == 1 and "Round 1 is open" not in html
    again = client.get(f"/tables/{table.pk}/").content.decode()
    assert "Round 2 is open" not in again and "Round 1 is open" not in again


@override_settings(CASINO_DUAL_CONTROL=True)
def test_a_request_a_role_may_not_decide_is_refused_in_words(table, pit_boss):
    seat_player(table, pit_boss)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    services.round_deal(round_id=round_.pk, by=pit_boss)
    services.hand_set(round_id=round_.pk, position="1", house_way=True, by=pit_boss)
    services.round_settle(round_id=round_.pk, by=pit_boss)
    login(roles.PIT_BOSS, "petra").post(f"/rounds/{round_.pk}/page/reverse/",
                                        {"reason": "wrong seat"})
    approval = Approval.objects.get(action="rounds.reverse")
    dealer = login(roles.DEALER, "dana")

    page = dealer.post(f"/approvals/{approval.pk}/decide/", {"decision": "approve"},
                       follow=True).content.decode()

    said = "Your role may not reverse a settled round, so it does not decide this request."
    assert said in page.replace("&#x27;", "'")
    assert not {code for code in permission_codes() if code in page}
    approval.refresh_from_db()
    assert approval.status == Approval.Status.PENDING
