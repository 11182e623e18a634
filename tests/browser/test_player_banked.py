"""Player-banked rounds from the table screen: the Dutch seed's example, recorded from a
physical deal with the card picker, an insolvent banker refused before the deal, and a
player's re-split refused once every player's hand is set."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from casino.selectors import player_balance
from ledger.models import Entry
from rounds import services
from rounds.models import Round, RoundParty
from tests.browser.tables import available, make_floor, open_holds, seat_row

__all__ = ["make_floor"]

# Dealt so that the banker at seat 1 (a pair of nines over Q-J) beats seats 2 and 5 and
# loses to seats 3 and 4 on both hands: position -> (five-card hand, two-card hand).
DUTCH_HANDS = {
    "1": ("9S 9H 7C 5D 3S", "QC JD"),
    "2": ("4S 4H 8C 6D 2S", "TC 7D"),
    "3": ("KS KH 8D 6S 4D", "AS QH"),
    "4": ("AH AD 7S 5C 2D", "KC JH"),
    "5": ("3H 3D 8S 6C 2H", "JC 9D"),
}


def pick_cards(screen: Any, hands: dict[str, str]) -> None:
    """Record a physical deal on the card picker, position by position, by clicking cards
    without waiting: the page queues the clicks and saves them in order."""
    page = screen.page
    page.get_by_text("Record a physical deal with the card picker").click()
    for position, codes in hands.items():
        page.locator(f"#picker [data-choose='{position}']").click()
        for code in codes.split():
            page.locator(f"#picker button[name=pick][value='{code}']").click()
    picker_saved(page)


def picker_saved(page: Any) -> None:
    """Wait until every queued click is saved and the server's picker is shown."""
    page.wait_for_function(
        "() => !window.dealPickerQueue || (window.dealPickerQueue.length === 0 && "
        "document.querySelector('#picker [data-testid=picker-pending]').textContent === '')")


def set_split(page: Any, position: str, low: str) -> None:
    hand = page.locator(f"article.hand[data-position='{position}']")
    for code in low.split():
        hand.locator(f"input[name=low][value='{code}']").check()
    hand.get_by_role("button", name="Set this split").click()
    page.locator(f"article.hand[data-position='{position}']").get_by_text(
        "Set by the player").wait_for()


@pytest.mark.django_db(transaction=True)
def test_the_dutch_seed_player_banked_round_pays_one_euro_banker_commission(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given Anna at seat 1, who wagered 100.00 against the house last round, and four players
    floor = make_floor({1: ("Anna", 100_000), 2: ("Bram", 50_000), 3: ("Chris", 50_000),
                        4: ("Dirk", 50_000), 5: ("Eva", 50_000)})
    floor.played_round({1: 10_000}, {"1": "push"})
    before = {n: player_balance(p).posted for n, p in floor.players.items()}
    staff_user(roles.DEALER, "dana")
    screen = screen_factory()
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_role("button", name="New Game").click()

    # when seats 2 and 3 bet 100.00 by chip, seats 5 and 4 type 60.00 and 40.00
    page.get_by_role("button", name="Add a 100 EUR chip to seat 2").click()
    seat_row(page, 2).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 2).get_by_test_id("wager").filter(has_text="100.00 EUR").wait_for()
    page.get_by_role("button", name="Add a 100 EUR chip to seat 3").click()
    seat_row(page, 3).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 3).get_by_test_id("wager").filter(has_text="100.00 EUR").wait_for()
    for seat, amount in ((5, "60"), (4, "40")):
        seat_row(page, seat).get_by_label("Amount (EUR)").fill(amount)
        seat_row(page, seat).get_by_role("button", name="Bet", exact=True).click()
        seat_row(page, seat).get_by_test_id("wager").filter(
            has_text=f"{amount}.00 EUR").wait_for()

    # and the rotation offers Anna the bank, with the house stake's cap shown; she banks
    assert "seat 1 · Anna" in page.locator(".banker-choice").inner_text()
    assert "up to 100.00 EUR (Anna's last wager against the house)" in page.locator(
        "#stake-cap").inner_text()
    screen.shot("offer")
    page.get_by_role("button", name="Anna banks").click()
    page.get_by_test_id("banker").filter(has_text="Seat 1 · Anna").wait_for()
    solvency = page.get_by_test_id("solvency").inner_text()
    assert "Anna must cover\n300.00 EUR" in solvency
    assert "Anna has available\n1,000.00 EUR" in solvency and "covered" in solvency
    screen.shot("banker-set")

    # and the dealer records the physical deal with the card picker
    pick_cards(screen, {p: f"{high} {low}" for p, (high, low) in DUTCH_HANDS.items()})
    screen.shot("card-picker")
    page.get_by_role("button", name="Record the deal").click()
    page.get_by_text("The deal is recorded").wait_for()

    # then the banker's cards stay hidden until every player's hand is set
    banker = page.locator("article.hand[data-position='1']")
    expect(banker.get_by_test_id("hidden")).to_be_visible()
    expect(banker.locator("span.card")).to_have_count(0)
    screen.shot("dealt-banker-hidden")
    for position in ("2", "3", "4", "5"):
        set_split(page, position, DUTCH_HANDS[position][1])
    expect(page.locator("article.hand[data-position='1'] > p span.card")).to_have_count(7)
    set_split(page, "1", DUTCH_HANDS["1"][1])
    screen.shot("hands-set")

    # when the dealer settles
    page.get_by_role("button", name="Done: settle the round").click()
    page.get_by_role("heading", name="Settlement").wait_for()
    screen.shot("settled")

    # then the bank won 160.00, paid 140.00: 1.00 banker commission, 5% of each win
    rows = {r.locator("th").inner_text(): r.locator("td").all_inner_texts()
            for r in page.locator("section.settlement tbody tr").all()}
    assert rows["Seat 2 · Bram"][0] == "Loss" and rows["Seat 2 · Bram"][-1] == "-100.00 EUR"
    assert rows["Seat 5 · Eva"][-1] == "-60.00 EUR"
    assert rows["Seat 3 · Chris"][-2:] == ["5.00 EUR", "95.00 EUR"]
    assert rows["Seat 4 · Dirk"][-2:] == ["2.00 EUR", "38.00 EUR"]
    bank = page.get_by_test_id("parties").get_by_role("row", name="Player-banker").inner_text()
    # covered, won, paid, net, commission, result
    assert bank.split("\t")[1:] == ["300.00 EUR", "160.00 EUR", "140.00 EUR", "20.00 EUR",
                                    "1.00 EUR", "19.00 EUR"]

    # and the balances on screen are the ledger's, each moved by exactly its result
    moved = {1: 2_000 - 100, 2: -10_000, 3: 9_500, 4: 3_800, 5: -6_000}
    for n, player in floor.players.items():
        balance = player_balance(player)
        assert balance.posted - before[n] == moved[n]
        assert balance.held == 0
        shown = seat_row(page, n).get_by_test_id("available").inner_text()
        assert shown == f"{balance.available / 100:,.2f} EUR"  # en: thousands separated
    round_ = Round.objects.get(table=floor.table, number=2)
    bank = round_.parties.get(role=RoundParty.Role.PLAYER_BANKER)
    assert (bank.net, bank.commission, bank.result) == (2_000, 100, 1_900)
    assert Entry.objects.filter(ref=f"round:{round_.pk}").count() == 1


@pytest.mark.django_db(transaction=True)
def test_an_insolvent_banker_is_refused_with_the_shortfall_and_nothing_changes(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given Anna, with 100.00, banking against 100.00 and 40.00
    floor = make_floor({1: ("Anna", 10_000), 2: ("Bram", 50_000), 3: ("Chris", 50_000)})
    floor.played_round({1: 5_000}, {"1": "push"})
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=768)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_role("button", name="New Game").click()
    page.get_by_role("button", name="Add a 100 EUR chip to seat 2").click()
    seat_row(page, 2).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 2).get_by_test_id("wager").filter(has_text="100.00 EUR").wait_for()
    seat_row(page, 3).get_by_label("Amount (EUR)").fill("40")
    seat_row(page, 3).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 3).get_by_test_id("wager").filter(has_text="40.00 EUR").wait_for()
    page.get_by_role("button", name="Anna banks").click()
    page.get_by_test_id("banker").filter(has_text="Seat 1 · Anna").wait_for()
    # the figures before the deal already show it
    assert "Anna is 40.00 EUR short" in page.get_by_test_id("solvency").inner_text()
    screen.shot("before-deal")

    # then the deal is not offered, with the shortfall in words (issue 22: a Deal button
    # that could only be refused is disabled; a deal posted anyway is still refused by the
    # service, tests/rounds/test_refusal_doors.py)
    assert page.get_by_role("button", name="Deal", exact=True).is_disabled()
    assert page.get_by_test_id("deal-why").inner_text().startswith(
        "No deal yet: Anna cannot cover the wagers, 40.00 EUR short.")
    screen.shot("refused")
    # and nothing changed: no deal, no cover held, the wagers' holds only
    round_ = Round.objects.get(table=floor.table, number=2)
    assert round_.state == Round.State.BANKER_SET and not round_.hands.exists()
    assert round_.banker_hold_id is None and open_holds(round_) == 2
    assert player_balance(floor.players[1]).held == 0
    assert available(floor.players[1]) == 10_000


@pytest.mark.django_db(transaction=True)
def test_a_physical_deal_by_card_picker_with_a_foul_refused_in_words(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a house-banked round with one wager
    floor = make_floor({1: ("Anna", 50_000)})
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=768)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_role("button", name="Open the first round").click()
    page.get_by_role("button", name="Add a 25 EUR chip to seat 1").click()
    seat_row(page, 1).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 1).get_by_test_id("wager").filter(has_text="25.00 EUR").wait_for()
    page.get_by_role("button", name="The house banks").click()
    page.get_by_test_id("banker").filter(has_text="The house").wait_for()

    # when the dealer picks the dealer's and seat 1's cards, taking one back on the way
    pick_cards(screen, {"dealer": "KD KC 9S 7H 4D QH JS", "1": "AS AH KS QC 7C 5D 3S"})
    page.get_by_role("button", name="Take back the last card").click()
    picker_saved(page)
    page.locator("#picker button[name=pick][value='3S']:enabled").wait_for()
    expect(page.locator("#picker button[name=pick]")).to_have_count(53)
    # greyed out: seat 1's six picks shown; the dealer's seven are face down, not greyed
    expect(page.locator("#picker button[name=pick]:disabled")).to_have_count(6)
    assert page.get_by_role("button", name="Record the deal").is_disabled()
    screen.shot("one-card-taken-back")
    page.locator("#picker button[name=pick][value='2C']").click()
    picker_saved(page)
    page.locator("#picker button[name=pick][value='2C']:disabled").wait_for()
    screen.shot("picked")
    page.get_by_role("button", name="Record the deal").click()
    page.get_by_text("The deal is recorded").wait_for()
    expect(page.locator("article.hand[data-position=dealer]").get_by_test_id(
        "hidden")).to_be_visible()

    # and sets the aces in the low hand: a foul, refused in words
    hand = page.locator("article.hand[data-position='1']")
    hand.locator("input[name=low][value='AS']").check()
    hand.locator("input[name=low][value='AH']").check()
    hand.get_by_role("button", name="Set this split").click()
    refusal = page.locator(".msg-error")
    refusal.wait_for()
    assert refusal.inner_text().startswith(
        "That split is a foul: the two-card hand A♠ A♥ ranks above the five-card hand")
    screen.shot("foul-refused")

    # then the House Way sets it, and the round settles
    page.locator("article.hand[data-position='1']").get_by_role(
        "button", name="House Way").click()
    page.locator("article.hand[data-position='1']").get_by_text("Set by the house way").wait_for()
    page.get_by_role("button", name="Done: settle the round").click()
    page.get_by_role("heading", name="Settlement").wait_for()
    screen.shot("settled")
    round_ = Round.objects.get(table=floor.table, number=1)
    assert round_.state == Round.State.SETTLED and round_.deal_kind == "physical"
    assert set(round_.hands.get(position="1").cards.split()) == {
        "AS", "AH", "KS", "QC", "7C", "5D", "2C"}


# The finding's example (rules §4.1): Anna banks against Bram and Chris; Bram sets his low
# hand Q♠ 9♦, and once every player's hand is set he may not make it Q♠ 5♥.
REVEAL_HANDS = {
    "1": "9S 9H 7C 5D 3S QC JD",
    "2": "AC KD QS 9D 7H 5H 2C",
    "3": "KS KH 8D 6S 4D AS QH",
}


@pytest.mark.django_db(transaction=True)
def test_a_players_re_split_after_every_players_hand_is_set_is_refused_in_words(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given Anna banking against Bram and Chris, the cards recorded from a physical deal
    floor = make_floor({1: ("Anna", 100_000), 2: ("Bram", 50_000), 3: ("Chris", 50_000)})
    floor.played_round({1: 10_000}, {"1": "push"})
    boss = floor.pit_boss
    round_ = services.round_open(table_id=floor.table.pk, by=boss)
    for seat in (2, 3):
        services.wager_place(round_id=round_.pk, seat=seat, amount=5_000, by=boss)
    services.banker_set(round_id=round_.pk, seat=1, by=boss)
    services.round_deal(round_id=round_.pk, hands=REVEAL_HANDS, by=boss)
    staff_user(roles.DEALER, "dana")
    staff_user(roles.DEALER, "dirk")
    dana = screen_factory(width=768, who="dana")
    dana.sign_in("dana")
    dana.goto(f"/tables/{floor.table.pk}/")
    page = dana.page

    # when Dana sets Bram's split, low hand Q♠ 9♦, while Chris's hand is not set yet
    set_split(page, "2", "QS 9D")
    expect(page.locator("article.hand[data-position='1']").get_by_test_id("hidden")).to_be_visible()
    dana.shot("bram-set-q9")
    # and Dirk, at the pit's screen, sets Chris's hand the House Way: every player's is set
    dirk = screen_factory(width=1280, who="dirk")
    dirk.sign_in("dirk")
    dirk.goto(f"/tables/{floor.table.pk}/")
    dirk.page.locator("article.hand[data-position='3']").get_by_role(
        "button", name="House Way").click()
    dirk.page.locator("article.hand[data-position='3']").get_by_text(
        "Set by the house way").wait_for()
    expect(dirk.page.locator("article.hand[data-position='1'] > p span.card")).to_have_count(7)
    expect(dirk.page.locator("article.hand[data-position='2'] form")).to_have_count(0)
    dirk.shot("every-player-set-bank-shown")

    # and Dana, whose screen still offers Bram's split, makes his low hand Q♠ 5♥
    bram = page.locator("article.hand[data-position='2']")
    bram.locator("input[name=low][value='QS']").check()
    bram.locator("input[name=low][value='5H']").check()
    bram.get_by_role("button", name="Set this split").click()

    # then the re-split is refused in words, and the screen now shows the bank's hand
    refusal = page.locator(".msg-error")
    refusal.wait_for()
    assert refusal.inner_text() == ("Every player's hand is set and the bank's hand is shown: "
                                    "seat 2's hand can no longer change.")
    expect(page.locator("article.hand[data-position='2'] form")).to_have_count(0)
    dana.shot("re-split-refused")
    # and Bram's hand is as he set it, with no step recorded for the refusal
    bram_hand = round_.hands.get(position="2")
    assert (bram_hand.high, bram_hand.low, bram_hand.set_by) == (
        "AC KD 7H 5H 2C", "QS 9D", "player")
    assert [e.data["position"] for e in round_.events.filter(kind="hand_set")] == ["2", "3"]
    assert open_holds(round_) == 3  # the two wagers and Anna's cover, until the settlement
