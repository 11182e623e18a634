"""A card-room round at the dealer's table screen (docs/rules.md §14): the rotation offers
seat 1 the bank, Anna takes it covering 150.00, a proposition player covers the rest; the
rules page's worked round is dealt with the card picker and settled, and every party's money
is checked in the ledger to the cent."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from casino.models import Player
from casino.selectors import player_balance
from casino.services import player_create, player_deposit
from ledger.models import Account
from ledger.selectors import account_balance
from rounds.accounts import table_ref
from rounds.models import Round
from tests.browser.tables import make_floor, seat_row
from tests.browser.test_player_banked import pick_cards, set_split

__all__ = ["make_floor"]

# Seat 1's pair of nines beats seats 2 and 4 and loses to seat 3 on both hands.
HANDS = {
    "1": ("9S 9H 7C 5D 3S", "QC JD"),
    "2": ("4S 4H 8C 6D 2S", "TC 7D"),
    "3": ("KS KH 8D 6S 4D", "AS QH"),
    "4": ("3H 3D 8S 6C 2H", "JC 9D"),
}


@pytest.mark.django_db(transaction=True)
def test_a_player_dealer_and_a_proposition_player_bank_the_worked_round(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a card-room table, four players seated and a funded proposition player
    floor = make_floor({1: ("Anna", 100_000), 2: ("Bram", 50_000), 3: ("Chris", 50_000),
                        4: ("Dirk", 50_000)}, bank_mode="card_room", commission_rate="0",
                       collection_player=50)
    prop = player_create(name="Golden Prop LLC", currency="EUR", by=floor.pit_boss,
                         kind=Player.Kind.PROPOSITION, licence="GEGP-001234")
    player_deposit(player_id=prop.pk, amount=500_000, by=floor.pit_boss)
    before = {n: player_balance(p).posted for n, p in floor.players.items()}
    prop_before = player_balance(prop).posted
    staff_user(roles.DEALER, "dana")
    screen = screen_factory()
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_role("button", name="Open the first round").click()
    # the round's screen is swapped in before anything is typed into it
    page.get_by_test_id("step").filter(has_text="Betting").wait_for()

    # when seats 2, 3 and 4 wager 100.00
    for seat in (2, 3, 4):
        seat_row(page, seat).get_by_label("Amount (EUR)").fill("100")
        seat_row(page, seat).get_by_role("button", name="Bet", exact=True).click()
        seat_row(page, seat).get_by_test_id("wager").filter(has_text="100.00 EUR").wait_for()

    # then the rotation offers seat 1 the bank, and the house is not offered it
    choice = page.locator(".banker-choice")
    assert page.get_by_test_id("offered").inner_text() == "seat 1 · Anna"
    expect(page.get_by_role("button", name="The house banks")).to_have_count(0)
    options = choice.locator("#third-party option").all_inner_texts()
    assert "Golden Prop LLC · licence GEGP-001234 · 5,000.00 EUR available" in options

    # when Anna takes the bank covering 150.00 and the proposition player the rest
    choice.get_by_label("Anna covers up to (EUR)").fill("150")
    choice.get_by_label("Proposition player for the rest").select_option(str(prop.pk))
    screen.shot("offer")
    choice.get_by_role("button", name="Anna takes the bank").click()
    page.get_by_test_id("banker").filter(has_text="player-dealer covering up to 150.00 EUR")\
        .wait_for()

    # then before the deal the screen says who covers which seat, from Anna's left
    covers = {r.locator("th").inner_text(): r.locator("td").all_inner_texts()
              for r in page.get_by_test_id("covers").locator("tbody tr").all()}
    assert covers == {
        "Seat 2 · Bram": ["100.00 EUR", "100.00 EUR", "0.00 EUR", "none", "0.50 EUR"],
        "Seat 3 · Chris": ["100.00 EUR", "50.00 EUR", "50.00 EUR", "none", "0.50 EUR"],
        "Seat 4 · Dirk": ["100.00 EUR", "0.00 EUR", "100.00 EUR", "none", "0.50 EUR"],
    }
    solvency = page.get_by_test_id("solvency").inner_text()
    assert "The bank's collection fee\n3.00 EUR" in solvency
    assert "Player-dealer Anna must hold (cover and fee)\n153.00 EUR" in solvency
    assert "Proposition player Golden Prop LLC must hold (cover)\n150.00 EUR" in solvency
    screen.shot("covers")

    # when the physical deal is recorded and the hands are set
    pick_cards(screen, {p: f"{high} {low}" for p, (high, low) in HANDS.items()})
    page.get_by_role("button", name="Record the deal").click()
    page.get_by_text("The deal is recorded").wait_for()
    for position in ("2", "3", "4", "1"):
        set_split(page, position, HANDS[position][1])
    page.get_by_role("button", name="Done: settle the round").click()
    page.get_by_role("heading", name="Settlement").wait_for()
    screen.shot("settled")

    # then the screen shows each fee and each party's result
    rows = {r.locator("th").inner_text(): r.locator("td").all_inner_texts()
            for r in page.get_by_test_id("results").locator("tbody tr").all()}
    assert rows["Seat 2 · Bram"][-2:] == ["0.50 EUR", "-100.50 EUR"]
    assert rows["Seat 3 · Chris"][-2:] == ["0.50 EUR", "99.50 EUR"]
    assert rows["Seat 4 · Dirk"][-2:] == ["0.50 EUR", "-100.50 EUR"]
    parties = {r.locator("th").inner_text(): r.locator("td").all_inner_texts()
               for r in page.get_by_test_id("parties").locator("tbody tr").all()}
    # covered, won, paid, net, commission, the bank's fee, result
    assert parties == {
        "Player-dealer: Seat 1 · Anna": ["150.00 EUR", "100.00 EUR", "50.00 EUR", "50.00 EUR",
                                         "0.00 EUR", "3.00 EUR", "47.00 EUR"],
        "Proposition player: Golden Prop LLC (licence GEGP-001234)":
            ["150.00 EUR", "100.00 EUR", "50.00 EUR", "50.00 EUR", "0.00 EUR", "0.00 EUR",
             "50.00 EUR"],
    }
    assert "The house's collection\n4.50 EUR" in \
        page.get_by_test_id("house-income").inner_text()

    # and the ledger moved each party's money by exactly that, nothing left held
    moved = {1: 4_700, 2: -10_050, 3: 9_950, 4: -10_050}
    for n, player in floor.players.items():
        balance = player_balance(player)
        assert (balance.posted - before[n], balance.held) == (moved[n], 0)
    assert player_balance(prop).posted - prop_before == 5_000
    assert player_balance(prop).held == 0
    collection = Account.objects.get(kind="collection", ref=table_ref(floor.table.pk))
    assert account_balance(account_id=collection.pk).posted == 450
    assert Round.objects.get(table=floor.table, number=1).state == Round.State.SETTLED
