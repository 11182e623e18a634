"""The cash rules' console pages (casino/screens/cash.py) through Django's test client: the
multiple transaction log and the cash reports, for the roles that may read them, and the
auditor's filing and amendment workflow, checked against the filings recorded; the
browser test (tests/browser/test_cash_screens.py) clicks through it."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from casino import roles
from casino.models import CashReport, CashReportFiling, Player
from casino.services import player_deposit, player_withdraw, staff_create
from casino.shared.gaming_day import gaming_day_of
from tests.players import make_player

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _cage_cap_out_of_the_way(settings):
    settings.CASINO_CAGE_APPROVAL_ABOVE = "1000000.00"


def signed_in(role: str, name: str = "") -> Client:
    user, _ = staff_create(username=name or f"screen-{role}", role=role)
    client = Client()
    client.force_login(user)
    client.user = user  # type: ignore[attr-defined]
    return client


def text(response: Any) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ",
                                                    response.content.decode())))


@pytest.fixture
def anna() -> Player:
    """Anna's day: 8,000.00 and 3,699.99 in at the cage, 11,699.99: a cash report."""
    anna = make_player(name="Anna", currency="EUR", by=None)
    player_deposit(player_id=anna.pk, amount=800_000, by=None)
    player_deposit(player_id=anna.pk, amount=369_999, by=None)
    return anna


def test_the_cash_log_lists_each_movement_above_3000_in_money(anna):
    player_deposit(player_id=anna.pk, amount=300_000, by=None)   # 3,000.00: not above
    player_withdraw(player_id=anna.pk, amount=450_050, by=None)
    cage = signed_in(roles.CAGE)

    page = cage.get("/cash/log/")

    assert page.status_code == 200
    shown = text(page)
    assert "Deposit at the cage (cash in) 8,000.00 EUR" in shown
    assert "Deposit at the cage (cash in) 3,699.99 EUR" in shown
    assert "Withdrawal at the cage (cash out) 4,500.50 EUR" in shown
    assert "3,000.00 EUR" not in shown.split("Recorded by", 1)[1]
    assert "3 movements logged." in shown


def test_the_cash_reports_page_files_a_report_then_its_amendment(anna):
    auditor = signed_in(roles.AUDITOR, "audra")
    page = auditor.get("/cash/reports/")
    assert "Report #" in text(page) and "Not filed" in text(page)
    assert "Cash in (deposits, buy-ins) 11,699.99 EUR" in text(page)
    report = CashReport.objects.get(player=anna)

    # the auditor files it
    filed = auditor.post(f"/cash/reports/{report.pk}/file/",
                         {"gaming_day": gaming_day_of().isoformat()}, follow=True)
    assert (f"Cash report #{report.pk} of Anna is filed: cash in 11,699.99 EUR, cash out "
            "0.00 EUR.") in text(filed)
    assert "Filed; nothing has changed since." in text(filed)
    assert "File with the authority" not in text(filed)

    # a later deposit raises the day to 17,700.00: marked amended, to be filed again
    player_deposit(player_id=anna.pk, amount=600_001, by=None)
    amended = text(auditor.get("/cash/reports/"))
    assert "Amended since filing" in amended
    assert "17,700.00 EUR" in amended
    assert "The figures changed after the last filing (11,699.99 EUR in" in amended

    # the amendment is filed, the first filing kept as it was
    again = auditor.post(f"/cash/reports/{report.pk}/file/", follow=True)
    assert "is filed again as an amendment: cash in 17,700.00 EUR" in text(again)
    assert list(CashReportFiling.objects.filter(report=report).order_by("pk").values_list(
        "filed_by__username", "cash_in", "cash_out")) == [("audra", 1_169_999, 0),
                                                          ("audra", 1_770_000, 0)]
    shown = text(again)
    assert "audra Filing 11,699.99 EUR 0.00 EUR" in shown
    assert "audra Amendment 17,700.00 EUR 0.00 EUR" in shown


def test_filing_unchanged_figures_again_is_refused_in_words_and_adds_nothing(anna):
    auditor = signed_in(roles.AUDITOR, "audra")
    report = CashReport.objects.get(player=anna)
    auditor.post(f"/cash/reports/{report.pk}/file/")

    again = auditor.post(f"/cash/reports/{report.pk}/file/", follow=True)

    assert (f"Cash report #{report.pk} was filed by audra on ") in text(again)
    assert "there is nothing to amend." in text(again)
    assert "cash_report_filed" not in again.content.decode()
    assert CashReportFiling.objects.filter(report=report).count() == 1


def test_a_pit_boss_reads_the_reports_but_only_an_auditor_files(anna):
    boss = signed_in(roles.PIT_BOSS)
    report = CashReport.objects.get(player=anna)

    page = text(boss.get("/cash/reports/"))
    refused = boss.post(f"/cash/reports/{report.pk}/file/")

    assert "11,699.99 EUR" in page and "An auditor files it." in page
    assert "File with the authority" not in page
    assert refused.status_code == 403
    assert "you may not file a cash transaction report" in text(refused)
    assert not CashReportFiling.objects.exists()


@pytest.mark.parametrize(("role", "log", "reports"), [
    (roles.CAGE, 200, 403), (roles.PIT_BOSS, 200, 200), (roles.AUDITOR, 200, 200),
    (roles.DEALER, 403, 403), (roles.COUNT, 403, 403)])
def test_each_role_opens_the_cash_pages_the_readme_gives_it_and_its_menu_links_them(
        anna, role, log, reports):
    client = signed_in(role)

    assert client.get("/cash/log/").status_code == log
    assert client.get("/cash/reports/").status_code == reports
    menu = client.get("/approvals/").content.decode()
    assert ('href="/cash/log/"' in menu) is (log == 200)
    assert ('href="/cash/reports/"' in menu) is (reports == 200)


def test_signed_out_the_cash_pages_send_to_the_login_page():
    response = Client().get("/cash/reports/")
    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/cash/reports/"


@pytest.mark.parametrize("page", ["/cash/log/", "/cash/reports/"])
def test_a_day_that_is_not_a_day_is_said_in_words(page):
    response = signed_in(roles.AUDITOR).get(f"{page}?gaming_day=yesterday")
    assert response.status_code == 400
    assert "Choose a day, e.g. 2026-12-06." in text(response)


def test_another_days_reports_are_shown_for_that_day(anna):
    auditor = signed_in(roles.AUDITOR)
    day = gaming_day_of()

    shown = text(auditor.get(f"/cash/reports/?gaming_day={day.replace(year=day.year - 1)}"))

    assert "No cash transaction report on this gaming day." in shown
