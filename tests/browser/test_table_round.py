"""A dealer runs rounds from the table screen, start to end, without typing a card code."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from ledger.models import Entry
from ledger.selectors import account_balance
from rounds import accounts
from rounds.models import Round, RoundParty
from tests.browser.tables import available, make_floor, open_holds, seat_row

__all__ = ["make_floor"]

SIX = {n: (name, 100_000) for n, name in enumerate(
    ("Anna", "Bram", "Chris", "Dirk", "Eva", "Femke"), start=1)}


@pytest.mark.django_db(transaction=True)
def test_a_person_who_is_not_signed_in_lands_on_the_login_page(screen_factory: Any) -> None:
    screen = screen_factory()
    screen.goto("/")
    assert "/login/" in screen.page.url
    expect(screen.page.get_by_label("Username")).to_be_visible()
    screen.shot("login")


def _low_two(codes: list[str]) -> list[str]:
    """Two cards for a low hand that can never foul: the lowest card and the lowest card of
    another rank (no pair, nothing above the five-card hand's top card), never the joker."""
    order = "23456789TJQKA"
    plain = sorted((c for c in codes if c != "JK"), key=lambda c: order.index(c[0]))
    first = plain[0]
    second = next(c for c in plain if c[0] != first[0])
    return [first, second]


@pytest.mark.django_db(transaction=True)
def test_a_house_banked_round_at_a_full_table_with_house_way_and_a_manual_split(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a full table whose six players each played a 10.00 wager in the last round
    floor = make_floor(SIX)
    floor.played_round({n: 1_000 for n in SIX}, {str(n): "push" for n in SIX})
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=768)
    screen.sign_in("dana")
    page = screen.page
    expect(page.get_by_role("heading", name="The floor")).to_be_visible()
    expect(page.get_by_role("link", name=floor.table.name).first).to_be_visible()
    screen.shot("floor")

    # when the dealer opens the table and starts a new game
    page.get_by_role("link", name=f"Open {floor.table.name}").click()
    page.get_by_role("button", name="New Game").click()
    page.get_by_text("Round 2 is open").wait_for()
    # the 1.00 chip is below the table's 2.00 minimum
    assert page.get_by_role("button", name="Add a 1 EUR chip to seat 1").is_disabled()
    assert page.get_by_role("button", name="Add a 100 EUR chip to seat 1").is_enabled()
    screen.shot("round-open")

    # and takes the wagers: Re-Bet for the table, then seat 2 cleared and re-bet by chip,
    # seat 3 cleared and typed, seat 4 cleared and Re-Bet alone
    page.get_by_role("button", name="Re-Bet the table").click()
    page.get_by_text("Re-Bet 6 seats").wait_for()
    for n in SIX:
        assert seat_row(page, n).get_by_test_id("wager").inner_text() == "10.00 EUR"
    page.get_by_role("button", name="Clear seat 2").click()
    page.get_by_role("button", name="Add a 25 EUR chip to seat 2").click()
    seat_row(page, 2).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 2).get_by_test_id("wager").filter(has_text="25.00 EUR").wait_for()
    page.get_by_role("button", name="Clear seat 3").click()
    seat_row(page, 3).get_by_label("Amount (EUR)").fill("12.50")
    seat_row(page, 3).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 3).get_by_test_id("wager").filter(has_text="12.50 EUR").wait_for()
    page.get_by_role("button", name="Clear seat 4").click()
    seat_row(page, 4).get_by_role("button", name="Re-Bet 10.00").click()
    seat_row(page, 4).get_by_test_id("wager").filter(has_text="10.00 EUR").wait_for()
    # a wager beyond the limits is refused in words
    page.get_by_role("button", name="Clear seat 5").click()
    seat_row(page, 5).get_by_label("Amount (EUR)").fill("500")
    seat_row(page, 5).get_by_role("button", name="Bet", exact=True).click()
    page.get_by_text("A wager at this table is from 2.00 EUR to 100.00 EUR.").wait_for()
    page.get_by_role("button", name="Add a 5 EUR chip to seat 5").click()
    seat_row(page, 5).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 5).get_by_test_id("wager").filter(has_text="5.00 EUR").wait_for()
    screen.shot("wagers")

    # and the house banks
    against = page.get_by_test_id("solvency")
    assert "72.50 EUR" in against.inner_text()
    page.get_by_role("button", name="The house banks").click()
    page.get_by_test_id("banker").filter(has_text="The house").wait_for()
    screen.shot("banker-house")

    # and deals electronically: dice, the counted position and the stacks are shown, the
    # dealer's cards are not
    page.get_by_role("button", name="Deal", exact=True).click()
    page.get_by_test_id("dice").wait_for()
    dealer = page.locator("article.hand[data-position=dealer]")
    expect(dealer.get_by_test_id("hidden")).to_be_visible()
    expect(dealer.locator("span.card")).to_have_count(0)
    assert "counted position" in page.get_by_test_id("dice").inner_text()
    screen.shot("dealt")

    # and seats 1-5 are set by the House Way, seat 6 by a manual split of picked cards
    for n in range(1, 6):
        hand = page.locator(f"article.hand[data-position='{n}']")
        hand.get_by_role("button", name="House Way").click()
        page.locator(f"article.hand[data-position='{n}']").get_by_text(
            "Set by the house way").wait_for()
    hand = page.locator("article.hand[data-position='6']")
    cards = hand.locator("label.card-check input").evaluate_all("els => els.map(e => e.value)")
    for code in _low_two(cards):
        hand.locator(f"input[value='{code}']").check()
    screen.shot("manual-split")
    hand.get_by_role("button", name="Set this split").click()
    page.locator("article.hand[data-position='6']").get_by_text("Set by the player").wait_for()
    # then every player's hand is set: the dealer's cards are shown
    expect(page.locator("article.hand[data-position=dealer] > p span.card")).to_have_count(7)
    screen.shot("hands-set")

    # when the dealer settles
    page.get_by_role("button", name="Done: settle the round").click()
    page.get_by_role("heading", name="Settlement").wait_for()
    screen.shot("settled")

    # then the screen shows each seat's result, and the ledger holds one entry for the
    # round that resolved every hold, the screen's balances being the ledger's
    round_ = Round.objects.get(table=floor.table, number=2)
    assert round_.state == Round.State.SETTLED
    expect(page.get_by_test_id("results").locator("tbody tr")).to_have_count(6)
    assert open_holds(round_) == 0
    assert Entry.objects.filter(ref=f"round:{round_.pk}").count() == (
        1 if round_.entry_id else 0)
    for n, player in floor.players.items():
        shown = seat_row(page, n).get_by_test_id("available").inner_text()
        assert shown == f"{available(player) / 100:,.2f} EUR"  # en: thousands separated
    bankroll = accounts.table_accounts(floor.table).bankroll
    house = round_.parties.get(role=RoundParty.Role.HOUSE)
    assert account_balance(account_id=bankroll.pk).posted == house.result == house.net
    # and everything is shown now, the unused stacks included
    expect(page.get_by_test_id("unused")).to_be_visible()
    expect(page.get_by_role("button", name="New Game")).to_be_visible()


@pytest.mark.django_db(transaction=True)
def test_a_dealer_takes_a_wager_by_keyboard_alone(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    floor = make_floor({1: ("Anna", 10_000)})
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=768)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")

    def tab_to(name: str) -> None:
        for _ in range(80):
            page.keyboard.press("Tab")
            label = page.evaluate("() => document.activeElement.getAttribute('aria-label')"
                                  " || document.activeElement.innerText")
            if label == name:
                return
        raise AssertionError(f"{name!r} cannot be reached with the Tab key")

    # the dealer opens the round and bets 5 on seat 1 with Tab and Enter only
    tab_to("Open the first round")
    page.keyboard.press("Enter")
    page.get_by_text("Round 1 is open").wait_for()
    tab_to("Add a 5 EUR chip to seat 1")
    screen.shot("chip-focused")
    page.keyboard.press("Enter")
    tab_to("Bet")
    page.keyboard.press("Enter")
    seat_row(page, 1).get_by_test_id("wager").filter(has_text="5.00 EUR").wait_for()
    tab_to("Clear seat 1")
    screen.shot("clear-focused")
    assert Round.objects.get(table=floor.table).wagers.get().amount == 500
