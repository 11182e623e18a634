import pytest
from knox.models import AuthToken

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
