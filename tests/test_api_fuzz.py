"""No input makes the API fail with a server error: random bodies at every write endpoint.

Each answer must be a 2xx, or a 4xx in the one error shape. A 5xx on any input is a bug.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino import roles
from casino.services import player_deposit, staff_create
from casino.shared.approvals import approval_request
from reports.models import Report
from rounds import services
from tests.players import make_player

pytestmark = pytest.mark.django_db

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12),
    st.sampled_from(["20.00", "0", "-1", "1e3", "AS", "JK", "AS KD", "house", "dealer", "1",
                     "10.005", "win", "99999999999999999999"]),
)
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=8), st.dictionaries(st.text(max_size=8), inner, max_size=5)),
    max_leaves=12)
field_names = st.sampled_from([
    "seat", "amount", "house", "house_stake", "hands", "position", "high", "low", "house_way",
    "as_played", "outcomes", "reason", "results_only", "player", "name", "min_bet", "max_bet",
    "commission_rate", "wheel", "house_way", "currency", "reference", "search", "entry",
    "note", "deal_modes", "kind", "format", "table", "gaming_day", "date_from", "date_to",
    "as_of",
])
bodies = st.one_of(json_values, st.dictionaries(field_names, json_values, max_size=5))

ENDPOINTS = [
    ("post", "/api/v1/rounds/{round}/wagers"),
    ("post", "/api/v1/rounds/{round}/rebet"),
    ("post", "/api/v1/rounds/{round}/banker"),
    ("post", "/api/v1/rounds/{round}/deal"),
    ("post", "/api/v1/rounds/{round}/hands"),
    ("post", "/api/v1/rounds/{round}/settle"),
    ("post", "/api/v1/rounds/{round}/void"),
    ("post", "/api/v1/rounds/{round}/reverse"),
    ("post", "/api/v1/tables"),
    ("patch", "/api/v1/tables/{table}"),
    ("put", "/api/v1/tables/{table}/seats/2"),
    ("post", "/api/v1/players"),
    ("post", "/api/v1/players/{player}/deposits"),
    ("post", "/api/v1/players/{player}/withdrawals"),
    ("post", "/api/v1/players/{player}/corrections"),
    ("post", "/api/v1/ledger/entries/{entry}/reverse"),
    ("post", "/api/v1/approvals/{approval}/approve"),
    ("post", "/api/v1/approvals/{approval}/reject"),
    ("post", "/api/v1/reports"),
    ("post", "/api/v1/reports/{report}/retry"),
    ("post", "/api/v1/gaming-days/close"),
]


@pytest.fixture
def floor(db):
    boss, token = staff_create(username="fuzzboss", role=roles.PIT_BOSS)
    user, _ = staff_create(username="fuzzcage", role=roles.CAGE)
    boss.groups.add(*user.groups.all())  # one client that may do everything
    table = services.table_create(by=boss, name="Fuzz table", bank_rotation="open",
                                  banker_must_have_played=False, house_stake_cap="table_max")
    player = make_player(name="Fuzz", currency="EUR", by=boss)
    entry = player_deposit(player_id=player.pk, amount=100_000, by=boss)
    # A large deposit the cage asked for, waiting for the pit boss (casino.shared.approvals).
    approval = approval_request(action="cage.deposit", by=user,
                                params={"player_id": player.pk, "amount_minor": 2_000_000})
    services.seat_take(table_id=table.pk, number=1, player_id=player.pk, by=boss)
    round_ = services.round_open(table_id=table.pk, by=boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=boss)
    # A report that failed, so a retry may be asked (queued again, made after commit).
    report = Report.objects.create(kind="floor_day", format="csv", status="failed",
                                   error="made up", requested_by=boss,
                                   parameters={"gaming_day": "2026-01-01"})
    return {"token": token, "table": table.pk, "player": player.pk, "round": round_.pk,
            "entry": entry.pk, "approval": approval.pk, "report": report.pk}


@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@pytest.mark.slow  # seconds of fuzzing, sampling or waiting: make test runs it
@given(body=bodies)
def test_no_body_makes_a_write_endpoint_fail_with_a_server_error(api_client, floor, method,
                                                                 url, body):
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {floor['token']}")

    response = getattr(api_client, method)(url.format(**floor), body, format="json")

    assert response.status_code < 500, response.content
    if response.status_code >= 400:
        error = response.json()["error"]
        assert set(error) == {"code", "message", "detail"}
