"""The card picker keeps the physical deal on the server (issue 22): a dealer picks, reloads
mid-deal and finds every pick, a second screen sees the same picks, one card is taken back,
rapid clicks all land in the order clicked, and the deal posted is the picks."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from rounds.models import DealDraft, Hand, Round
from tests.browser.tables import make_floor, seat_row
from tests.browser.test_player_banked import picker_saved

__all__ = ["make_floor"]

DEALER = "KD KC 9S 7H 4D QH JS"
SEAT_1 = "AS AH KS QC 7C 5D 3S"
SEAT_2 = "2C 2D 8H 8D TC JC 6S"


def click_cards(page: Any, codes: str) -> None:
    """Click each card at once, as fast as a dealer's hands: no waiting for an answer."""
    for code in codes.split():
        page.locator(f"#picker button[name=pick][value='{code}']").click()


def count(page: Any, position: str) -> str:
    return page.locator(f"#picker .picker-hand[data-position='{position}']").get_by_test_id(
        "count").inner_text()


@pytest.mark.django_db(transaction=True)
def test_the_picks_survive_a_reload_and_a_second_screen_and_rapid_clicks_land_in_order(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a house-banked round with wagers at seats 1 and 2, waiting for its deal
    floor = make_floor({1: ("Anna", 50_000), 2: ("Ben", 50_000)})
    staff_user(roles.DEALER, "dana")
    staff_user(roles.DEALER, "dirk")
    screen = screen_factory(width=1024)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_role("button", name="Open the first round").click()
    page.get_by_role("button", name="Add a 25 EUR chip to seat 1").click()
    seat_row(page, 1).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 1).get_by_test_id("wager").filter(has_text="25.00 EUR").wait_for()
    page.get_by_role("button", name="Add a 25 EUR chip to seat 2").click()
    seat_row(page, 2).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 2).get_by_test_id("wager").filter(has_text="25.00 EUR").wait_for()
    page.get_by_role("button", name="The house banks").click()
    page.get_by_test_id("banker").filter(has_text="The house").wait_for()
    round_ = Round.objects.get(table=floor.table)

    # when the dealer clicks the dealer's seven and three of seat 1's cards without waiting
    page.get_by_text("Record a physical deal with the card picker").click()
    click_cards(page, DEALER + " AS AH KS")
    screen.shot("rapid-clicks-being-saved")
    picker_saved(page)

    # then every click landed, in the order clicked (the dealer's filled, then seat 1's)
    expected = [["dealer", c] for c in DEALER.split()] + [["1", c] for c in ("AS", "AH", "KS")]
    assert DealDraft.objects.get(round=round_).picks == expected
    assert (count(page, "dealer"), count(page, "1"), count(page, "2")) == ("7", "3", "0")
    screen.shot("ten-picks-saved")

    # when the page is reloaded mid-deal
    page.reload()
    page.get_by_text("Record a physical deal with the card picker").wait_for()

    # then the picks are still there: seat 1's shown, the dealer's face down (rules 4.1)
    seat_1 = page.locator("#picker .picker-hand[data-position='1']")
    assert seat_1.locator(".card-chip").evaluate_all(
        "chips => chips.map(c => c.dataset.code)") == ["AS", "AH", "KS"]
    dealer_row = page.locator("#picker .picker-hand[data-position='dealer']")
    expect(dealer_row.locator(".card-back")).to_have_count(7)
    expect(dealer_row.locator(".card-chip")).to_have_count(0)
    # greyed out: seat 1's three; the dealer's seven are not told by their absence
    expect(page.locator("#picker button[name=pick]:disabled")).to_have_count(3)
    assert page.locator("#picker .picker-hand.active").get_attribute("data-position") == "1"
    screen.shot("after-reload")

    # and a second dealer's screen shows the same picks
    other = screen_factory(width=1024, who="dirk")
    other.sign_in("dirk")
    other.goto(f"/tables/{floor.table.pk}/")
    seat_1 = other.page.locator("#picker .picker-hand[data-position='1']")
    expect(seat_1.locator(".card-chip")).to_have_count(3)
    expect(other.page.locator("#picker button[name=pick]:disabled")).to_have_count(3)
    other.shot("second-screen")

    # when the dealer takes back the last card (KS), then finishes without waiting
    page.get_by_role("button", name="Take back the last card").click()
    picker_saved(page)
    page.locator("#picker button[name=pick][value='KS']:enabled").wait_for()
    assert count(page, "1") == "2"
    screen.shot("one-card-taken-back")
    click_cards(page, "KS QC 7C 5D 3S " + SEAT_2)
    picker_saved(page)
    assert page.get_by_role("button", name="Record the deal").is_enabled()
    screen.shot("every-card-picked")
    page.get_by_role("button", name="Record the deal").click()
    page.get_by_text("The deal is recorded").wait_for()
    screen.shot("dealt")

    # then the deal posted is the picks, and the draft is used up
    round_.refresh_from_db()
    assert (round_.state, round_.deal_kind) == ("dealt", "physical")
    hands = {h.position: h.cards for h in Hand.objects.filter(round=round_)}
    assert hands == {"dealer": DEALER, "1": SEAT_1, "2": SEAT_2}
    assert not DealDraft.objects.filter(round=round_).exists()


@pytest.mark.django_db(transaction=True)
def test_a_card_already_picked_on_another_screen_is_refused_in_words(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a round waiting for its deal, shown on two dealers' screens
    floor = make_floor({1: ("Anna", 50_000)})
    staff_user(roles.DEALER, "dana")
    pit_boss = floor.pit_boss
    from rounds import services
    round_ = services.round_open(table_id=floor.table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=2_500, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    screen = screen_factory(width=1024)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")

    # when another screen picks the ace of spades, then this one (still showing it) does
    from rounds.services import deal_draft
    deal_draft.deal_draft_pick(round_id=round_.pk, card="AS", position="dealer", by=pit_boss)
    page.get_by_text("Record a physical deal with the card picker").click()
    page.locator("#picker button[name=pick][value='AS']").click()
    picker_saved(page)

    # then it is refused in words (not naming the dealer: the bank's picks are face down,
    # rules §4.1), and the picker shows the server's picks
    refusal = page.get_by_test_id("picker-refusal").inner_text()
    assert "A♠ is already picked: each card of the deck is dealt once" in refusal
    assert "dealer" not in refusal
    # the deck does not grey out the dealer's face-down picks: their absence would tell them
    assert page.locator("#picker button[name=pick][value='AS']").is_enabled()
    assert DealDraft.objects.get(round=round_).picks == [["dealer", "AS"]]
    screen.shot("refused")


@pytest.mark.django_db(transaction=True)
def test_a_position_chosen_while_a_pick_is_on_its_way_stays_chosen(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a round waiting for its deal, wagers at seats 1 and 2, the picker open
    floor = make_floor({1: ("Anna", 50_000), 2: ("Ben", 50_000)})
    staff_user(roles.DEALER, "dana")
    pit_boss = floor.pit_boss
    from rounds import services
    round_ = services.round_open(table_id=floor.table.pk, by=pit_boss)
    for seat in (1, 2):
        services.wager_place(round_id=round_.pk, seat=seat, amount=2_500, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    screen = screen_factory(width=1024)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_text("Record a physical deal with the card picker").click()

    # when a card is picked for seat 1 and, while the server has not answered it yet (held
    # here), the dealer chooses seat 2
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route("**/deal/draft/pick/", hold, times=1)
    page.locator("#picker [data-choose='1']").click()
    page.locator("#picker button[name=pick][value='AS']").click()
    for _ in range(300):  # the pick's request reaches the route within 15 s
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the pick was never sent"
    page.locator("#picker [data-choose='2']").click()
    held[0].continue_()
    picker_saved(page)

    # then the server's picker, swapped in with the answer, keeps seat 2 chosen, and the
    # next card goes to seat 2, not back to seat 1
    expect(page.locator("#picker")).to_have_attribute("data-active", "2")
    expect(page.locator("#picker [data-choose='2']")).to_have_attribute("aria-pressed", "true")
    page.locator("#picker button[name=pick][value='KD']").click()
    picker_saved(page)
    assert DealDraft.objects.get(round=round_).picks == [["1", "AS"], ["2", "KD"]]
    assert (count(page, "1"), count(page, "2")) == ("1", "1")
    screen.shot("seat-2-kept")
