"""Finding 3: repeated wrong passwords lock a username out, on the API and the admin."""

import logging
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from knox.models import AuthToken

from casino.services import staff_create

# Dozens of logins each, against the lockout and the throttles: `make test` (and CI) runs
# them, `make test-fast` leaves them out.
pytestmark = [pytest.mark.django_db, pytest.mark.slow]

PASSWORD = "a-long-boss-pass-42"


@pytest.fixture
def boss():
    user, _ = staff_create(username="pia", role="pit_boss", password=PASSWORD, superuser=True)
    return user


def token_login(client, password, **extra):
    return client.post("/api/v1/auth/token", {"username": "pia", "password": password},
                       format="json", **extra)


@override_settings(API_LOGIN_THROTTLE_RATE="1000/minute")
def test_sixty_wrong_passwords_lock_the_token_endpoint_even_for_the_right_one(
        api_client, boss, caplog):
    caplog.set_level(logging.WARNING, logger="casino.shared.auth")
    statuses = [token_login(api_client, f"wrong-{n}").status_code for n in range(60)]

    assert statuses[:4] == [401] * 4
    assert set(statuses[4:]) == {429}
    response = token_login(api_client, PASSWORD)
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "locked_out"
    assert "15 minutes" in error["message"]
    assert error["detail"] == {"failure_limit": 5, "retry_after_seconds": 900}
    assert response["Retry-After"] == "900"
    assert AuthToken.objects.filter(user=boss).count() == 1  # only staff_create's
    refused = [r for r in caplog.records if r.getMessage().startswith("login refused")]
    assert len(refused) == 61
    assert "username='pia'" in refused[-1].getMessage()
    assert "ip=127.0.0.1" in refused[-1].getMessage()
    assert any(r.getMessage().startswith("login locked out") for r in caplog.records)


def test_the_lock_is_per_username_and_address(api_client, boss):
    for n in range(5):
        token_login(api_client, f"wrong-{n}")

    assert token_login(api_client, PASSWORD).status_code == 429
    assert token_login(api_client, PASSWORD, REMOTE_ADDR="10.0.0.7").status_code == 200


def test_forty_wrong_admin_logins_lock_the_admin_with_a_page(boss):
    browser = Client()
    statuses = [browser.post("/admin/login/?next=/admin/",
                             {"username": "pia", "password": f"wrong-{n}"}).status_code
                for n in range(40)]

    assert statuses[:4] == [200] * 4  # the form again, with its error
    assert set(statuses[4:]) == {429}
    response = browser.post("/admin/login/?next=/admin/",
                            {"username": "pia", "password": PASSWORD})
    assert response.status_code == 429
    assert response["Content-Type"].startswith("text/html")
    assert "Too many failed logins" in response.content.decode()
    assert browser.get("/admin/").status_code == 302  # not logged in


def test_an_administrator_lifts_the_lock(api_client, boss):
    for n in range(5):
        token_login(api_client, f"wrong-{n}")
    assert token_login(api_client, PASSWORD).status_code == 429

    call_command("axes_reset_username", "pia")

    assert token_login(api_client, PASSWORD).status_code == 200


def test_the_lock_expires_after_the_cool_off(api_client, boss):
    from axes.models import AccessAttempt
    from django.utils import timezone

    for n in range(5):
        token_login(api_client, f"wrong-{n}")
    assert token_login(api_client, PASSWORD).status_code == 429

    # when the last attempt is older than the cool-off (15 minutes)
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))

    assert token_login(api_client, PASSWORD).status_code == 200


def test_the_token_endpoint_is_throttled_per_address(api_client, boss, caplog):
    caplog.set_level(logging.WARNING, logger="casino.shared.auth")
    # 20 a minute by default; right passwords count too (spraying uses many usernames)
    statuses = [token_login(api_client, PASSWORD).status_code for _ in range(4)]
    AuthToken.objects.all().delete()
    statuses += [api_client.post("/api/v1/auth/token",
                                 {"username": f"nobody{n}", "password": "x"},
                                 format="json").status_code for n in range(17)]

    assert statuses[:4] == [200] * 4
    assert statuses[4:20] == [401] * 16
    assert statuses[20] == 429
    response = token_login(api_client, PASSWORD)
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "throttled"
    assert error["detail"]["retry_after_seconds"] > 0
    assert any(r.getMessage().startswith("login throttled") for r in caplog.records)


def test_a_forwarded_for_header_does_not_move_the_throttles_address(api_client, boss):
    # given a client that names a new address in X-Forwarded-For at each attempt, from one
    # connection (REMOTE_ADDR), with no trusted proxy configured (the default)
    statuses = [api_client.post("/api/v1/auth/token",
                                {"username": f"nobody{n}", "password": "x"}, format="json",
                                HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code
                for n in range(25)]

    # then the throttle counts them all as one address: 20 a minute, then 429
    assert statuses[:20] == [401] * 20
    assert set(statuses[20:]) == {429}


def test_live_tokens_per_user_are_capped(api_client, boss):
    # staff_create issued one; the cap is 5
    statuses = [token_login(api_client, PASSWORD).status_code for _ in range(5)]

    assert statuses == [200, 200, 200, 200, 409]
    error = token_login(api_client, PASSWORD).json()["error"]
    assert error["code"] == "token_limit_reached"
    assert error["detail"] == {"live_tokens": 5, "limit": 5}
    assert AuthToken.objects.filter(user=boss).count() == 5


def test_a_revoked_or_expired_token_frees_its_place(api_client, boss):
    from django.utils import timezone

    tokens = [token_login(api_client, PASSWORD).json()["token"] for _ in range(4)]
    assert token_login(api_client, PASSWORD).status_code == 409

    api_client.credentials(HTTP_AUTHORIZATION=f"Token {tokens[0]}")
    assert api_client.post("/api/v1/auth/token/revoke").status_code == 204
    api_client.credentials()
    assert token_login(api_client, PASSWORD).status_code == 200

    AuthToken.objects.filter(user=boss).update(expiry=timezone.now())
    assert token_login(api_client, PASSWORD).status_code == 200
