"""The API's token authentication (casino.shared.api.authentication): a live token read in
one statement, everything else decided by knox's own TokenAuthentication, and both ways
accepting and refusing the same tokens."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from knox import auth as knox_auth
from knox.models import AuthToken
from knox.signals import token_expired
from rest_framework import exceptions
from rest_framework.test import APIClient

from casino.services import staff_create
from casino.shared.api.authentication import TokenAuthentication

pytestmark = pytest.mark.django_db


@pytest.fixture
def dealer_token() -> tuple[Any, str]:
    user, token = staff_create(username="dora", role="dealer")
    return user, token


def client_with(header: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    return client


def outcome(authentication: Any, token: str) -> tuple[str, Any]:
    """What an authentication makes of a token, in a savepoint rolled back after (knox
    deletes an expired token): ("user", pk) or ("refused", message)."""
    with transaction.atomic():
        try:
            user, auth_token = authentication.authenticate_credentials(token.encode())
            result: tuple[str, Any] = ("user", (user.pk, auth_token.pk))
        except exceptions.AuthenticationFailed as refused:
            result = ("refused", str(refused.detail))
        transaction.set_rollback(True)
    return result


def test_a_live_token_is_accepted_in_one_statement(dealer_token):
    # given a dealer's live token
    user, token = dealer_token

    # when the API's authentication checks it
    with CaptureQueriesContext(connection) as queries:
        found_user, auth_token = TokenAuthentication().authenticate_credentials(token.encode())

    # then it finds the token and its user in one statement
    assert (found_user.pk, found_user.username) == (user.pk, "dora")
    assert auth_token.user_id == user.pk and auth_token.token_key == token[:15]
    assert len(queries) == 1, [q["sql"] for q in queries.captured_queries]


def test_an_expired_token_is_refused_deleted_and_announced(dealer_token):
    # given a dealer's token that expired a second ago, and a listener on knox's signal
    user, token = dealer_token
    AuthToken.objects.filter(user=user).update(expiry=timezone.now() - timedelta(seconds=1))
    heard: list[dict[str, Any]] = []

    def listen(**kwargs: Any) -> None:
        heard.append(kwargs)

    token_expired.connect(listen)
    try:
        # when it is presented
        response = client_with(f"Token {token}").get("/api/v1/tables")
    finally:
        token_expired.disconnect(listen)

    # then it is refused, deleted, and knox announces it as it always has
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"
    assert not AuthToken.objects.filter(user=user).exists()
    assert [(h["username"], h["source"]) for h in heard] == [("dora", "auth_token")]


def test_a_token_of_a_deactivated_user_is_refused(dealer_token):
    user, token = dealer_token
    user.is_active = False
    user.save(update_fields=["is_active"])

    response = client_with(f"Token {token}").get("/api/v1/tables")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


@pytest.mark.parametrize("header", [
    "Token " + "0" * 64,                 # well formed, no such token
    "Token caf\xe9" + "0" * 60,          # not UTF-8 once read as the header's bytes
    "Token \xff\xfe",
])
def test_a_token_that_is_no_token_is_refused_in_the_error_shape(dealer_token, header):
    # (the one that is not UTF-8 was a 500: knox decodes it unguarded)
    response = client_with(header).get("/api/v1/tables")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


def test_a_token_that_is_not_text_is_refused_on_a_post_with_an_idempotency_key(dealer_token):
    # The idempotency middleware authenticates first: it too refuses rather than fails.
    response = client_with("Token caf\xe9" + "0" * 60).post(
        "/api/v1/tables", {"name": "T"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


Case = Callable[[Any, str], str]


def live(user: Any, token: str) -> str:
    return token


def expired(user: Any, token: str) -> str:
    AuthToken.objects.filter(user=user).update(expiry=timezone.now() - timedelta(minutes=1))
    return token


def never_expires(user: Any, token: str) -> str:
    AuthToken.objects.filter(user=user).update(expiry=None)
    return token


def deactivated(user: Any, token: str) -> str:
    user.is_active = False
    user.save(update_fields=["is_active"])
    return token


def same_key_other_secret(user: Any, token: str) -> str:
    # The first 15 characters knox looks up by, the rest wrong.
    return token[:15] + ("1" if token[15] == "0" else "0") + token[16:]


def cut_short(user: Any, token: str) -> str:
    return token[:40]


def unknown(user: Any, token: str) -> str:
    return "f" * 64


def other_live_token_of_the_user(user: Any, token: str) -> str:
    # A second live token beside an expired one: knox sweeps the expired one, both accept.
    _, second = AuthToken.objects.create(user)
    AuthToken.objects.filter(token_key=token[:15]).update(
        expiry=timezone.now() - timedelta(minutes=1))
    return second


@pytest.mark.parametrize("case", [live, expired, never_expires, deactivated,
                                  same_key_other_secret, cut_short, unknown,
                                  other_live_token_of_the_user])
def test_it_accepts_and_refuses_exactly_the_tokens_knox_does(dealer_token, case: Case):
    # given a token in one of the states a presented token can be in
    user, token = dealer_token
    presented = case(user, token)

    # when the API's authentication and knox's own check it, each in a rolled-back savepoint
    ours = outcome(TokenAuthentication(), presented)
    knox = outcome(knox_auth.TokenAuthentication(), presented)

    # then they decide alike: the same user and token, or the same refusal
    assert ours == knox


def test_with_knox_auto_refresh_on_knox_renews_the_token(dealer_token):
    # given knox's AUTO_REFRESH turned on and a token an hour from its expiry
    user, token = dealer_token
    soon = timezone.now() + timedelta(hours=1)
    AuthToken.objects.filter(user=user).update(expiry=soon)
    refreshing = {**settings.REST_KNOX, "AUTO_REFRESH": True, "TOKEN_TTL": timedelta(hours=10)}

    # when the token is presented
    with override_settings(REST_KNOX=refreshing):
        response = client_with(f"Token {token}").get("/api/v1/tables")

    # then knox renewed it, as its setting says
    assert response.status_code == 200
    assert AuthToken.objects.get(user=user).expiry > soon + timedelta(hours=8)
