"""A table's settings in a browser, as a pit boss writes them: the commission in %, the deal
modes ticked, the card room's fee bands as rows of money; a schedule the service refuses is
said in words and changes nothing. The tables are read back from the database. Each form is
looked at 1440 and 768 px wide."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from rounds.models import Table
from tests.browser.tables import make_floor

__all__ = ["make_floor"]
pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (1440, 768)


def shots(screen: Any, name: str) -> None:
    for width in WIDTHS:
        screen.page.set_viewport_size({"width": width, "height": 900})
        screen.shot(f"{name}-{width}")
    screen.page.set_viewport_size({"width": WIDTHS[0], "height": 900})


def test_a_pit_boss_sets_a_house_tables_commission_in_percent_and_its_deal_modes(
        screen_factory: Any, staff_user: Any, make_floor: Any) -> None:
    floor = make_floor({}, name="Main 1", deal_modes=["electronic", "physical"])
    staff_user(roles.PIT_BOSS, "petra")
    screen = screen_factory(width=WIDTHS[0])
    screen.sign_in("petra")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_role("link", name="Table settings…").click()

    # the commission in %, each way of dealing a box
    commission = page.get_by_label("Commission (% of a win)")
    expect(commission).to_have_value("5")
    expect(page.get_by_label("Electronic (the service shuffles and rolls the dice)")
           ).to_be_checked()
    expect(page.get_by_label("Results only (the dealer records each outcome)")
           ).not_to_be_checked()
    shots(screen, "house-table")

    # when the pit boss takes 4.5 %, deals by hand and records results only
    commission.fill("4.5")
    page.get_by_label("Electronic (the service shuffles and rolls the dice)").uncheck()
    page.get_by_label("Results only (the dealer records each outcome)").check()
    page.get_by_role("button", name="Save the settings").click()
    page.get_by_text("The table's settings are saved.").wait_for()

    table = Table.objects.get(pk=floor.table.pk)
    assert table.commission_rate == Decimal("0.0450")
    assert table.deal_modes == ["physical", "results"]

    # and no deal mode at all is refused in words, nothing changed
    page.get_by_role("link", name="Table settings…").click()
    expect(page.get_by_label("Commission (% of a win)")).to_have_value("4.5")
    page.get_by_label("Physical (the dealer records the cards dealt)").uncheck()
    page.get_by_label("Results only (the dealer records each outcome)").uncheck()
    page.get_by_role("button", name="Save the settings").click()
    expect(page.locator(".msg-error").first).to_have_text(
        "Choose how the table's rounds may be dealt: one or more of electronic, physical, "
        "results.")
    shots(screen, "house-table-refused")
    assert Table.objects.get(pk=floor.table.pk).deal_modes == ["physical", "results"]


def test_a_pit_boss_writes_a_card_rooms_fee_bands_as_rows_of_money(
        screen_factory: Any, staff_user: Any, make_floor: Any) -> None:
    floor = make_floor({}, name="Card room 1", bank_mode="card_room", commission_rate="0",
                       collection_player=50)
    staff_user(roles.PIT_BOSS, "petra")
    screen = screen_factory(width=WIDTHS[0])
    screen.sign_in("petra")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/settings/")

    # the rules' bands, one row each, and empty rows to add one
    expect(page.get_by_label("Band 1: up to (EUR)")).to_have_value("100.00")
    expect(page.get_by_label("Band 2: fee (EUR)")).to_have_value("3.00")
    expect(page.get_by_label("Band 3: up to (EUR)")).to_have_value("")
    expect(page.get_by_label("Band 3: fee (EUR)")).to_have_value("5.00")
    expect(page.get_by_label("Band 4: fee (EUR)")).to_have_value("")
    shots(screen, "card-room-table")

    # when a limit is given to the last band, the schedule is refused in words
    page.get_by_label("Band 3: up to (EUR)").fill("1,000.00")
    page.get_by_role("button", name="Save the settings").click()
    expect(page.locator(".msg-error").first).to_contain_text(
        "The bank's collection fee bands: the last band has no limit")
    shots(screen, "card-room-refused")
    table = Table.objects.get(pk=floor.table.pk)
    assert table.collection_banker == [{"up_to": 10_000, "fee": 100},
                                       {"up_to": 50_000, "fee": 300},
                                       {"up_to": None, "fee": 500}]

    # when the third band ends at 1,000.00 and a fourth, open band takes 8.00
    page.get_by_label("Band 3: up to (EUR)").fill("1,000.00")
    page.get_by_label("Band 4: fee (EUR)").fill("8.00")
    page.get_by_role("button", name="Save the settings").click()
    page.get_by_text("The table's settings are saved.").wait_for()

    table = Table.objects.get(pk=floor.table.pk)
    assert table.collection_banker == [{"up_to": 10_000, "fee": 100},
                                       {"up_to": 50_000, "fee": 300},
                                       {"up_to": 100_000, "fee": 500},
                                       {"up_to": None, "fee": 800}]
    screen.goto(f"/tables/{floor.table.pk}/settings/")
    expect(page.get_by_label("Band 4: fee (EUR)")).to_have_value("8.00")
    shots(screen, "card-room-saved")
