"""The reports page in a browser: an auditor asks for the player-banked rounds as CSV,
watches it become done and downloads it; the file's banker line is the ledger's."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from casino import roles
from casino.services import player_create, player_deposit
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Line
from rounds import services
from rounds.models import Report

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def banked_round(staff_user: Any, settings: Any, tmp_path: Path) -> int:
    """The Dutch seed's round: Bram banks; 100.00 and 60.00 lose, 100.00 and 40.00 win."""
    settings.MEDIA_ROOT = tmp_path
    boss = staff_user(roles.PIT_BOSS, "pia")
    table = services.table_create(by=boss, name="Table 1", deal_modes=["results"])
    bram = player_create(name="Bram", currency="EUR", by=boss)
    player_deposit(player_id=bram.pk, amount=100_000, by=boss)
    services.seat_take(table_id=table.pk, number=1, player_id=bram.pk, by=boss)
    for seat in (2, 3, 4, 5):
        p = player_create(name=f"Speler {seat}", currency="EUR", by=boss)
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

    page.get_by_role("link", name="Reports").click()
    page.get_by_label("Kind").select_option(label="Player-banked rounds")
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
    assert [(r["banker"], r["bank_won"], r["bank_paid"], r["net"], r["commission"])
            for r in rows] == [("Bram", "160.00", "140.00", "20.00", "1.00")]
    report = Report.objects.get()
    assert report.status == "done" and report.requested_by.username == "audrey"
    # the banker's line is what the round's entry moved on Bram's account (20.00 - 1.00)
    moved = sum(Line.objects.filter(account__ref=f"player:{banked_round}",
                                    entry__kind="round_settlement")
                .values_list("amount", flat=True))
    assert moved == 2_000 - 100
