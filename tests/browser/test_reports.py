"""The reports page in a browser: an auditor asks for the player-banked rounds as CSV,
watches it become done and downloads it; the file's banker line is the ledger's. Then asks
for each kind from the form (only its fields, a table and a player picked by name, the
trial balance as of now) and reads each as a page.

With CASINO_DOC_SCREENSHOTS set, the reports page and a report's page are also saved as
docs/screenshots/reports.png and docs/screenshots/report-page.png (the README shows them)."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db.models import F
from playwright.sync_api import expect

from casino import roles
from casino.services import player_deposit
from casino.shared.gaming_day import gaming_day_of
from casino.shared.money import to_minor
from ledger.models import Line
from reports.models import Report
from rounds import services
from rounds.models import Round
from tests.conftest import played_rounds_rewritten
from tests.players import make_player

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def banked_round(staff_user: Any, settings: Any, tmp_path: Path) -> int:
    """The Dutch seed's round: Bram banks; 100.00 and 60.00 lose, 100.00 and 40.00 win."""
    settings.MEDIA_ROOT = tmp_path
    boss = staff_user(roles.PIT_BOSS, "pia")
    table = services.table_create(by=boss, name="Table 1", deal_modes=["results"])
    bram = make_player(name="Bram", currency="EUR", by=boss)
    player_deposit(player_id=bram.pk, amount=100_000, by=boss)
    services.seat_take(table_id=table.pk, number=1, player_id=bram.pk, by=boss)
    for seat in (2, 3, 4, 5):
        p = make_player(name=f"Speler {seat}", currency="EUR", by=boss)
        player_deposit(player_id=p.pk, amount=50_000, by=boss)
        services.seat_take(table_id=table.pk, number=seat, player_id=p.pk, by=boss)
    warm = services.round_open(table_id=table.pk, by=boss)
    services.wager_place(round_id=warm.pk, seat=1, amount=10_000, by=boss)
    services.banker_set(round_id=warm.pk, house=True, by=boss)
    services.round_settle(round_id=warm.pk, outcomes={"1": "push"}, by=boss)
    round_ = services.round_open(table_id=table.pk, by=boss)
    for seat, amount in ((2, 10_000), (5, 6_000), (3, 10_000), (4, 4_000)):
        services.wager_place(round_id=round_.pk, seat=seat, amount=amount, by=boss)
    services.banker_set(round_id=round_.pk, seat=1, house_stake=0, by=boss)
    services.round_settle(round_id=round_.pk,
                      outcomes={"2": "loss", "5": "loss", "3": "win", "4": "win"}, by=boss)
    return bram.pk


def test_an_auditor_asks_for_the_banker_report_and_downloads_it(screen_factory, staff_user,
                                                                banked_round):
    staff_user(roles.AUDITOR, "audrey")
    screen = screen_factory()
    screen.sign_in("audrey")
    page = screen.page
    day = gaming_day_of().isoformat()

    page.get_by_role("link", name="Reports", exact=True).click()
    page.get_by_label("Kind").select_option(label="Player-banked rounds")
    page.wait_for_url(re.compile(r"kind=banker"))   # the form now has the kind's fields
    page.get_by_label("Format").select_option("csv")
    page.get_by_label("From gaming day").fill(day)
    page.get_by_label("To gaming day").fill(day)
    screen.shot("1-asking")
    page.get_by_role("button", name="Ask for it").click()

    link = page.get_by_role("link", name="Download banker-")
    link.wait_for()
    screen.shot("2-done")
    with page.expect_download() as info:
        link.click()
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text("utf-8"))))
    assert [(r["player"], r["bank_won"], r["bank_paid"], r["net"], r["commission"],
             r["result"]) for r in rows] == [("Bram", "160.00", "140.00", "20.00", "1.00",
                                              "19.00")]
    report = Report.objects.get()
    assert report.status == "done" and report.requested_by.username == "audrey"
    # the banker's result is what the round's entry moved on Bram's account (20.00 - 1.00)
    moved = sum(Line.objects.filter(account__ref=f"player:{banked_round}",
                                    entry__kind="round_settlement")
                .values_list("amount", flat=True))
    assert moved == 2_000 - 100 == to_minor(rows[0]["result"], "EUR")


def _doc_shot(screen: Any, name: str) -> None:
    path = screen.shot(name)
    if os.environ.get("CASINO_DOC_SCREENSHOTS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS / f"{name}.png")


def _ask_and_read(screen: Any, kind: str, kind_label: str, fill: Any,
                  expect: list[str], doc_shot: str = "") -> Report:
    """Choose the kind (the form swaps to its fields), fill them, ask, read the report as a
    page and go back to the reports; returns the report."""
    page = screen.page
    if page.get_by_label("Kind").input_value() != kind:
        page.get_by_label("Kind").select_option(label=kind_label)
        page.wait_for_url(re.compile(f"kind={kind}"))
        page.locator(f"input[name=kind][value={kind}]").wait_for(state="attached")
    page.wait_for_load_state("networkidle")
    fill(page)
    page.get_by_label("Format").select_option("pdf")
    page.get_by_role("button", name="Ask for it").click()
    page.get_by_text(f"{kind_label} asked for").wait_for()
    newest = Report.objects.order_by("-id").first()
    assert newest is not None
    page.get_by_role("link", name=f"Download {newest.kind}-{newest.pk}.pdf").wait_for()
    page.get_by_role("link", name=f"Read #{newest.pk} as a page").click()
    page.get_by_role("heading", level=1).wait_for()
    text = page.locator("main").inner_text()
    for words in expect:
        assert words in text, (kind_label, words)
    screen.shot(f"{kind}-page")
    if doc_shot:
        _doc_shot(screen, doc_shot)
    page.get_by_role("link", name="Reports", exact=False).last.click()
    page.wait_for_url(re.compile(f"/reports/\\?kind={kind}"))
    return newest


def test_an_auditor_asks_for_each_kind_from_the_form_and_reads_it_as_a_page(
        screen_factory, staff_user, banked_round):
    staff_user(roles.AUDITOR, "audrey")
    screen = screen_factory()
    screen.sign_in("audrey")
    page = screen.page
    day = gaming_day_of()
    said = f"{day.day} {day:%b %Y}"
    # the warm-up round settled two hours before Bram's: the day has a result by hour
    played_rounds_rewritten(Round.objects.filter(number=1),
                            settled_at=F("settled_at") - timedelta(hours=2))
    page.get_by_role("link", name="Reports", exact=True).click()

    # a table's day: only the table and the gaming day are asked; the table by its name
    page.get_by_label("Kind").select_option(label="A table's day")
    page.wait_for_url(re.compile(r"kind=table_day"))
    expect(page.get_by_label("Gaming day", exact=True)).to_be_visible()
    expect(page.get_by_label("From gaming day")).to_have_count(0)
    expect(page.get_by_label("As of")).to_have_count(0)

    def table_day(p: Any) -> None:
        p.get_by_label("Table", exact=True).select_option(label="Table 1")
        p.get_by_label("Gaming day", exact=True).fill(day.isoformat())

    screen.shot("1-table-day-form")
    report = _ask_and_read(screen, "table_day", "A table's day", table_day, [
        "Table day: Table 1", f"gaming day {said}", "Hold % (house result / handle)",
        "Handle (wagers against a bank)", "400.00", "win / drop",
        "House result by hour settled"], doc_shot="report-page")
    # the list says what was asked in words
    row = page.locator(f"tr[data-report='{report.pk}']")
    assert f"Table 1, gaming day {said}" in row.inner_text()

    def floor_day(p: Any) -> None:
        p.get_by_label("Gaming day", exact=True).fill(day.isoformat())

    _ask_and_read(screen, "floor_day", "The floor's day", floor_day,
                  ["Floor day", "Total (EUR)", "8.00"])

    def banker(p: Any) -> None:
        p.get_by_label("From gaming day").fill(day.isoformat())
        p.get_by_label("To gaming day").fill(day.isoformat())

    _ask_and_read(screen, "banker", "Player-banked rounds", banker,
                  ["Bram", "160.00", "140.00", "20.00"])

    def statement(p: Any) -> None:
        p.get_by_label("Find a player by name").fill("bra")
        # the search narrows the players to those whose name holds it
        expect(p.locator("#id_player option")).to_have_count(1)
        assert "Bram" in p.get_by_label("Player", exact=True).inner_text()
        p.get_by_label("From gaming day").fill(day.isoformat())
        p.get_by_label("To gaming day").fill(day.isoformat())

    _ask_and_read(screen, "player_statement", "A player's statement", statement, [
        f"Player statement: Bram (#{banked_round})", "Opening balance", "Closing balance",
        "1,019.00"])

    def trial(p: Any) -> None:
        assert p.get_by_label("As of (casino time; leave empty for now)").input_value() == ""

    _ask_and_read(screen, "trial_balance", "Trial balance", trial,
                  ["Trial balance", "check out", "0.00"])
    page.get_by_role("link", name="Read #").first.wait_for()
    _doc_shot(screen, "reports")
    assert Report.objects.filter(status="done").count() == 5
    # the statement's closing balance is Bram's account in the ledger
    assert sum(Line.objects.filter(account__ref=f"player:{banked_round}")
               .values_list("amount", flat=True)) == 101_900


def test_an_auditor_reads_the_books_and_card_room_kinds_as_pages(screen_factory, staff_user,
                                                                banked_round):
    # the kinds the casino's books and the card room added, each asked for from the form
    staff_user(roles.AUDITOR, "audrey")
    screen = screen_factory()
    screen.sign_in("audrey")
    page = screen.page
    day = gaming_day_of()
    page.get_by_role("link", name="Reports", exact=True).click()

    def on_the_day(p: Any) -> None:
        p.get_by_label("Gaming day", exact=True).fill(day.isoformat())

    def table_and_day(p: Any) -> None:
        p.get_by_label("Table", exact=True).select_option(label="Table 1")
        on_the_day(p)

    _ask_and_read(screen, "rating", "Player ratings", on_the_day,
                  ["Player ratings", "Bram", "Theoretical win (house)"])
    _ask_and_read(screen, "cash_report", "Cash transaction reports", on_the_day,
                  ["Cash transaction reports", "CASINO_CASH_REPORT_ABOVE"])
    _ask_and_read(screen, "proposition_day", "Proposition players' day", on_the_day,
                  ["Proposition players", "No proposition player covered"])
    _ask_and_read(screen, "rotation_log", "A table's bank rotation log", table_and_day,
                  ["Rotation log: Table 1", "The bank was not offered"])
    assert Report.objects.filter(status="done").count() == 4


def test_without_script_the_kind_is_chosen_by_the_query_string(browser, live_server,
                                                                staff_user):
    from playwright.sync_api import expect

    from tests.browser.conftest import PASSWORD

    staff_user(roles.AUDITOR, "audrey")
    context = browser.new_context(java_script_enabled=False, locale="en-GB")
    try:
        page = context.new_page()
        page.goto(live_server.url + "/login/")
        page.get_by_label("Username").fill("audrey")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.goto(live_server.url + "/reports/")
        expect(page.get_by_label("Table", exact=True)).to_have_count(1)

        page.get_by_label("Kind").select_option(label="Trial balance")
        page.get_by_role("button", name="Show its fields").click()

        assert page.url.endswith("/reports/?kind=trial_balance")
        # (the new page's fields, once it has loaded: the address changes before it does)
        expect(page.get_by_label("As of (casino time; leave empty for now)")).to_have_count(1)
        expect(page.get_by_label("Table", exact=True)).to_have_count(0)
        page.reload()
        assert page.get_by_label("Kind").input_value() == "trial_balance"
    finally:
        context.close()
