"""A player's own pages: signing in at /play/login/ (staff refused in words), the account
page (balance, limits with pending raises, self-exclusion with a confirmation, the latest
movements), signing out; the header carries what the reminder of time played needs."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from casino import roles
from casino.exclusions import player_exclusion_on
from casino.models import PlayerLimit
from casino.player_limits import player_limits
from casino.player_logins import SESSION_STARTED, player_login_give
from casino.services import player_deposit, staff_create
from tests.players import make_player

pytestmark = pytest.mark.django_db

PASSWORD = "felt-and-tiles-2026"


@pytest.fixture
def clerk():
    user, _ = staff_create(username="carla", role=roles.CAGE, password="a-long-cage-pass-9")
    return user


@pytest.fixture
def anna(clerk):
    player = make_player(name="Anna Meyer")
    player_deposit(player_id=player.pk, amount=25_000, reference="Slip 9", by=clerk)
    player_login_give(player_id=player.pk, username="anna", password=PASSWORD, by=clerk)
    player.refresh_from_db()
    return player


@pytest.fixture
def browser(anna) -> Client:
    client = Client()
    answer = client.post("/play/login/", {"username": "anna", "password": PASSWORD})
    assert answer.status_code == 302, answer.content.decode()
    assert answer["Location"] == "/play/account/"
    return client


def test_a_player_signs_in_and_the_session_remembers_when(browser):
    started = datetime.fromisoformat(browser.session[SESSION_STARTED])
    assert timezone.now() - started < timedelta(seconds=30)
    shown = browser.get("/api/v1/me").json()["session"]["started_at"]
    assert datetime.fromisoformat(shown) == started


def test_staff_are_refused_the_players_sign_in_in_words(clerk):
    answer = Client().post("/play/login/", {"username": "carla",
                                            "password": "a-long-cage-pass-9"})
    assert answer.status_code == 200
    assert "This is the players&#x27; sign-in; staff sign in at /login/." in \
        answer.content.decode()
    assert "_auth_user_id" not in answer.wsgi_request.session


def test_staff_are_refused_the_players_pages_and_nobody_is_sent_to_sign_in(clerk):
    staff = Client()
    staff.force_login(clerk)
    refused = staff.get("/play/account/")
    assert refused.status_code == 403
    assert "staff see players at the cage" in refused.content.decode()
    assert staff.post("/play/logout/").status_code == 403
    assert Client().get("/play/account/")["Location"] == \
        "/play/login/?next=/play/account/"


def test_the_account_page_shows_the_balance_and_the_header_the_reminders_start(browser):
    page = browser.get("/play/account/").content.decode()

    assert 'data-testid="play-player">Anna Meyer · ' in page
    assert re.search(r'data-figure="available"><strong>250\.00 EUR', page)
    assert 'data-reminder-minutes="30"' in page
    assert 'data-session-started="' in page
    assert "Slip 9" in page
    assert 'href="/play/"' in page and "Sign out" in page  # the game, console:play
    assert "<script>" not in page and "style=" not in page  # CSP: static files only


def test_limits_are_set_on_the_page_and_a_raise_shows_when_it_holds(browser, anna):
    browser.post("/play/account/limits/", {"limits-wager_per_day": "50.00",
                                           "limits-loss_per_day": ""})
    assert player_limits(player_id=anna.pk)["wager_per_day"].amount == 5_000

    # the form sent again as shown, but for a raise: only the wager limit changes
    browser.post("/play/account/limits/", {"limits-wager_per_day": "90.00",
                                           "limits-loss_per_day": ""})
    state = player_limits(player_id=anna.pk)["wager_per_day"]
    assert state.pending is not None
    assert (state.amount, state.pending.amount) == (5_000, 9_000)
    page = browser.get("/play/account/").content.decode()
    assert 'data-testid="pending">From ' in page and "90.00 EUR" in page

    # the page's form shows the limit in force; sent unchanged, the raise stays pending
    browser.post("/play/account/limits/", {"limits-wager_per_day": "50.00",
                                           "limits-loss_per_day": ""})
    assert player_limits(player_id=anna.pk)["wager_per_day"].pending is not None


def test_a_bad_amount_is_refused_in_words_on_the_page(browser, anna):
    answer = browser.post("/play/account/limits/", {"limits-wager_per_day": "0",
                                                    "limits-loss_per_day": ""})
    assert answer.status_code == 400
    assert 'class="msg msg-error"' in answer.content.decode()


def test_self_exclusion_needs_the_confirmation(browser, anna):
    unconfirmed = browser.post("/play/account/exclude/", {"exclude-period": "one_year"})
    assert unconfirmed.status_code == 400
    assert player_exclusion_on(player_id=anna.pk) is None

    done = browser.post("/play/account/exclude/", {"exclude-period": "one_year",
                                                   "exclude-confirm": "on"}, follow=True)

    exclusion = player_exclusion_on(player_id=anna.pk)
    assert exclusion is not None and exclusion.kind == "self"
    assert "You are self-excluded until" in done.content.decode()
    assert 'data-testid="excluded"' in done.content.decode()


def test_a_player_signs_out(browser):
    answer = browser.post("/play/logout/")
    assert answer["Location"] == "/play/login/"
    assert browser.get("/play/account/").status_code == 302


def test_wrong_passwords_at_the_players_sign_in_lock_it_out_like_staffs(anna):
    browser = Client()
    statuses = [browser.post("/play/login/", {"username": "anna", "password": f"wrong-{n}"})
                .status_code for n in range(5)]

    assert statuses == [200] * 4 + [429]
    assert browser.post("/play/login/", {"username": "anna", "password": PASSWORD}
                        ).status_code == 429


@pytest.mark.parametrize("value", ["9" * 5000, "-1.00", "1.001", "NaN", "1e400", "a\x00"])
def test_a_malformed_limit_on_the_account_page_is_shown_in_words(browser, value):
    answer = browser.post("/play/account/limits/", {"limits-wager_per_day": value,
                                                    "limits-loss_per_day": ""})
    assert answer.status_code in (200, 400), answer.status_code
    assert not PlayerLimit.objects.exists()


@pytest.mark.parametrize("value", ["forever", "x" * 10_000, "a\x00", ""])
def test_a_malformed_exclusion_on_the_account_page_is_shown_in_words(browser, value):
    answer = browser.post("/play/account/exclude/", {"exclude-period": value})
    assert answer.status_code in (200, 400), answer.status_code
