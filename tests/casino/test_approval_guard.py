"""A request for a second person is filed pending, decided once, and what was asked never
changes (casino/migrations/0012): PostgreSQL refuses the rest to the owner and to the
service's runtime role alike, around the ORM; approving and rejecting still run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import DatabaseError, connection, transaction

from casino.shared.approvals import Approval
from ledger.models import Entry

pytestmark = pytest.mark.django_db

ROLES = ["owner", "runtime"]


def sql(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


@contextmanager
def refused(match: str) -> Iterator[None]:
    with pytest.raises(DatabaseError, match=match), transaction.atomic():
        yield


@pytest.fixture(autouse=True)
def _cage_cap(settings):
    settings.CASINO_CAGE_APPROVAL_ABOVE = "1000.00"


def ask(cage_client, amount="1500.00") -> Approval:
    """A deposit above the cage's cap: it waits for a pit boss."""
    player = cage_client.post("/api/v1/players", {"name": "Anna"}, format="json").json()["id"]
    asked = cage_client.post(f"/api/v1/players/{player}/deposits", {"amount": amount},
                             format="json")
    assert asked.status_code == 202, asked.json()
    return Approval.objects.get(pk=asked.json()["id"])


def as_role(role: str, runtime_role: str) -> None:
    if role == "runtime":
        sql(f"SET LOCAL ROLE {runtime_role}")


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("change", [
    "params = '{\"player_id\": 1, \"amount_minor\": 99999999}'",
    "action = 'cage.withdrawal'",
    "ref = 'player:1'",
    "summary = 'something else'",
    "requested_at = now() - interval '1 day'",
])
def test_what_was_asked_never_changes(cage_client, pit_boss_client, runtime_role, role,
                                      change):
    pending = ask(cage_client)
    as_role(role, runtime_role)

    # the runtime role may not even name these columns; the owner is refused by the guard
    with refused("changes only by its decision" if role == "owner" else "permission denied"):
        sql(f"UPDATE casino_approval SET {change} WHERE id = %s", [pending.pk])
    # nor with a decision made at the same time
    with refused("changes only by its decision" if role == "owner" else "permission denied"):
        sql(f"UPDATE casino_approval SET {change}, status = 'rejected', "
            "decided_by_id = %s, decided_at = now() WHERE id = %s",
            [pit_boss_client.user.pk, pending.pk])


@pytest.mark.parametrize("role", ROLES)
def test_who_asked_never_changes(cage_client, pit_boss_client, runtime_role, role):
    pending = ask(cage_client)
    as_role(role, runtime_role)

    with refused("changes only by its decision" if role == "owner" else "permission denied"):
        sql("UPDATE casino_approval SET requested_by_id = %s WHERE id = %s",
            [pit_boss_client.user.pk, pending.pk])


@pytest.mark.parametrize("role", ROLES)
def test_a_pending_request_changes_only_by_being_decided(cage_client, pit_boss_client,
                                                         runtime_role, role):
    pending = ask(cage_client)
    as_role(role, runtime_role)

    # a note or a result without a decision
    with refused("changes only by its decision"):
        sql("UPDATE casino_approval SET note = 'later' WHERE id = %s", [pending.pk])
    with refused("changes only by its decision"):
        sql("UPDATE casino_approval SET result_ref = 'entry:1' WHERE id = %s", [pending.pk])

    # the decision itself, around the ORM, goes through (it is the service's one change)
    sql("UPDATE casino_approval SET status = 'rejected', decided_by_id = %s,"
        " decided_at = now(), note = 'no source of funds' WHERE id = %s",
        [pit_boss_client.user.pk, pending.pk])
    assert Approval.objects.get(pk=pending.pk).status == "rejected"


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("change", [
    "status = 'pending', decided_by_id = NULL, decided_at = NULL",
    "status = 'approved'",
    "note = 'edited'",
    "result_ref = 'entry:1'",
    "decided_at = now() - interval '1 hour'",
])
def test_a_decided_request_never_changes(cage_client, pit_boss_client, runtime_role, role,
                                         change):
    pending = ask(cage_client)
    rejected = pit_boss_client.post(f"/api/v1/approvals/{pending.pk}/reject",
                                    {"note": "no source of funds"}, format="json")
    assert rejected.status_code == 200, rejected.json()
    as_role(role, runtime_role)

    with refused(f"request {pending.pk} was rejected and is decided once"):
        sql(f"UPDATE casino_approval SET {change} WHERE id = %s", [pending.pk])


@pytest.mark.parametrize("role", ROLES)
def test_no_request_is_deleted_or_filed_already_decided(cage_client, pit_boss_client,
                                                         runtime_role, role):
    pending = ask(cage_client)
    as_role(role, runtime_role)

    with refused("part of the record" if role == "owner" else "permission denied"):
        sql("DELETE FROM casino_approval WHERE id = %s", [pending.pk])
    with refused("a request is filed pending, undecided, not approved"):
        sql("INSERT INTO casino_approval (action, params, summary, ref, requested_by_id,"
            " requested_at, status, decided_by_id, decided_at, note, result_ref)"
            " VALUES ('cage.deposit', '{}', 'x', 'player:1', %s, now(), 'approved', %s,"
            " now(), '', '')", [cage_client.user.pk, pit_boss_client.user.pk])


def test_approving_and_rejecting_still_run_as_the_runtime_role(as_runtime_role, cage_client,
                                                               pit_boss_client):
    first, second = ask(cage_client), ask(cage_client, "1200.00")

    approved = pit_boss_client.post(f"/api/v1/approvals/{first.pk}/approve")
    rejected = pit_boss_client.post(f"/api/v1/approvals/{second.pk}/reject",
                                    {"note": "no source of funds"}, format="json")

    assert approved.status_code == 200, approved.json()
    assert rejected.status_code == 200, rejected.json()
    first.refresh_from_db()
    assert first.status == "approved" and first.result_ref.startswith("entry:")
    assert Entry.objects.filter(pk=int(first.result_ref.split(":")[1]),
                                kind="deposit").exists()
    assert Approval.objects.get(pk=second.pk).status == "rejected"
