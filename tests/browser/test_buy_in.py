"""Cash at the table: the dealer takes a seated player's buy-in on the table screen, and
the ledger credits the player from the table's drop box."""

from __future__ import annotations

from typing import Any

import pytest

from casino import roles
from ledger.models import Entry
from rounds import services
from tests.browser.tables import available, make_floor, seat_row

__all__ = ["make_floor"]


@pytest.mark.django_db(transaction=True)
def test_the_dealer_takes_a_buy_in_and_the_player_is_credited_from_the_drop_box(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given Anna seated with nothing on her account, at a table Dana runs
    floor = make_floor({2: ("Anna", 0)}, name="Salon 1")
    dana = staff_user(roles.DEALER, "dana")
    services.round_open(table_id=floor.table.pk, by=dana)
    screen = screen_factory(width=1280)
    screen.sign_in("dana")
    screen.goto(f"/tables/{floor.table.pk}/")
    page = screen.page

    # when Dana types 250 in seat 2's cash field and takes the buy-in
    row = seat_row(page, 2)
    row.get_by_label("Cash (EUR)").fill("250")
    screen.shot("typed")
    row.get_by_role("button", name="Buy-in seat 2").click()

    # then the screen says so and shows Anna's new balance
    page.get_by_text("Anna (seat 2) bought in for 250.00 EUR").wait_for()
    assert "250.00 EUR" in seat_row(page, 2).get_by_test_id("available").inner_text()
    screen.shot("bought-in")
    # and the ledger: one buy-in, the drop box paying Anna's account
    entry = Entry.objects.get(kind="buy_in")
    assert sorted((line.account.kind, line.amount) for line in
                  entry.lines.select_related("account")) == [("drop_box", -25_000),
                                                             ("player", 25_000)]
    assert available(floor.players[2]) == 25_000

    # and a refusal is a sentence, with nothing moved
    seat_row(page, 2).get_by_label("Cash (EUR)").fill("0")
    seat_row(page, 2).get_by_role("button", name="Buy-in seat 2").click()
    page.get_by_text("The amount must be more than zero.").wait_for()
    screen.shot("refused")
    assert Entry.objects.filter(kind="buy_in").count() == 1
