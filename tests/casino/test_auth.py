from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, Permission, User
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from casino.services import staff_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def dealer():
    user, _ = staff_create(username="dora", role="dealer", password="a-long-dealer-pass-1")
    return user


def test_token_login_with_the_right_password_gives_a_working_token(api_client, dealer):
    response = api_client.post(
        "/api/v1/auth/token",
        {"username": "dora", "password": "a-long-dealer-pass-1"},
        format="json",
    )

    assert response.status_code == 200
    token = response.json()["token"]
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api_client.post("/api/v1/auth/token/revoke").status_code == 204


def test_tokens_are_stored_hashed_not_in_clear(api_client, dealer):
    token = api_client.post(
        "/api/v1/auth/token",
        {"username": "dora", "password": "a-long-dealer-pass-1"},
        format="json",
    ).json()["token"]

    stored = AuthToken.objects.filter(user=dealer).values_list("digest", flat=True)
    assert stored and all(token not in digest for digest in stored)


def test_token_login_with_a_wrong_password_is_refused_in_the_error_shape(api_client, dealer):
    response = api_client.post(
        "/api/v1/auth/token", {"username": "dora", "password": "wrong"}, format="json"
    )

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_credentials"
    # no token was issued: only the one staff_create made exists
    assert AuthToken.objects.filter(user=dealer).count() == 1


def test_token_login_without_fields_names_them(api_client):
    response = api_client.post("/api/v1/auth/token", {}, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert set(error["detail"]["fields"]) == {"username", "password"}


def test_an_unauthenticated_request_is_refused(api_client):
    response = api_client.post("/api/v1/auth/token/revoke")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_a_revoked_token_no_longer_authenticates(api_client, dealer):
    token = api_client.post(
        "/api/v1/auth/token",
        {"username": "dora", "password": "a-long-dealer-pass-1"},
        format="json",
    ).json()["token"]
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    api_client.post("/api/v1/auth/token/revoke")

    response = api_client.post("/api/v1/auth/token/revoke")

    assert response.status_code == 401


# --- who presents a token (knox's TokenAuthentication) --------------------------------------

def client_with(header: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    return client


@pytest.fixture
def dealer_token() -> tuple[User, str]:
    return staff_create(username="dina", role="dealer")


def test_a_live_token_authenticates_as_its_user_and_token(dealer_token):
    # given a dealer's live token, and another user's
    user, token = dealer_token
    other, _ = staff_create(username="otto", role="dealer")

    # when it reads the tables, then revokes itself
    client = client_with(f"Token {token}")
    read = client.get("/api/v1/tables")
    revoked = client.post("/api/v1/auth/token/revoke")

    # then it was the dealer's very token that did both
    assert (read.status_code, revoked.status_code) == (200, 204)
    assert not AuthToken.objects.filter(user=user).exists()
    assert AuthToken.objects.filter(user=other).count() == 1


def test_a_new_token_expires_after_the_configured_hours(dealer_token):
    # (API_TOKEN_TTL_HOURS, 12 unless the environment says otherwise; 0: never)
    user, _ = dealer_token
    ttl = settings.REST_KNOX["TOKEN_TTL"]

    expiry = AuthToken.objects.get(user=user).expiry

    if ttl is None:
        assert expiry is None
    else:
        assert isinstance(ttl, timedelta) and expiry is not None
        assert timezone.now() + ttl - timedelta(minutes=1) < expiry <= timezone.now() + ttl


def test_an_expired_token_is_refused_and_deleted(dealer_token):
    # given a dealer's token that expired a second ago
    user, token = dealer_token
    AuthToken.objects.filter(user=user).update(expiry=timezone.now() - timedelta(seconds=1))

    # when it is presented
    response = client_with(f"Token {token}").get("/api/v1/tables")

    # then it is refused in the error shape, and gone
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"
    assert not AuthToken.objects.filter(user=user).exists()


def test_a_token_without_an_expiry_stays_valid(dealer_token):
    # (API_TOKEN_TTL_HOURS=0: tokens never expire)
    user, token = dealer_token
    AuthToken.objects.filter(user=user).update(expiry=None)

    assert client_with(f"Token {token}").get("/api/v1/tables").status_code == 200


def test_a_token_of_a_deactivated_user_is_refused(dealer_token):
    user, token = dealer_token
    user.is_active = False
    user.save(update_fields=["is_active"])

    response = client_with(f"Token {token}").get("/api/v1/tables")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


def _other_secret(token: str) -> str:
    # The first 15 characters a token is looked up by, the rest wrong.
    return token[:15] + ("1" if token[15] == "0" else "0") + token[16:]


@pytest.mark.parametrize("header", [
    lambda token: "Token " + "0" * 64,
    lambda token: f"Token {_other_secret(token)}",
    lambda token: f"Token {token[:40]}",
    lambda token: "Token caf\xe9" + "0" * 60,
    lambda token: "Token \xff\xfe",
    lambda token: f"Token {token} {token}",
], ids=["no such token", "a live token's key with another secret", "a live token cut short",
        "not UTF-8 once read as the header's bytes", "not UTF-8 at all", "two tokens"])
def test_a_token_that_is_no_token_is_refused_in_the_error_shape(dealer_token, header):
    # (the ones that are not UTF-8 were a 500: knox decodes the token unguarded)
    _, token = dealer_token

    response = client_with(header(token)).get("/api/v1/tables")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"
    assert response["WWW-Authenticate"] == "Token"


def test_a_token_that_is_not_text_is_refused_on_a_post_with_an_idempotency_key(dealer_token):
    # The idempotency middleware authenticates first: it too refuses rather than fails.
    response = client_with("Token caf\xe9" + "0" * 60).post(
        "/api/v1/tables", {"name": "T"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


# --- what a user may do (Django's ModelBackend) ---------------------------------------------

def _perm(codename: str) -> Permission:
    return Permission.objects.get(codename=codename)


def _permissions(user: User) -> set[str]:
    # A fresh user object: the backend keeps its answer on the object it was given.
    return User.objects.get(pk=user.pk).get_all_permissions()


def test_a_user_holds_their_own_and_their_groups_permissions_and_nobody_elses():
    # given: a user with one permission of their own, two groups sharing one permission,
    # and another user whose permissions must not leak in
    floor = Group.objects.create(name="t-floor")
    floor.permissions.add(_perm("view_table"), _perm("view_round"))
    cage = Group.objects.create(name="t-cage")
    cage.permissions.add(_perm("view_round"), _perm("view_player"))
    user = User.objects.create_user("t-user")
    user.user_permissions.add(_perm("reverse_round"))
    user.groups.add(floor, cage)
    other = User.objects.create_user("t-other")
    other.user_permissions.add(_perm("void_round"))
    Group.objects.create(name="t-unused").permissions.add(_perm("add_table"))

    # then the user holds exactly their own and their groups' permissions
    assert _permissions(user) == {"rounds.reverse_round", "rounds.view_table",
                                  "rounds.view_round", "casino.view_player"}
    assert not User.objects.get(pk=user.pk).has_perm("rounds.void_round")


def test_a_superuser_holds_every_permission_and_an_inactive_user_none():
    boss = User.objects.create_superuser("t-super")
    gone = User.objects.create_user("t-gone", is_active=False)
    gone.user_permissions.add(_perm("view_table"))
    gone.groups.add(Group.objects.create(name="t-gone-group"))

    assert _permissions(boss) == {
        f"{p.content_type.app_label}.{p.codename}" for p in Permission.objects.all()}
    assert _permissions(gone) == set()


def test_a_group_members_permission_decides_an_api_request(api_client):
    # given a user whose only permission comes from a group
    readers = Group.objects.create(name="t-readers")
    readers.permissions.add(_perm("view_table"))
    user = User.objects.create_user("t-reader")
    user.groups.add(readers)
    _, token = AuthToken.objects.create(user)
    client = client_with(f"Token {token}")

    # then the group's permission lets them read the tables, and nothing lets them add one
    assert client.get("/api/v1/tables").status_code == 200
    refused = client.post("/api/v1/tables", {"name": "T"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "permission_denied"
