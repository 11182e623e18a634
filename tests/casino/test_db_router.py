"""Reports read from the replica alias inside their snapshot, and only there."""

from __future__ import annotations

import pytest
from django.db import connection

from casino.shared.db import REPORT_READS, read_snapshot, report_database
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
