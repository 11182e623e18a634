"""The admin as pit staff and auditors read it: money in the currency's unit, times in the
casino's zone, hearts and diamonds in red, refusals in words, the settlement table whole at
768 px, and a 403 page in words for a role that may not look."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils.timezone import localtime
from playwright.sync_api import expect

from casino import roles
from casino.services import player_deposit
from casino.shared.templatetags.casino_time import casino_time_text
from ledger.models import Account, Hold
from rounds import services
from rounds.models import Round, RoundEvent
from tests.players import make_player

pytestmark = pytest.mark.django_db(transaction=True)

# The rules page's players A, B and C against the dealer's 5 5 T 4 2 / K Q (house-banked),
# recorded from a physical table (as in tests/rounds/test_admin.py).
DEALT = {
    "dealer": "5S 5H TD 4C 2S KD QC",
    "1": "AH TS 9C 6D 3H KS QH",
    "2": "KC JC 8C 6C 3C AS 2D",
    "3": "5D 5C JH 8S 3D KH QD",
}
SET = {"1": ("AH TS 9C 6D 3H", "KS QH"), "2": ("KC JC 8C 6C 3C", "AS 2D"),
       "3": ("5D 5C JH 8S 3D", "KH QD")}


@pytest.fixture
def played(staff_user: Any) -> Round:
    """A settled round: A loses 20.00, B wins 20.00 less 1.00 commission, C pushes."""
    boss = staff_user(roles.PIT_BOSS, "pia")
    table = services.table_create(by=boss, name="Table 1")
    for seat, name in ((1, "Anna"), (2, "Bram"), (3, "Cor")):
        player = make_player(name=name, currency="EUR", by=boss)
        player_deposit(player_id=player.pk, amount=59_500, by=boss)
        services.seat_take(table_id=table.pk, number=seat, player_id=player.pk, by=boss)
    round_ = services.round_open(table_id=table.pk, by=boss)
    for seat in (1, 2, 3):
        services.wager_place(round_id=round_.pk, seat=seat, amount=2_000, by=boss)
    services.banker_set(round_id=round_.pk, house=True, by=boss)
    services.round_deal(round_id=round_.pk, hands=DEALT, by=boss)
    for position, (high, low) in SET.items():
        services.hand_set(round_id=round_.pk, position=position, high=high, low=low, by=boss)
    return services.round_settle(round_id=round_.pk, by=boss)


def test_admin_pages_show_money_in_the_unit_times_in_the_zone_and_red_hearts(
    screen_factory: Any, played: Round
) -> None:
    screen = screen_factory()
    screen.sign_in("pia")
    page = screen.page

    # the round: cards with suit symbols, hearts and diamonds red; money with its currency
    screen.goto(f"/admin/rounds/round/{played.pk}/change/")
    ace_of_hearts = page.locator(".field-hands_ [data-card=AH]").first
    assert ace_of_hearts.inner_text() == "A♥"
    assert colour(ace_of_hearts) == RED
    assert colour(page.locator(".field-hands_ [data-card=TS]").first) != RED
    settlement = page.locator(".field-settlement_positions")
    assert "+20.00 EUR" in settlement.inner_text() and "1.00 EUR" in settlement.inner_text()
    # the event log: amounts in EUR, the table's limits in EUR, times in the casino's zone
    log = page.locator(".field-story")
    text = log.inner_text()
    assert "amount: 20.00 EUR" in text and "min bet 2.00 EUR" in text
    assert "max bet 100.00 EUR" in text and "min_bet 200" not in text
    opened = RoundEvent.objects.filter(round=played).first()
    assert opened is not None
    assert casino_time_text(opened.at) in text
    if localtime(opened.at).utcoffset():
        assert f"{opened.at:%H:%M:%S}" not in text  # never UTC beside local time
    assert colour(log.locator("[data-card=AH]").first) == RED
    # and the round's own times written as on the console: local, to the second
    assert (page.locator(".field-opened_at .readonly").inner_text()
            == casino_time_text(played.opened_at))
    assert log.locator("td").first.inner_text() == casino_time_text(opened.at)
    screen.shot("round")

    # accounts, entries and holds: every amount in the currency's unit
    bram = Account.objects.get(kind="player", name="Bram")  # 595.00 in, 19.00 won
    screen.goto("/admin/ledger/account/")
    expect(page.locator("tr", has_text=bram.ref).get_by_text("614.00 EUR")).to_have_count(2)
    screen.shot("accounts")
    screen.goto(f"/admin/ledger/account/{bram.pk}/change/")
    assert page.locator(".field-posted_ .readonly").inner_text() == "614.00 EUR"
    assert page.locator(".field-available_ .readonly").inner_text() == "614.00 EUR"
    assert "61400" not in page.content()
    screen.shot("account")
    screen.goto(f"/admin/ledger/entry/{played.entry_id}/change/")
    lines = page.locator("#lines-group").inner_text()
    assert "19.00 EUR" in lines and "-20.00 EUR" in lines and "-2000" not in lines
    screen.shot("entry")
    screen.goto("/admin/ledger/hold/")
    captured = page.locator("tr", has_text="Captured")
    assert captured.locator(".field-amount_").inner_text() == "20.00 EUR"
    assert captured.locator(".field-captured_").inner_text() == "20.00 EUR"
    screen.shot("holds")
    hold = Hold.objects.get(status="captured")
    screen.goto(f"/admin/ledger/hold/{hold.pk}/change/")
    assert page.locator(".field-amount_ .readonly").inner_text() == "20.00 EUR"
    assert "2000" not in page.locator("#content").inner_text()
    screen.shot("hold")


def test_the_admin_at_768_px_shows_the_settlement_table_whole(
    screen_factory: Any, played: Round
) -> None:
    screen = screen_factory(width=768, height=1024)
    screen.sign_in("pia")
    page = screen.page
    screen.goto(f"/admin/rounds/round/{played.pk}/change/")

    table = page.locator(".field-settlement_positions table")
    net = table.locator("th", has_text="net")
    net.scroll_into_view_if_needed()
    screen.shot("settlement-768", full_page=False)
    for header in (table.locator("th").first, net):  # both ends of the table on screen
        box = header.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 768
    # the page itself does not run off the screen: the table scrolls in its own box if need be
    assert page.evaluate("document.documentElement.scrollWidth") <= 768
    screen.shot("round-768")


def test_a_dealer_opening_a_ledger_page_in_the_admin_gets_the_403_page_in_words(
    screen_factory: Any, staff_user: Any, played: Round
) -> None:
    staff_user(roles.DEALER, "dana")
    screen = screen_factory()
    screen.sign_in("dana")

    response = screen.goto(f"/admin/ledger/entry/{played.entry_id}/change/")

    assert response.status == 403 and "text/html" in response.headers["content-type"]
    expect(screen.page.get_by_role("heading", name="Not allowed")).to_be_visible()
    assert "{" not in screen.page.locator("main").inner_text()
    screen.shot("dealer-403")


RED = "rgb(192, 18, 28)"


def colour(locator: Any) -> str:
    return str(locator.evaluate("e => getComputedStyle(e).color"))
