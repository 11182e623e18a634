"""Reports read from the replica alias inside their snapshot, and only there."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection, transaction

from casino.shared import db
from casino.shared.db import (
    PRIMARY,
    REPORT_READS,
    ReadFrom,
    read_from,
    read_snapshot,
    report_database,
)
from casino.shared.db_router import ReportsRouter
from ledger.models import Entry

pytestmark = pytest.mark.django_db


def test_without_a_replica_reports_read_the_default_database():
    router = ReportsRouter()

    with read_snapshot() as alias:
        assert alias == report_database() == "default"
        assert router.db_for_read(Entry) is None
        assert Entry.objects.all().db == "default"


def test_inside_a_report_of_a_replica_every_read_is_routed_to_it_and_writes_are_not():
    router = ReportsRouter()
    token = REPORT_READS.set("reports")
    try:
        assert router.db_for_read(Entry) == "reports"
        assert router.db_for_write(Entry) == "default"
    finally:
        REPORT_READS.reset(token)
    assert router.db_for_read(Entry) is None
    assert router.allow_migrate("reports", "ledger") is False
    assert router.allow_migrate("default", "ledger") is True


@pytest.mark.django_db(transaction=True)
def test_a_report_on_its_own_reads_a_repeatable_read_read_only_snapshot():
    with read_snapshot(), connection.cursor() as cursor:
        cursor.execute("SHOW transaction_isolation")
        assert cursor.fetchone()[0] == "repeatable read"
        cursor.execute("SHOW transaction_read_only")
        assert cursor.fetchone()[0] == "on"


def test_a_report_read_inside_a_transaction_on_the_default_database_reads_there(monkeypatch):
    # given a replica configured for reports, and a service's transaction on the default
    # database (the gaming day's close stores the figures it reads: they must be its own)
    monkeypatch.setattr(db, "report_database", lambda: "reports")
    # when a selector opens its snapshot inside it
    with transaction.atomic(), read_snapshot() as alias:
        # then it reads the default database, in that transaction, and says so
        assert alias == "default"
        assert read_from() == PRIMARY
        assert Entry.objects.all().db == "default"


def test_a_report_of_the_primary_says_it_read_the_primary():
    with read_snapshot():
        assert read_from().sentence == "Read from the primary database (no replica configured)."
    with pytest.raises(AssertionError):
        read_from()


@pytest.mark.django_db(transaction=True)
def test_the_lag_reader_says_a_server_not_in_recovery_is_not_a_standby():
    # the replica's measure, taken on the primary (no standby here: tests/test_replica.py
    # starts a real one)
    with read_snapshot(using="default"):
        measured = db._measure("default")
    assert measured.replica and not measured.standby and measured.behind_s is None
    assert "was not in recovery" in measured.sentence


@pytest.mark.parametrize(("source", "said"), [
    (ReadFrom(replica=True, standby=True, streaming=True, behind_s=0,
              replayed_to=datetime(2026, 12, 6, 7, 0, tzinfo=UTC)),
     "Read from the replica, replayed up to 2026-12-06T08:00:00+01:00: 0 s behind (it had "
     "replayed all it had received from the primary)."),
    (ReadFrom(replica=True, standby=True, streaming=False, behind_s=42,
              read_at=datetime(2026, 12, 6, 7, 1, tzinfo=UTC),
              replayed_to=datetime(2026, 12, 6, 7, 0, 18, tzinfo=UTC)),
     "Read from the replica, not connected to the primary, replayed up to "
     "2026-12-06T08:00:18+01:00: 42 s behind when read at 2026-12-06T08:01:00+01:00."),
    (ReadFrom(replica=True, standby=True, streaming=True),
     "Read from the replica, nothing replayed since it started: how far behind is unknown."),
])
def test_how_far_behind_a_replica_was_is_said_in_words(settings, source, said):
    settings.TIME_ZONE = "Europe/Vienna"
    assert source.sentence == said
    assert source.as_dict()["said"] == said
