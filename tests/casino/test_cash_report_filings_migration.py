"""Filed cash reports become one filing each (casino/migrations/0015): with the figures they
had when filed, read from the report's history, and who filed them."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from casino.models import CashReport, CashReportFiling

BEFORE = ("casino", "0014_exclusions")


@pytest.mark.django_db(transaction=True)
def test_each_filed_report_becomes_one_filing_with_the_figures_it_had_when_filed(executor):
    # given, before filings were kept, a report filed at 11,699.99 and raised after to
    # 17,700.00, a report filed with its current figures, and one never filed
    executor.migrate([BEFORE])
    executor.loader.build_graph()
    old = executor.loader.project_state([BEFORE]).apps
    auditor = old.get_model("auth", "User").objects.create(username="old-auditor")
    Player = old.get_model("casino", "Player")
    Report = old.get_model("casino", "CashReport")
    filed_at = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    raised = Report.objects.create(
        player=Player.objects.create(name="Anna", currency="EUR"), gaming_day=date(2026, 12, 1),
        currency="EUR", cash_in=1_770_000, cash_out=0, filed_at=filed_at, filed_by=auditor,
        history=[{"cash_in": 1_050_000, "cash_out": 0,
                  "until": (filed_at - timedelta(hours=1)).isoformat()},
                 {"cash_in": 1_169_999, "cash_out": 0,
                  "until": (filed_at + timedelta(hours=1)).isoformat()}])
    unchanged = Report.objects.create(
        player=Player.objects.create(name="Ben", currency="EUR"), gaming_day=date(2026, 12, 1),
        currency="EUR", cash_in=1_200_000, cash_out=30_000, filed_at=filed_at,
        filed_by=auditor, history=[])
    never = Report.objects.create(
        player=Player.objects.create(name="Cleo", currency="EUR"), gaming_day=date(2026, 12, 1),
        currency="EUR", cash_in=1_100_000, cash_out=0)

    # when the filings are kept apart
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    # then each filed report has one filing, as it was filed
    assert list(CashReportFiling.objects.order_by("report_id").values_list(
        "report_id", "filed_at", "filed_by__username", "cash_in", "cash_out")) == [
        (raised.pk, filed_at, "old-auditor", 1_169_999, 0),
        (unchanged.pk, filed_at, "old-auditor", 1_200_000, 30_000)]
    amended = {r.pk: r.amended_since_filing for r in CashReport.objects.all()}
    assert amended == {raised.pk: True, unchanged.pk: False, never.pk: False}
