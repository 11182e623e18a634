"""The cage gives a player their own login (casino.player_logins): through the API and the
cage's console page, one service; the player signs in like staff, lockout included."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from knox.models import AuthToken
from rest_framework.test import APIClient

from casino import roles
from casino.models import Player
from casino.player_logins import player_login_give
from casino.services import staff_create
from casino.shared.api.permissions import is_player
from casino.shared.errors import DomainError
from tests.players import make_player

pytestmark = pytest.mark.django_db

PASSWORD = "felt-and-tiles-2026"


@pytest.fixture
def anna() -> Player:
    return make_player(name="Anna Meyer")


@pytest.fixture
def clerk():
    user, _ = staff_create(username="carla", role=roles.CAGE, password="a-long-cage-pass-9")
    return user


def give(client: APIClient, player_id: int, username: str = "anna",
         password: str = PASSWORD):
    return client.post(f"/api/v1/players/{player_id}/login",
                       {"username": username, "password": password}, format="json")


def token_of(username: str, password: str = PASSWORD, **extra):
    return APIClient().post("/api/v1/auth/token", {"username": username, "password": password},
                            format="json", **extra)


def test_the_player_group_holds_exactly_play_games_and_is_no_staff_role():
    group = Group.objects.get(name=roles.PLAYER)
    held = {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}
    assert held == {"casino.play_games"} == roles.intended_permissions(roles.PLAYER)
    assert roles.PLAYER not in roles.ROLES
    assert not any("casino.play_games" in roles.intended_permissions(r) for r in roles.ROLES)
    with pytest.raises(ValueError, match="unknown role"):
        staff_create(username="pete", role=roles.PLAYER)


def test_the_cage_gives_a_login_and_the_player_takes_a_token_like_staff(cage_client, anna):
    answer = give(cage_client, anna.pk)

    assert answer.status_code == 201, answer.content
    assert answer.json() == {"player": anna.pk, "username": "anna"}
    anna.refresh_from_db()
    user = anna.user
    assert not user.is_staff and not user.is_superuser
    assert list(user.groups.values_list("name", flat=True)) == [roles.PLAYER]
    assert is_player(user)
    signed_in = token_of("anna")
    assert signed_in.status_code == 200, signed_in.content
    assert signed_in.json()["token"]


def test_a_reset_revokes_the_tokens_and_sessions_of_the_old_password(cage_client, anna):
    give(cage_client, anna.pk)
    token = token_of("anna").json()["token"]
    browser = Client()
    anna.refresh_from_db()
    assert anna.user is not None
    browser.force_login(anna.user)
    assert browser.get("/").status_code == 403  # signed in: no staff page for a player
    me = APIClient()
    me.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert me.post("/api/v1/auth/token/revoke").status_code == 204  # a player's own
    token = token_of("anna").json()["token"]

    answer = give(cage_client, anna.pk, password="another-long-pass-77")

    assert answer.status_code == 200, answer.content
    assert answer.json() == {"player": anna.pk, "username": "anna"}
    assert AuthToken.objects.filter(user__username="anna").count() == 0
    me.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert me.post("/api/v1/auth/token/revoke").status_code == 401
    # the browser's session was opened with the old password: it is signed out now
    assert browser.get("/").status_code == 302
    assert token_of("anna").status_code == 401
    assert token_of("anna", "another-long-pass-77").status_code == 200


@pytest.mark.parametrize(("username", "code"), [("annie", "username_mismatch"),
                                                ("carla", "username_taken")])
def test_a_username_taken_or_another_than_the_players_is_refused(cage_client, anna, clerk,
                                                                 username, code):
    if code == "username_mismatch":
        give(cage_client, anna.pk)
        other = make_player(name="Bea").pk
    else:
        other = anna.pk
    player = anna.pk if code == "username_mismatch" else other

    answer = give(cage_client, player, username=username)

    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == code


def test_a_proposition_player_gets_no_login(cage_client):
    props = make_player(name="Westside Props Ltd", kind="proposition", licence="TPPP-2291")

    answer = give(cage_client, props.pk)

    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "proposition_no_login"
    assert not Player.objects.get(pk=props.pk).user_id


def test_a_weak_password_is_refused_in_words(cage_client, anna):
    answer = give(cage_client, anna.pk, password="12345678")

    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "invalid_password"
    assert "too common" in error["message"]
    anna.refresh_from_db()
    assert anna.user is None


def test_only_the_cage_gives_a_login_whatever_the_door(dealer_client, anna):
    assert give(dealer_client, anna.pk).status_code == 403
    with pytest.raises(DomainError) as refused:
        player_login_give(player_id=anna.pk, username="anna", password=PASSWORD,
                          by=dealer_client.user)
    assert refused.value.code == "permission_denied"


def test_a_players_login_is_locked_out_like_staffs(cage_client, anna):
    give(cage_client, anna.pk)
    statuses = [token_of("anna", f"wrong-{n}").status_code for n in range(5)]

    assert statuses == [401] * 4 + [429]
    answer = token_of("anna")
    assert answer.status_code == 429
    assert answer.json()["error"]["code"] == "locked_out"
    assert token_of("anna", REMOTE_ADDR="10.0.0.7").status_code == 200


def test_the_cage_gives_a_login_on_the_players_console_page(clerk, anna):
    browser = Client()
    browser.force_login(clerk)
    page = browser.get(f"/cage/players/{anna.pk}/")
    assert "Give a login" in page.content.decode()

    weak = browser.post(f"/cage/players/{anna.pk}/login/",
                        {"login-username": "anna", "login-password": "12345678"})
    assert weak.status_code == 400
    assert "too common" in weak.content.decode()

    done = browser.post(f"/cage/players/{anna.pk}/login/",
                        {"login-username": "anna", "login-password": PASSWORD}, follow=True)
    assert "Anna Meyer signs in as anna" in done.content.decode()
    assert "Reset the password" in done.content.decode()
    assert token_of("anna").status_code == 200
