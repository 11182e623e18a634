"""Every console page is behind the one guard, casino.shared.guards.staff_may: no view of
the console checks permissions its own way (or forgets to)."""

from __future__ import annotations

from typing import Any

from django.urls import get_resolver

# Pages anyone may open: signing in and out.
OPEN = {"console:login", "console:logout"}


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
    unguarded = [name for name, view in routes
                 if name not in OPEN and not hasattr(view, "staff_may")]
    assert unguarded == []


def test_the_guard_names_what_a_step_needs():
    guarded = dict(_console_routes())
    assert guarded["console:round-deal"].staff_may == ("rounds.run_rounds",)
    assert guarded["console:cage:deposit"].staff_may == ("casino.deposit_funds",)
    assert guarded["console:floor"].staff_may == ()
