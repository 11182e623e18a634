"""Amounts in the casino's writing (CASINO_LOCALE): in a decimal-comma casino a dealer types
``7,50`` for seven euros fifty, ``7.50`` is refused in words (never read as 750), and every
amount shown has its thousands separators (docs/rules.md, "Amounts on the screens")."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from ledger.models import Hold
from rounds.models import Round, Wager
from tests.browser.tables import available, make_floor, seat_row

__all__ = ["make_floor"]


@pytest.mark.django_db(transaction=True)
def test_seven_fifty_typed_with_a_decimal_comma_at_a_euro_table(
    screen_factory: Any, staff_user: Any, make_floor: Any, settings: Any
) -> None:
    # given a Dutch casino (its screens write 12.380,00) and Anna with 12,380.00 EUR at a
    # euro table whose wagers start at 2.00
    settings.CASINO_LOCALE = "nl"
    floor = make_floor({1: ("Anna", 938_000)})
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=1024)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_role("button", name="Open the first round").click()
    page.get_by_text("Round 1 is open").wait_for()
    row = seat_row(page, 1)
    assert "9.380,00 EUR" in row.inner_text()

    # when the dealer types the machine's 7.50: refused in words, nothing held
    row.get_by_label("Amount (EUR)").fill("7.50")
    row.get_by_role("button", name="Bet", exact=True).click()
    refusal = page.get_by_text("is not an amount as this casino writes them")
    refusal.wait_for()
    assert "as in 7,50" in refusal.inner_text() and "as in 1.000,50" in refusal.inner_text()
    round_ = Round.objects.get(table=floor.table)
    assert not Wager.objects.filter(round=round_).exists()
    screen.shot("seven-point-fifty-refused")

    # and then 7,50, as the casino writes it
    row = seat_row(page, 1)
    row.get_by_label("Amount (EUR)").fill("7,50")
    row.get_by_role("button", name="Bet", exact=True).click()
    row.get_by_test_id("wager").filter(has_text="7,50 EUR").wait_for()
    # the balance left, with its thousands separator
    assert "9.372,50 EUR" in seat_row(page, 1).inner_text()
    screen.shot("seven-comma-fifty-placed")

    # then one wager of 7.50 EUR is held, 750 cents, not 75,000
    wager = Wager.objects.get(round=round_, state=Wager.State.ACTIVE)
    assert wager.amount == 750
    assert Hold.objects.get(pk=wager.hold_id).amount == 750
    assert available(floor.players[1]) == 938_000 - 750


@pytest.mark.django_db(transaction=True)
def test_the_cage_takes_a_deposit_of_a_thousand_written_with_a_decimal_comma(
    screen_factory: Any, staff_user: Any, make_floor: Any, settings: Any
) -> None:
    settings.CASINO_LOCALE = "nl"
    floor = make_floor({1: ("Anna", 0)})
    staff_user(roles.CAGE, "carla")
    screen = screen_factory()
    screen.sign_in("carla")
    page = screen.page
    screen.goto(f"/cage/players/{floor.players[1].pk}/")

    deposit = page.get_by_role("region", name="Deposit")
    expect(deposit.get_by_text("for example 250,00")).to_be_visible()
    deposit.get_by_label("Amount (EUR)").fill("1.000,50")
    deposit.get_by_role("button", name="Take deposit").click()
    expect(page.get_by_role("heading", name="Deposit receipt")).to_be_visible()
    amount = page.locator("[data-figure=amount]").first.inner_text().strip()
    assert amount == "1.000,50 EUR"
    screen.shot("deposit-receipt")
    assert available(floor.players[1]) == 100_050
