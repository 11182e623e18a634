"""Every console page is behind the one guard, casino.shared.guards.staff_may: no view of
the console checks permissions its own way (or forgets to)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory
from django.urls import get_resolver

from casino.services import staff_create
from casino.shared.guards import staff_user

ROOT = Path(__file__).resolve().parents[2]

# Pages anyone may open: signing in and out (the players' sign-in too).
OPEN = {"console:login", "console:logout", "console:play-login"}


def _console_routes() -> list[tuple[str, Any]]:
    routes = []

    def walk(patterns: Any, namespaces: tuple[str, ...]) -> None:
        for p in patterns:
            if hasattr(p, "url_patterns"):
                walk(p.url_patterns, (*namespaces, p.namespace) if p.namespace else namespaces)
            elif namespaces[:1] == ("console",) and p.name:
                routes.append((":".join((*namespaces, p.name)), p.callback))

    walk(get_resolver().url_patterns, ())
    return routes


def test_every_console_page_but_signing_in_is_behind_the_one_guard():
    routes = _console_routes()
    assert len(routes) > 30  # the walk found the console
    # A player's own pages (/play/...) have the players' one guard, player_only.
    unguarded = [name for name, view in routes if name not in OPEN
                 and not hasattr(view, "staff_may") and not hasattr(view, "player_only")]
    assert unguarded == []


def test_the_guard_names_what_a_step_needs():
    guarded = dict(_console_routes())
    assert guarded["console:round-deal"].staff_may == ("rounds.run_rounds",)
    assert guarded["console:cage:deposit"].staff_may == ("casino.deposit_funds",)
    assert guarded["console:floor"].staff_may == ()


def test_the_staff_member_recorded_as_by_is_the_signed_in_user_and_nobody_else(db):
    # given a request from a signed-in dealer and one from nobody
    dealer, _ = staff_create(username="dora", role="dealer")
    signed_in, anonymous = RequestFactory().post("/"), RequestFactory().post("/")
    signed_in.user, anonymous.user = dealer, AnonymousUser()

    # then the first is the dealer's, and the second is refused rather than recorded
    assert staff_user(signed_in) == dealer
    with pytest.raises(PermissionDenied):
        staff_user(anonymous)


def test_no_screen_reads_the_signed_in_user_its_own_way():
    # (one home, casino.shared.guards.staff_user; an own copy was written five times)
    screens = [*ROOT.glob("*/screens/*.py"), *ROOT.glob("*/screens.py"), *ROOT.glob("*/admin*.py")]
    assert len(screens) > 10  # the glob found the screens
    own = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in screens
           for node in ast.walk(ast.parse(path.read_text()))
           if isinstance(node, ast.FunctionDef) and node.name in ("_user", "staff_user")]
    assert own == []
