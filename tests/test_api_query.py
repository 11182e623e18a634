"""Every API operation takes the query parameters its schema documents, and no other.

A parameter an operation does not take is refused (400 ``invalid``, naming it), after the
caller's identity and permission (401/403 first): a misspelt filter must not read as a
filtered answer. What each view takes (``ApiView.query_names``) is compared with what the
generated OpenAPI schema documents for the same operation, so the two cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.urls import resolve
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from casino import roles
from casino.shared.api.views import ApiView

METHODS = ("get", "post", "put", "patch", "delete")
# drf-spectacular's own views (the schema and its pages) are the library's, not operations.
SCHEMA_PATHS = ("/api/schema/", "/api/docs/", "/api/redoc/")


def _schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations() -> Iterator[tuple[str, str, dict[str, Any], type[ApiView]]]:
    """(method, path, the schema's operation, the view class) of every documented one."""
    for path, ops in _schema()["paths"].items():
        view = resolve(re.sub(r"\{[^}]+\}", "1", path)).func.cls  # type: ignore[attr-defined]
        for method, operation in ops.items():
            if method in METHODS:
                yield method, path, operation, view


def documented_query(operation: dict[str, Any]) -> set[str]:
    return {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}


def test_every_api_view_is_an_api_view() -> None:
    views = {view for _, _, _, view in operations()}
    assert len(views) > 50  # the walk found the API
    assert [v.__name__ for v in views if not issubclass(v, ApiView)] == []


def test_each_operation_takes_exactly_the_query_parameters_it_documents() -> None:
    mismatched = []
    for method, path, operation, view in operations():
        taken = set(view.query_names(method.upper())) - {"format"}
        if taken != documented_query(operation):
            mismatched.append(f"{method.upper()} {path}: takes {sorted(taken)}, "
                              f"documents {sorted(documented_query(operation))}")
    assert mismatched == []


def test_paged_lists_take_their_page_and_filters_and_single_reads_take_none() -> None:
    # The comparison above would pass if both sides were empty everywhere.
    by_path = {(m, p): documented_query(o) for m, p, o, _ in operations()}
    assert {"page", "page_size", "gaming_day"} <= by_path[("get", "/api/v1/drop-counts")]
    assert by_path[("get", "/api/v1/rounds/{round_id}")] == set()


@pytest.fixture
def boss(staff_client: Callable[[str], APIClient]) -> APIClient:
    return staff_client(roles.PIT_BOSS)


@pytest.mark.django_db
def test_an_unknown_query_parameter_is_refused_naming_it(boss: APIClient) -> None:
    answer = boss.get("/api/v1/drop-counts", {"gaming-day": "2026-12-06"})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "invalid"
    assert "gaming-day" in error["detail"]["fields"]
    # The same list with the parameter it documents answers.
    assert boss.get("/api/v1/drop-counts", {"gaming_day": "2026-12-06"}).status_code == 200


@pytest.mark.django_db
def test_an_operation_without_parameters_refuses_any(boss: APIClient) -> None:
    table = boss.post("/api/v1/tables", {"name": "Query table"}, format="json").json()
    assert boss.get(f"/api/v1/tables/{table['id']}").status_code == 200
    answer = boss.get(f"/api/v1/tables/{table['id']}", {"verbose": "1"})
    assert answer.status_code == 400
    assert list(answer.json()["error"]["detail"]["fields"]) == ["verbose"]
    # A write takes none either: the table is not created.
    answer = boss.post("/api/v1/tables?dry_run=1", {"name": "Not made"}, format="json")
    assert answer.status_code == 400
    assert boss.get("/api/v1/tables").json()["count"] == 1


@pytest.mark.django_db
def test_who_asks_is_checked_before_the_query(api_client: APIClient,
                                              staff_client: Callable[[str], APIClient]) -> None:
    assert api_client.get("/api/v1/drop-counts", {"nonsense": "1"}).status_code == 401
    dealer = staff_client(roles.DEALER)
    assert dealer.get("/api/v1/ledger/entries", {"nonsense": "1"}).status_code == 403


@pytest.mark.django_db
def test_drf_format_override_is_still_taken(boss: APIClient) -> None:
    assert boss.get("/api/v1/tables", {"format": "json"}).status_code == 200
