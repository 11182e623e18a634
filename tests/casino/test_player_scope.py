"""A player's token or session reaches only the player's own things.

Every route is enumerated from the URL configuration (``django.urls.get_resolver()``,
walked through the public attributes of its patterns), not listed by hand, so a route added
anywhere is checked: every operation of the API that is not a player's own (``for_players``)
and not public answers a player's token 403 in the one error shape, and every page of the
console and the admin answers a player's session 403.

The schema and its docs pages (/api/schema/, /api/docs/, /api/redoc/) are public and the
same for every caller (SPECTACULAR_SETTINGS' SERVE_PUBLIC): they describe the API's shape
and hold no one's data, so a player reads them as anyone does. They, the health check and
the token endpoint are the public routes: a view whose permission classes are AllowAny,
which answers a player what it answers an anonymous caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import get_resolver, resolve
from django.urls.resolvers import RegexPattern, RoutePattern, URLResolver
from rest_framework.permissions import AllowAny
from rest_framework.test import APIClient

from casino import roles
from casino.player_logins import player_login_give
from casino.services import staff_create
from tests.players import make_player

pytestmark = pytest.mark.django_db

PASSWORD = "felt-and-tiles-2026"
SAMPLES = ("1", "x", "casino", date.today().isoformat())


@dataclass(frozen=True)
class Route:
    name: str       # "api:player"
    url: str        # "/api/v1/players/1", its parameters filled
    callback: Any


def _filled(pattern: Any) -> str:
    """The pattern's text with each parameter filled with a value it takes: ints 1, dates
    today, strings "x" (a regex's group: the first sample it matches)."""
    if isinstance(pattern, RoutePattern):
        text = str(pattern)
        for name, converter in pattern.converters.items():
            sample = next(s for s in SAMPLES if re.fullmatch(converter.regex, s))
            text = re.sub(rf"<(\w+:)?{name}>", converter.to_url(converter.to_python(sample)),
                          text)
        return text
    assert isinstance(pattern, RegexPattern)
    text = str(pattern).removeprefix("^").removesuffix("$")

    def group(match: re.Match[str]) -> str:
        inner = _balanced(text, match.end())
        return next(s for s in SAMPLES if re.fullmatch(inner, s))

    while (m := re.search(r"\(\?P<\w+>", text)) is not None:
        inner = _balanced(text, m.end())
        text = text[:m.start()] + group(m) + text[m.end() + len(inner) + 1:]
    return text.replace("\\", "")


def _balanced(text: str, start: int) -> str:
    """The group's regex from ``start`` to its closing parenthesis."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            if depth == 0:
                return text[start:i]
            depth -= 1
    raise AssertionError(f"unbalanced group in {text!r}")


def routes(patterns: Sequence[Any] | None = None, namespaces: tuple[str, ...] = (),
           prefix: str = "/") -> Iterator[Route]:
    """Every route of the project, includes walked recursively, parameters filled."""
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(p, URLResolver):
            inner = (*namespaces, p.namespace) if p.namespace else namespaces
            yield from routes(p.url_patterns, inner, prefix + _filled(p.pattern))
        else:
            yield Route(":".join((*namespaces, p.name or "")), prefix + _filled(p.pattern),
                        p.callback)


def view_class(callback: Any) -> Any:
    return getattr(callback, "cls", None) or getattr(callback, "view_class", None)


def in_namespace(route: Route, *namespaces: str) -> bool:
    return route.name.partition(":")[0] in namespaces


def is_public(cls: Any) -> bool:
    return any(p is AllowAny for p in getattr(cls, "permission_classes", ()))


def methods(cls: Any) -> list[str]:
    """The HTTP methods the view has a handler for (OPTIONS and HEAD aside)."""
    return [m for m in cls.http_method_names if m not in ("options", "head") and hasattr(cls, m)]


def staff_api_operations() -> list[tuple[str, str, str]]:
    """(route name, method, url) of every API operation not a player's own, not public."""
    found = []
    for route in routes():
        if not in_namespace(route, "api"):
            continue
        cls = view_class(route.callback)
        assert cls is not None, f"{route.name} is no class-based view"
        if getattr(cls, "for_players", False) or is_public(cls):
            continue
        found += [(route.name, m, route.url) for m in methods(cls)]
    return found


def page_routes() -> list[Route]:
    return [r for r in routes() if in_namespace(r, "console", "admin")
            and not r.url.startswith("/play/")]


# --- a player, signed in ------------------------------------------------------------------

@pytest.fixture
def anna():
    clerk, _ = staff_create(username="carla", role=roles.CAGE)
    player = make_player(name="Anna Meyer")
    player_login_give(player_id=player.pk, username="anna", password=PASSWORD, by=clerk)
    player.refresh_from_db()
    return player


@pytest.fixture
def token_client(anna) -> APIClient:
    answer = APIClient().post("/api/v1/auth/token", {"username": "anna", "password": PASSWORD},
                              format="json")
    assert answer.status_code == 200, answer.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    return client


@pytest.fixture
def session_client(anna) -> Client:
    client = Client()
    client.force_login(anna.user)
    return client


# --- the walk finds what it checks ----------------------------------------------------------

def test_the_walk_fills_every_route_so_that_it_resolves_to_its_own_view():
    found = list(routes())
    assert len(found) > 100
    for route in found:
        if route.url.endswith("/(?P<url>.*)") or ".*" in route.url:
            continue
        assert resolve(route.url).func == route.callback, route


def test_the_walk_finds_the_staff_operations_and_pages_it_is_meant_to():
    operations = {(name, method) for name, method, _ in staff_api_operations()}
    assert {("api:players", "get"), ("api:players", "post"), ("api:player", "patch"),
            ("api:round-settle", "post"), ("api:player-login", "post")} <= operations
    assert not {name for name, _ in operations} & {"api:health", "api:auth-token",
                                                   "api:auth-token-revoke", "api:schema"}
    pages = {r.name for r in page_routes()}
    assert {"console:login", "console:floor", "console:cage:find", "admin:index",
            "admin:login", "admin:casino_player_changelist"} <= pages


# --- the console and the admin --------------------------------------------------------------

def test_every_console_and_admin_page_answers_a_players_session_403(session_client):
    refused = {}
    for route in page_routes():
        answer = session_client.get(route.url)
        if answer.status_code != 403:
            refused[route.name] = answer.status_code
        else:
            page = answer.content.decode()
            assert "Your account and your games are at /play/" in page
            # The way back is the player's game, not the staff's floor.
            assert 'href="/play/">Back to your game' in page
    assert refused == {}


def test_a_staff_session_still_reaches_the_console(db):
    clerk, _ = staff_create(username="carla", role=roles.CAGE)
    client = Client()
    client.force_login(clerk)
    assert client.get("/cage/").status_code == 200


def test_the_staff_sign_in_refuses_a_player_in_words(anna):
    answer = Client().post("/login/", {"username": "anna", "password": PASSWORD})

    assert answer.status_code == 200
    assert "This is the staff sign-in; players sign in at /play/login/." in \
        answer.content.decode()
    assert "_auth_user_id" not in answer.wsgi_request.session


def test_a_wrong_password_at_the_staff_sign_in_still_counts_towards_the_lockout(anna):
    browser = Client()
    statuses = [browser.post("/login/", {"username": "anna", "password": f"wrong-{n}"})
                .status_code for n in range(5)]

    assert statuses == [200] * 4 + [429]
    assert browser.post("/login/", {"username": "anna", "password": PASSWORD}
                        ).status_code == 429


# --- the API ----------------------------------------------------------------------------------

@pytest.mark.parametrize("holding", ["play_games alone", "every permission besides"])
def test_every_staff_operation_answers_a_players_token_403_in_the_one_error_shape(
        anna, token_client, holding):
    if holding == "every permission besides":
        # A login wrongly given staff permissions too is still a player's: refused by the
        # API's view class whatever the operation's own permission classes let through.
        anna.user.user_permissions.set(Permission.objects.all())
    wrong = {}
    operations = staff_api_operations()
    for name, method, url in operations:
        answer = getattr(token_client, method)(url, {}, format="json")
        body = answer.json() if answer.content else None
        if answer.status_code != 403 or not (
                isinstance(body, dict) and set(body) == {"error"}
                and set(body["error"]) == {"code", "message", "detail"}
                and body["error"]["code"] == "permission_denied"):
            wrong[f"{method.upper()} {url} ({name})"] = (answer.status_code, body)
    assert len(operations) > 50
    assert wrong == {}


def test_a_players_session_is_refused_by_the_staff_operations_too(session_client):
    # The session authenticates only where a view takes it (the player's own operations):
    # elsewhere the API's token authentication finds nobody and answers 401.
    assert session_client.get("/api/v1/players").status_code in (401, 403)


def test_a_player_reads_no_other_players_data(token_client):
    other = make_player(name="Bea Schmidt")

    for url in (f"/api/v1/players/{other.pk}", f"/api/v1/players/{other.pk}/exclusions",
                f"/api/v1/ledger/accounts?ref=player:{other.pk}"):
        answer = token_client.get(url)
        assert answer.status_code == 403, (url, answer.content)
        assert answer.json()["error"]["code"] == "permission_denied"


def test_the_public_routes_answer_a_player_what_they_answer_anyone(token_client):
    for url in ("/api/v1/health", "/api/schema/", "/api/docs/", "/api/redoc/"):
        assert token_client.get(url).status_code == APIClient().get(url).status_code == 200, url


def test_a_player_revokes_their_own_token(token_client):
    assert token_client.post("/api/v1/auth/token/revoke").status_code == 204
    assert token_client.post("/api/v1/auth/token/revoke").status_code == 401
