"""Every URL name is namespaced, so no name resolves by include order.

The REST API (``/api/v1/``, with its schema and docs) is the namespace ``api``; the pit
console's pages (the floor, tables, reports, the cage, approvals, login and logout) are
``console``; the admin keeps Django's own ``admin``. Two routes of one fully-qualified name
would make ``reverse()`` pick one by the order of the includes: refused too.

Read from ``django.urls.get_resolver()`` through the public attributes of its patterns
(``url_patterns``, ``namespace``, ``name``, ``pattern``), so a route added anywhere is checked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import get_resolver, include, path, resolve, reverse

NAMESPACES = ("api", "console", "admin")


def named_routes(patterns: Sequence[Any], namespaces: tuple[str, ...] = (),
                 prefix: str = "") -> Iterator[tuple[str, str]]:
    """(fully-qualified name, route) of every named pattern, includes walked recursively."""
    for p in patterns:
        if hasattr(p, "url_patterns"):  # an include()
            inner = (*namespaces, p.namespace) if p.namespace else namespaces
            yield from named_routes(p.url_patterns, inner, prefix + str(p.pattern))
        elif p.name:
            yield ":".join((*namespaces, p.name)), prefix + str(p.pattern)


def unnamespaced(patterns: Sequence[Any]) -> list[str]:
    """The named routes outside ``api``, ``console`` and ``admin``."""
    return sorted(f"{name} ({route})" for name, route in named_routes(patterns)
                  if name.partition(":")[0] not in NAMESPACES or ":" not in name)


def duplicates(patterns: Sequence[Any]) -> list[str]:
    """The fully-qualified names given to more than one route."""
    counts = Counter(name for name, _ in named_routes(patterns))
    return sorted(name for name, n in counts.items() if n > 1)


def _view(request: HttpRequest) -> HttpResponse:  # pragma: no cover - never called
    raise AssertionError


def test_the_walk_reaches_every_namespace() -> None:
    # A check that found no route would pass on anything.
    names = [name for name, _ in named_routes(get_resolver().url_patterns)]
    assert {n.partition(":")[0] for n in names} >= set(NAMESPACES)
    assert "console:cage:find" in names and "api:health" in names


def test_every_named_route_is_in_a_namespace() -> None:
    assert unnamespaced(get_resolver().url_patterns) == []


def test_no_name_is_given_twice() -> None:
    assert duplicates(get_resolver().url_patterns) == []


def test_the_checks_find_what_they_refuse() -> None:
    """The checks, on a URLconf with the faults they are for."""
    bad = [
        path("login/", _view, name="login"),
        path("api/", include(([path("a", _view, name="table")], "api"))),
        path("", include(([path("t/", _view, name="table"),
                           path("u/", _view, name="table")], "console"))),
        path("x/", include(([path("x", _view, name="table")], "other"))),
    ]
    assert unnamespaced(bad) == ["login (login/)", "other:table (x/x)"]
    assert duplicates(bad) == ["console:table"]


def _arguments(route: str) -> dict[str, str]:
    return {name: "1" if converter == "int" else "x"
            for converter, name in re.findall(r"<(?:(\w+):)?(\w+)>", route)}


def test_each_name_reverses_to_a_url_that_resolves_to_it() -> None:
    for name, route in named_routes(get_resolver().url_patterns):
        if name.startswith("admin:"):
            continue  # the admin's routes are regular expressions of Django's
        url = reverse(name, kwargs=_arguments(route))
        assert resolve(url).view_name == name, (name, url)
