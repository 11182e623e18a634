"""The floor: every table at a glance, kept up to date by itself; and the bank's offer."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from rounds import services
from rounds.models import Round
from tests.browser.tables import make_floor, seat_row

__all__ = ["make_floor"]


@pytest.mark.django_db(transaction=True)
def test_the_floor_shows_each_tables_round_and_bank_and_refreshes_by_itself(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a player-banked round ready to deal at one table, betting at another
    banked = make_floor({1: ("Anna", 20_000), 2: ("Bram", 50_000), 3: ("Chris", 50_000)},
                        name="Salon 1")
    banked.played_round({1: 5_000}, {"1": "push"})
    by = banked.pit_boss
    round_ = services.round_open(table_id=banked.table.pk, by=by)
    services.wager_place(round_id=round_.pk, seat=2, amount=10_000, by=by)
    services.wager_place(round_id=round_.pk, seat=3, amount=4_000, by=by)
    services.banker_set(round_id=round_.pk, seat=1, house_stake=5_000, by=by)
    betting = make_floor({4: ("Dirk", 50_000)}, name="Salon 2")
    open_round = services.round_open(table_id=betting.table.pk, by=by)
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=768)
    screen.sign_in("dana")
    page = screen.page

    # then the floor shows the step, the banker, the wagers, and the bank's figures
    first = page.locator("section.table-card", has_text="Salon 1").inner_text()
    assert "Round 2: Banker set, ready to deal" in first
    assert "Banker: Seat 1 · Anna" in first
    assert "100.00 EUR" in first and "40.00 EUR" in first
    assert "On the felt against the bank\n190.00 EUR" in first
    assert "Anna must cover\n190.00 EUR" in first and "Anna has available\n200.00 EUR" in first
    assert "covered" in first
    assert "Round 1: Betting" in page.locator("section.table-card",
                                              has_text="Salon 2").inner_text()
    screen.shot("floor")

    # when a wager is placed at the other table, the floor shows it without a reload
    services.wager_place(round_id=open_round.pk, seat=4, amount=2_500, by=by)
    page.locator("section.table-card", has_text="Salon 2").get_by_text(
        "25.00 EUR").first.wait_for(timeout=12_000)
    screen.shot("floor-refreshed")


@pytest.mark.django_db(transaction=True)
def test_a_declined_bank_passes_to_the_next_seat_in_the_rotation(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given Anna and Bram, who both played against the house last round
    floor = make_floor({1: ("Anna", 50_000), 2: ("Bram", 50_000), 3: ("Chris", 50_000)})
    floor.played_round({1: 1_000, 2: 2_000}, {"1": "push", "2": "push"})
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=768)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_role("button", name="New Game").click()
    page.get_by_role("button", name="Add a 10 EUR chip to seat 3").click()
    seat_row(page, 3).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 3).get_by_test_id("wager").filter(has_text="10.00 EUR").wait_for()

    # when the rotation offers Anna the bank and she declines
    choice = page.locator(".banker-choice")
    assert "seat 1 · Anna" in choice.inner_text()
    screen.shot("offered-to-anna")
    page.get_by_role("button", name="Anna declines").click()

    # then it is offered to Bram, with his own cap
    page.locator(".banker-choice", has_text="seat 2 · Bram").wait_for()
    assert "Anna declines the bank: it passes on." in page.locator(".messages").inner_text()
    screen.shot("anna-declined")
    # and the decline is a step of the round, not a word in the address: a reload (the
    # address is the table's own) keeps the offer with Bram
    round_ = Round.objects.get(table=floor.table, number=2)
    assert round_.events.get(kind="bank_declined").data == {
        "seat": 1, "player": floor.players[1].pk}
    assert page.url.endswith(f"/tables/{floor.table.pk}/")
    page.reload()
    page.locator(".banker-choice", has_text="seat 2 · Bram").wait_for()
    assert "Declined this round: seat 1 · Anna." in page.get_by_test_id("declined").inner_text()
    expect(page.get_by_role("button", name="Anna banks")).to_have_count(0)
    assert "up to 20.00 EUR (Bram's last wager against the house)" in page.locator(
        "#stake-cap").inner_text()
    screen.shot("reloaded-offered-to-bram")
    page.get_by_label("House stake (EUR)").fill("5")
    page.get_by_role("button", name="Bram banks").click()
    page.get_by_test_id("banker").filter(has_text="Seat 2 · Bram").wait_for()
    screen.shot("bram-banks")
    round_.refresh_from_db()
    assert (round_.banker_seat, round_.house_stake) == (2, 500)
    assert round_.events.get(kind="banker_set").data["passed"] == [1]
