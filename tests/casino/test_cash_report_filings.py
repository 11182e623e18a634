"""A filed cash transaction report that changes is amended, never silently (docs/rules.md,
"Cash at the cage and the tables"): each filing is kept whole (who, when, the figures
filed), a report whose figures moved since its last filing says so and is filed again,
and one that did not move is not filed twice. Issue's example: filed at 11,699.99, raised
to 17,700.00 by later movements of the day."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from casino import cash
from casino.models import CashReport, CashReportFiling
from casino.shared.errors import PermissionRefused
from tests.casino.test_cash_rules import correct, moved, register, reports

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _cage_cap_out_of_the_way(settings):
    settings.CASINO_CAGE_APPROVAL_ABOVE = "1000000.00"


def file(client, report_id):
    return client.post(f"/api/v1/cash-reports/{report_id}/file")


def filed_report(cage_client, auditor_client):
    """Anna's day at 11,699.99 in, filed by the auditor: (player id, report)."""
    anna = register(cage_client, "Anna")
    moved(cage_client, anna, "deposits", "8000.00")
    moved(cage_client, anna, "deposits", "3699.99")
    (report,) = reports(auditor_client)
    response = file(auditor_client, report["id"])
    assert response.status_code == 200, response.json()
    return anna, response.json()


def test_a_report_raised_after_filing_reads_amended_and_keeps_the_filing(cage_client,
                                                                         auditor_client):
    # given a report filed at 11,699.99
    anna, report = filed_report(cage_client, auditor_client)
    assert report["amended_since_filing"] is False
    assert [(f["cash_in"], f["cash_out"]) for f in report["filings"]] == [
        ("11699.99", "0.00")]

    # when the day's cash in rises to 17,700.00
    moved(cage_client, anna, "deposits", "6000.01")

    # then the report shows the new figures, marked amended, the filing kept as filed
    (now,) = reports(auditor_client)
    assert now["cash_in"] == "17700.00"
    assert now["amended_since_filing"] is True
    assert now["filings"] == report["filings"]
    assert now["filed_at"] == report["filed_at"]


def test_an_amended_report_is_filed_again_as_a_new_filing(cage_client, auditor_client,
                                                         staff_client):
    # given a filed report amended by a withdrawal of 10,500.00
    anna, report = filed_report(cage_client, auditor_client)
    moved(cage_client, anna, "withdrawals", "10500.00")

    # when another auditor files it again
    second = staff_client("auditor")
    response = file(second, report["id"])

    # then it is a 200 with a second filing, the first untouched
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["amended_since_filing"] is False
    assert [(f["filed_by"], f["cash_in"], f["cash_out"]) for f in body["filings"]] == [
        (auditor_client.user.username, "11699.99", "0.00"),
        (second.user.username, "11699.99", "10500.00")]
    assert body["filings"][0] == report["filings"][0]
    assert body["filed_by"] == second.user.username
    assert CashReportFiling.objects.filter(report_id=report["id"]).count() == 2


def test_a_report_unchanged_since_its_last_filing_is_refused_in_words(cage_client,
                                                                      auditor_client):
    # given a filed report
    _, report = filed_report(cage_client, auditor_client)

    # when it is filed again with nothing changed
    again = file(auditor_client, report["id"])

    # then 409, in words, and no filing is added
    assert again.status_code == 409
    error = again.json()["error"]
    assert error["code"] == "cash_report_filed"
    assert error["message"].startswith(f"Cash report #{report['id']} was filed by "
                                       f"{auditor_client.user.username} on ")
    assert "cash in 11,699.99 EUR" in error["message"]
    assert error["message"].endswith("its figures have not changed since: there is nothing "
                                     "to amend.")
    assert CashReportFiling.objects.filter(report_id=report["id"]).count() == 1


def test_a_change_undone_by_a_correction_needs_no_amendment(cage_client, auditor_client):
    # given a filed report, a later deposit, and its correction the same day
    anna, report = filed_report(cage_client, auditor_client)
    extra = moved(cage_client, anna, "deposits", "500.00")
    assert reports(auditor_client)[0]["amended_since_filing"] is True
    correct(cage_client, anna, extra)

    # then the figures are those filed again: not amended, and not filed twice
    (now,) = reports(auditor_client)
    assert now["amended_since_filing"] is False
    assert file(auditor_client, report["id"]).status_code == 409


def test_only_an_auditor_files_and_a_missing_report_is_a_404(cage_client, auditor_client,
                                                            pit_boss_client):
    anna = register(cage_client, "Anna")
    moved(cage_client, anna, "deposits", "10000.01")
    (report,) = reports(auditor_client)
    assert file(pit_boss_client, report["id"]).status_code == 403
    assert file(cage_client, report["id"]).status_code == 403
    assert file(auditor_client, 999_999).status_code == 404
    assert not CashReportFiling.objects.exists()


def test_the_list_of_reports_reads_its_filings_in_a_fixed_number_of_queries(
        cage_client, auditor_client, django_assert_max_num_queries):
    # given three players' reports, each filed and then amended
    for name in ("Anna", "Ben", "Cleo"):
        player = register(cage_client, name)
        moved(cage_client, player, "deposits", "10000.01")
        cash.cash_report_file(report_id=CashReport.objects.get(player_id=player).pk,
                              by=auditor_client.user)
        moved(cage_client, player, "deposits", "1.00")

    # then listing them reads the filings in one query, not one per report
    day = CashReport.objects.values_list("gaming_day", flat=True).distinct().get()
    with django_assert_max_num_queries(3):
        listed = cash.cash_reports(gaming_day=day)
        assert [r.amended_since_filing for r in listed] == [True, True, True]
        assert [getattr(r.last_filing, "filed_by", None) for r in listed] == [
            auditor_client.user] * 3


def test_a_filing_cannot_be_changed_or_deleted_around_the_orm(cage_client, auditor_client):
    # given a filing
    _, report = filed_report(cage_client, auditor_client)
    filing = CashReportFiling.objects.get(report_id=report["id"])

    # then PostgreSQL refuses to rewrite what was filed, or to delete it
    rewrites: list[tuple[str, list[Any]]] = [
        ("UPDATE casino_cashreportfiling SET cash_in = 1 WHERE id = %s", [filing.pk]),
        ("UPDATE casino_cashreportfiling SET filed_at = %s WHERE id = %s",
         [timezone.now(), filing.pk]),
        ("DELETE FROM casino_cashreportfiling WHERE id = %s", [filing.pk])]
    for sql, args in rewrites:
        with pytest.raises(IntegrityError, match="casino_cashreportfiling refused"), \
                transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, args)
    with pytest.raises(IntegrityError), transaction.atomic():
        CashReportFiling.objects.create(report_id=report["id"], filed_at=timezone.now(),
                                        filed_by=auditor_client.user, cash_in=-1, cash_out=0)
    assert CashReportFiling.objects.get(pk=filing.pk).cash_in == 1_169_999


def test_the_runtime_role_may_add_a_filing_but_not_change_one(cage_client, auditor_client,
                                                             as_runtime_role):
    # given a report filed as the service's runtime role
    _, report = filed_report(cage_client, auditor_client)

    # then that role cannot rewrite or delete it either (no privilege, before any trigger)
    for sql in ("UPDATE casino_cashreportfiling SET cash_in = 1",
                "DELETE FROM casino_cashreportfiling"):
        with pytest.raises(Exception, match=r"permission denied|refused"), \
                transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)
    assert CashReportFiling.objects.filter(report_id=report["id"]).count() == 1


@pytest.mark.parametrize("role", ["cage", "pit_boss"])
def test_only_an_auditor_files_whatever_door_calls_the_service(role, cage_client, staff_client):
    # given a report of the day
    player = register(cage_client, "Anna")
    moved(cage_client, player, "deposits", "10000.01")
    report = CashReport.objects.get(player_id=player)

    # when someone who may not file calls the service itself, not through a view
    with pytest.raises(PermissionRefused):
        cash.cash_report_file(report_id=report.pk, by=staff_client(role).user)

    # then nothing is filed
    assert not CashReportFiling.objects.filter(report=report).exists()
