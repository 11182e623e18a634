"""Who may decide a request is answered before the decision's body is read.

A caller who may not decide gets the 403 they would get with a well-formed body, not a
400 on the note: the body's rules are no business of someone the request is not for.
"""

from __future__ import annotations

import pytest

from casino import roles
from tests.players import IDENTITY_FIELDS

pytestmark = pytest.mark.django_db

BAD_BODIES = ({"note": ["not", "a", "note"]}, "not json at all")


def pending_deposit(cage_client) -> int:
    player = cage_client.post("/api/v1/players", {"name": "Anna", **IDENTITY_FIELDS},
                              format="json").json()["id"]
    asked = cage_client.post(f"/api/v1/players/{player}/deposits", {"amount": "10000.01"},
                             format="json")
    assert asked.status_code == 202, asked.json()
    return asked.json()["id"]


@pytest.mark.parametrize("decision", ["approve", "reject"])
@pytest.mark.parametrize("body", BAD_BODIES)
def test_a_clerk_who_may_not_decide_is_refused_whatever_the_body(cage_client, staff_client,
                                                                 decision, body):
    approval = pending_deposit(cage_client)
    other_clerk = staff_client(roles.CAGE)
    for clerk, code in ((cage_client, "own_request"), (other_clerk, "permission_denied")):
        kwargs = {"format": "json"} if isinstance(body, dict) else \
            {"content_type": "application/json"}
        answer = clerk.post(f"/api/v1/approvals/{approval}/{decision}", body, **kwargs)
        assert answer.status_code in (403, 404), answer.json()
        if answer.status_code == 403:
            assert answer.json()["error"]["code"] == code


def test_the_pit_boss_who_may_decide_is_told_what_is_wrong_with_the_body(cage_client,
                                                                         pit_boss_client):
    approval = pending_deposit(cage_client)
    answer = pit_boss_client.post(f"/api/v1/approvals/{approval}/approve",
                                  {"note": ["not", "a", "note"]}, format="json")
    assert answer.status_code == 400
    assert "note" in answer.json()["error"]["detail"]["fields"]
