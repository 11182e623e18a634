"""The cash log and the cash reports in a browser: an auditor opens the reports from the
menu, files a report, sees it marked amended once a later deposit changed its figures, and
files the amendment; the filings are checked in the database. Each step is looked at 1440
and 768 px wide."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from casino.models import CashReport, CashReportFiling
from casino.services import player_deposit, player_withdraw
from tests.players import make_player

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (1440, 768)


@pytest.fixture(autouse=True)
def _cage_cap_out_of_the_way(settings: Any) -> None:
    settings.CASINO_CAGE_APPROVAL_ABOVE = "1000000.00"


def shots(screen: Any, name: str) -> None:
    """The page at each width the floor's screens are read at."""
    for width in WIDTHS:
        screen.page.set_viewport_size({"width": width, "height": 900})
        screen.shot(f"{name}-{width}")
    screen.page.set_viewport_size({"width": WIDTHS[0], "height": 900})


def test_an_auditor_files_a_cash_report_and_then_its_amendment(screen_factory: Any,
                                                               staff_user: Any) -> None:
    # given Anna's day at 11,699.99 in at the cage
    carla = staff_user(roles.CAGE, "carla")
    staff_user(roles.AUDITOR, "audra")
    anna = make_player(name="Anna", currency="EUR", by=carla)
    player_deposit(player_id=anna.pk, amount=800_000, by=carla)
    player_deposit(player_id=anna.pk, amount=369_999, by=carla)
    report = CashReport.objects.get(player=anna)
    screen = screen_factory(width=WIDTHS[0])
    screen.sign_in("audra")
    page = screen.page

    # when the auditor opens the cash reports from the menu and files Anna's
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Cash reports").click()
    card = page.locator(f"[data-report='{report.pk}']")
    expect(card.locator("[data-status]")).to_have_text("Not filed")
    expect(card.locator("[data-figure=cash_in]")).to_have_text("11,699.99 EUR")
    shots(screen, "not-filed")
    card.get_by_role("button", name="File with the authority").click()

    # then it is filed, in words, with the figures filed
    expect(page.get_by_text(f"Cash report #{report.pk} of Anna is filed: cash in "
                            "11,699.99 EUR, cash out 0.00 EUR.")).to_be_visible()
    card = page.locator(f"[data-report='{report.pk}']")
    expect(card.locator("[data-status]")).to_have_text("Filed")
    expect(card.get_by_text("Filed; nothing has changed since.")).to_be_visible()
    shots(screen, "filed")

    # when later movements of the day raise it to 17,700.00 in and 500.00 out
    player_deposit(player_id=anna.pk, amount=600_001, by=carla)
    player_withdraw(player_id=anna.pk, amount=50_000, by=carla)
    page.reload()

    # then the report reads amended, the filing kept as it was
    card = page.locator(f"[data-report='{report.pk}']")
    expect(card.locator("[data-status]")).to_have_text("Amended since filing")
    expect(card.locator("[data-figure=cash_in]")).to_have_text("17,700.00 EUR")
    expect(card.get_by_text("The figures changed after the last filing (11,699.99 EUR in"
                            )).to_be_visible()
    shots(screen, "amended")

    # when the auditor files the amendment
    card.get_by_role("button", name="File the amendment").click()

    # then it is filed again, both filings shown and recorded
    expect(page.get_by_text(f"Cash report #{report.pk} of Anna is filed again as an "
                            "amendment: cash in 17,700.00 EUR, cash out 500.00 EUR."
                            )).to_be_visible()
    card = page.locator(f"[data-report='{report.pk}']")
    expect(card.locator("[data-status]")).to_have_text("Filed")
    rows = card.locator("table.filings tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(1)).to_contain_text("Amendment")
    shots(screen, "refiled")
    assert list(CashReportFiling.objects.filter(report=report).order_by("pk").values_list(
        "filed_by__username", "cash_in", "cash_out")) == [("audra", 1_169_999, 0),
                                                          ("audra", 1_770_000, 50_000)]


def test_a_pit_boss_reads_the_days_cash_log(screen_factory: Any, staff_user: Any) -> None:
    # given the day's movements at the cage, two of them above 3,000.00
    carla = staff_user(roles.CAGE, "carla")
    staff_user(roles.PIT_BOSS, "petra")
    anna = make_player(name="Anna", currency="EUR", by=carla)
    ben = make_player(name="Ben", currency="EUR", by=carla)
    player_deposit(player_id=anna.pk, amount=800_000, by=carla)
    player_deposit(player_id=ben.pk, amount=250_000, by=carla)
    player_withdraw(player_id=anna.pk, amount=420_050, by=carla)
    screen = screen_factory(width=WIDTHS[0])
    screen.sign_in("petra")
    page = screen.page

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Cash log").click()

    rows = page.locator("tbody tr[data-entry]")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Deposit at the cage (cash in)")
    expect(rows.nth(0)).to_contain_text("8,000.00 EUR")
    expect(rows.nth(1)).to_contain_text("Withdrawal at the cage (cash out)")
    expect(rows.nth(1)).to_contain_text("4,200.50 EUR")
    expect(page.get_by_text("2,500.00 EUR")).to_have_count(0)
    shots(screen, "cash-log")
