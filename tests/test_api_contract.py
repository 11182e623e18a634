"""The API answers as its OpenAPI schema says: schemathesis against the app, every operation.

For each operation of /api/schema/, schemathesis generates requests from the schema (valid
ones, mostly) and sends them through the WSGI app with a token that may do everything. Each
answer must not be a server error, and must match what the schema documents for its status
(body shape, status code, content type). Bounded examples keep it to about a minute.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from casino import roles
from casino.services import player_deposit, staff_create, token_create
from rounds import services
from tests.players import make_player

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# Examples per operation: enough to reach each documented answer, few enough for a minute.
EXAMPLES = 15
CHECKS = [schemathesis.checks.not_a_server_error, response_schema_conformance,
          status_code_conformance, content_type_conformance]


@pytest.fixture
def api_schema(db):
    from django.core.wsgi import get_wsgi_application

    # The application itself, without casino/wsgi.py's start of a server process (which
    # freezes the heap out of the cycle collector's way: not in a test run).
    application = get_wsgi_application()

    # Requests go through the WSGI app, not Django's test client, which alone keeps a
    # request from closing the connection that holds the test's transaction; do as it does.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture
def floor(db):
    boss, token = staff_create(username="contract-boss", role=roles.PIT_BOSS)
    for role in (roles.CAGE, roles.DEALER, roles.AUDITOR):
        other, _ = staff_create(username=f"contract-{role}", role=role)
        boss.groups.add(*other.groups.all())  # one token that may do everything
    table = services.table_create(by=boss, name="Contract table", bank_rotation="open",
                                  banker_must_have_played=False, house_stake_cap="table_max")
    player = make_player(name="Contract", currency="EUR", by=boss)
    entry = player_deposit(player_id=player.pk, amount=100_000, by=boss)
    services.seat_take(table_id=table.pk, number=1, player_id=player.pk, by=boss)
    round_ = services.round_open(table_id=table.pk, by=boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=boss)
    # ids that exist, which half the examples use in place of generated ones
    ids = {"table_id": table.pk, "round_id": round_.pk, "player_id": player.pk,
           "entry_id": entry.pk, "seat": 1, "number": 1}
    return {"token": token, "boss": boss, "ids": ids}


def check_operation(operation, floor, seen: dict[str, set[int]]) -> None:
    """Run the operation's examples; raises what schemathesis found."""
    headers = {"Authorization": f"Token {floor['token']}"}

    @given(case=operation.as_strategy(), existing=st.booleans())
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def answers_as_documented(case, existing):
        if existing and case.path_parameters:
            case.path_parameters = {name: floor["ids"].get(name, value)
                                    for name, value in case.path_parameters.items()}
        call_headers = headers
        if operation.path == "/api/v1/auth/token/revoke":
            # a token of its own each time: revoking the run's token would end the run
            _, token = token_create(user=floor["boss"])
            call_headers = {"Authorization": f"Token {token}"}
        response = case.call_and_validate(headers=call_headers, checks=CHECKS)
        seen.setdefault(operation.label, set()).add(response.status_code)

    answers_as_documented()


def test_every_operation_answers_as_its_schema_says(api_schema, floor):
    failures: dict[str, str] = {}
    seen: dict[str, set[int]] = {}
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 25

    for operation in operations:
        try:
            check_operation(operation, floor, seen)
        # every operation is tried and all failures reported (schemathesis' FailureGroup is
        # a BaseExceptionGroup)
        except (Exception, FailureGroup) as exc:
            failures[operation.label] = "; ".join(
                str(e).splitlines()[0] for e in getattr(exc, "exceptions", [exc]))

    assert not failures, "\n\n".join(f"{label}:\n{error}" for label, error in failures.items())
    # the run's token worked: every operation but the login was answered past authentication
    # (the login itself answers generated credentials 401, and a malformed body 400 when the
    # examples happen to include one)
    login = "POST /api/v1/auth/token"
    unauthenticated = [label for label, statuses in seen.items()
                       if statuses == {401} and label != login]
    assert unauthenticated == []
    assert 401 in seen[login] and not any(200 <= status < 300 for status in seen[login])
