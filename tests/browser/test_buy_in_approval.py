"""Two people for cash past a line, in the browser: a dealer's buy-in past the buy-in line
waits on the table screen until a pit boss approves it on the approvals screen, and a cage
deposit past the cage's line says the day's total, waits, and once approved its receipt is
one click away. The ledger is checked after each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from casino.services import player_deposit
from casino.shared.approvals import Approval
from ledger.models import Entry
from rounds import services
from rounds.services.drop import buy_in_take
from tests.browser.tables import available, make_floor, seat_row
from tests.players import make_player

__all__ = ["make_floor"]

# Where the screenshots are kept for people to look at (1440 and 768 wide).
SHOTS = Path("/work/shots/35")


def both_widths(screen: Any, name: str) -> None:
    """The page as it is, at 1440 and at 768 px wide, saved for the issue."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1440, 768):
        screen.page.set_viewport_size({"width": width, "height": 900})
        screen.page.wait_for_timeout(150)
        screen.page.screenshot(path=str(SHOTS / f"buyin-{name}-{width}.png"), full_page=True)
    screen.page.set_viewport_size({"width": 1440, "height": 900})
    screen.shot(name)


@pytest.mark.django_db(transaction=True)
def test_a_buy_in_past_the_line_waits_until_a_pit_boss_approves_it_in_the_browser(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given Anna seated with nothing on her account at a table Dana runs
    floor = make_floor({2: ("Anna", 0)}, name="Table 1")
    anna = floor.players[2]
    dana = staff_user(roles.DEALER, "dana")
    services.round_open(table_id=floor.table.pk, by=dana)   # Dana runs it: sees balances
    dealer = screen_factory(width=1440, who="dana")
    dealer.sign_in("dana")
    dealer.goto(f"/tables/{floor.table.pk}/")

    # when Dana takes 2,500.00 from Anna, past the line of 2,000.00
    row = seat_row(dealer.page, 2)
    row.get_by_label("Cash (EUR)").fill("2500")
    row.get_by_role("button", name="Buy-in seat 2").click()

    # then the screen says it waits for a pit boss, with the request, and credits nothing
    dealer.page.get_by_text("It is waiting for a pit boss's approval").wait_for()
    waiting = seat_row(dealer.page, 2).get_by_test_id("buy-in-waiting")
    expect(waiting).to_contain_text("2,500.00 EUR waiting for a pit boss's approval")
    asked = Approval.objects.get(action="rounds.buy_in")
    expect(waiting.get_by_role("link", name=f"request #{asked.pk}")).to_be_visible()
    expect(seat_row(dealer.page, 2).get_by_test_id("available")).to_have_text("0.00 EUR")
    both_widths(dealer, "table-waiting")
    assert not Entry.objects.filter(kind="buy_in").exists()

    # when Pat, a pit boss, approves it on the approvals screen
    boss = screen_factory(width=1440, who="pat")
    boss.sign_in("pat")
    boss.goto("/approvals/")
    pending = boss.page.locator(f"tr[data-approval='{asked.pk}']")
    expect(pending).to_contain_text("Buy-in of 2,500.00 EUR by Anna at Table 1, seat 2")
    expect(pending).to_contain_text("above the line of 2,000.00 EUR")
    both_widths(boss, "approvals-list")
    pending.get_by_role("button", name="Approve").click()
    boss.page.get_by_text(f"Request #{asked.pk} is approved").wait_for()
    boss.shot("approved")

    # then the buy-in is posted, and the table, one click away, shows Anna's balance
    boss.page.locator("#messages").get_by_role("link", name="At the table").click()
    expect(seat_row(boss.page, 2).get_by_test_id("available")).to_have_text("2,500.00 EUR")
    boss.shot("at-the-table")
    dealer.goto(f"/tables/{floor.table.pk}/")
    expect(seat_row(dealer.page, 2).get_by_test_id("available")).to_have_text("2,500.00 EUR")
    expect(dealer.page.get_by_test_id("buy-in-waiting")).to_have_count(0)
    dealer.shot("credited")
    (entry,) = Entry.objects.filter(kind="buy_in")
    assert sorted((line.account.kind, line.amount) for line in
                  entry.lines.select_related("account")) == [("drop_box", -250_000),
                                                             ("player", 250_000)]
    assert entry.created_by is not None and entry.created_by.username == "dana"
    assert available(anna) == 250_000


@pytest.mark.django_db(transaction=True)
def test_the_cage_says_the_days_total_and_the_approved_receipt_is_one_click_away(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given Anna, who deposited 4,321.50 and 4,678.50 today and bought in 1,200.00 at a table
    floor = make_floor({1: ("Anna", 0)}, name="Table 1")
    anna = floor.players[1]
    clerk = staff_user(roles.CAGE, "carla")
    dana = staff_user(roles.DEALER, "dana")
    player_deposit(player_id=anna.pk, amount=432_150, by=clerk)
    player_deposit(player_id=anna.pk, amount=467_850, by=clerk)
    buy_in_take(table_id=floor.table.pk, seat=1, amount=120_000, by=dana)
    make_player(name="Bea", by=clerk)
    cage = screen_factory(width=1440, who="carla")
    cage.sign_in("carla")
    cage.goto(f"/cage/players/{anna.pk}/")

    # when Carla takes a deposit of 1,500.00, which brings the day past 10,000.00
    cage.page.locator("#deposit-title").wait_for()
    cage.page.get_by_label("Amount (EUR)").first.fill("1500")
    cage.page.get_by_role("button", name="Take deposit").click()

    # then the sentence names the day's total and the line, and nothing moved
    sentence = ("Deposit of 1,500.00 EUR for Anna: brings today's deposits to 10,500.00 EUR, "
                "above the cage's line of 10,000.00 EUR")
    cage.page.locator("#messages").get_by_text(sentence).wait_for()
    main = cage.page.locator("main")
    expect(main).to_contain_text("Available to withdraw")
    expect(cage.page.locator("[data-figure=available]")).to_have_text("10,200.00 EUR")
    expect(cage.page.get_by_test_id("uncounted")).to_contain_text(
        "1,200.00 EUR of Anna's balance came from buy-ins at Table 1 not yet counted")
    both_widths(cage, "cage-approval-sentence")
    assert Entry.objects.filter(kind="deposit").count() == 2

    # when Pat approves it
    boss = screen_factory(width=1440, who="pat")
    boss.sign_in("pat")
    boss.goto("/approvals/")
    asked = Approval.objects.get(action="cage.deposit")
    boss.page.locator(f"tr[data-approval='{asked.pk}']").get_by_role(
        "button", name="Approve").click()
    boss.page.get_by_text(f"Request #{asked.pk} is approved").wait_for()
    deposit = Entry.objects.filter(kind="deposit").latest("id")
    decided = boss.page.locator(f"tr[data-decided='{asked.pk}']")
    expect(decided.get_by_test_id("result-link")).to_have_text(f"Receipt #{deposit.pk}")
    both_widths(boss, "approvals-receipt-link")

    # then the receipt is one click away, and the player's page writes money as the casino does
    decided.get_by_test_id("result-link").click()
    expect(boss.page.locator("[data-figure=amount]")).to_have_text("1,500.00 EUR")
    boss.shot("receipt")
    cage.goto(f"/cage/players/{anna.pk}/")
    expect(cage.page.locator("[data-figure=available]")).to_have_text("11,700.00 EUR")
    expect(cage.page.locator("[data-figure=cash-in]")).to_have_text("11,700.00 EUR")
    expect(cage.page.get_by_test_id("approved-receipt")).to_have_text(f"Receipt #{deposit.pk}")
    both_widths(cage, "cage-player")
    assert deposit.lines.get(account__kind="player").amount == 150_000
