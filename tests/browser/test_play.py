"""The player's own game screen (/play/), played by mouse as the German seed's
"Spielkontrollen" describe it: chips picked by a click, placed by a double click and by a
click in the bet circle, taken back by a right click; Deal disabled below the minimum; two
cards dragged into "2nd Highest" (House Way turns into Done, and back); Done; New Game,
Re-Bet, House Way; Clear. After each game the balance shown is the ledger's, and the game is
a settled round with its one entry. A foul is refused in words and left to fix, the keyboard
sets a hand without dragging, the deal is checked in the browser from the revealed seed, and
the reminder of time played (the players' frame's) shows over the game and is dismissed.

With CASINO_DOC_SCREENSHOTS set, the settled game is also saved as
docs/screenshots/player-table.png (the README shows it)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import expect

from casino import roles
from casino.models import Player, PlayerLimit
from casino.player_limits import player_limits_set
from casino.player_logins import player_login_give
from casino.selectors import player_balance
from casino.services import player_deposit
from casino.shared.templatetags.money import money_text
from ledger.models import Entry
from rounds import paigow, services
from rounds.models import Hand, Round
from rounds.templatetags.cards import card_label
from tests.players import make_player

pytestmark = pytest.mark.django_db(transaction=True)

FUNDS = 50_000  # 500.00 EUR on the game account
PLAYER_PASSWORD = "A long passphrase 7"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture
def floor(staff_user: Any) -> dict[str, Any]:
    """A self-service table (2.00 to 100.00 EUR, as the German text's $2 and $100) and Greta,
    a player with 500.00 EUR on her game account and a login of her own."""
    pit_boss = staff_user(roles.PIT_BOSS, "pat")
    table = services.table_create(by=pit_boss, name="Salon Privé", self_service=True,
                                  deal_modes=["electronic"], min_bet=200, max_bet=10_000)
    player = make_player(name="Greta", currency="EUR", by=pit_boss)
    player_deposit(player_id=player.pk, amount=FUNDS, by=pit_boss)
    # her own login, given at the cage
    clerk = staff_user(roles.CAGE, "cleo")
    user = player_login_give(player_id=player.pk, username="greta", password=PLAYER_PASSWORD,
                             by=clerk).user
    return {"table": table, "player": player, "user": user}


def signed_in(screen_factory: Any, user: User, width: int = 1440, height: int = 900) -> Any:
    """A tab signed in as the player, at the players' sign-in page."""
    screen = screen_factory(width=width, height=height)
    screen.goto(reverse("console:play-login"))
    screen.page.get_by_label("Username").fill(user.get_username())
    screen.page.get_by_label("Password").fill(PLAYER_PASSWORD)
    screen.page.get_by_role("button", name="Sign in").click()
    screen.page.wait_for_load_state("networkidle")
    return screen


def shown_balance(player: Player) -> str:
    return money_text(player_balance(player).available, "EUR")


def bet_circle(page: Any) -> Any:
    return page.get_by_test_id("bet-circle")


def chip(page: Any, units: int) -> Any:
    return page.get_by_test_id(f"chip-{units}")


def my_cards(page: Any) -> list[str]:
    return page.locator("#felt .player-zone button.pcard").evaluate_all(
        "cards => cards.map(c => c.dataset.card)")


def card(page: Any, code: str) -> Any:
    return page.locator(f"#felt .player-zone button.pcard[data-card='{code}']")


def last_game(player: Player) -> Round:
    return Round.objects.filter(player=player).order_by("-id").first()  # type: ignore[return-value]


def assert_settled_with_its_entry(page: Any, player: Player) -> Round:
    """The ledger's side of a finished game: the round settled, its one entry (none on a
    push, where no money moves), and the balance shown is the ledger's."""
    game = last_game(player)
    assert game.state == Round.State.SETTLED
    entries = Entry.objects.filter(ref=f"round:{game.pk}").count()
    message = page.get_by_test_id("message").inner_text()
    assert entries == (0 if message.startswith("Push") else 1), message
    expect(page.get_by_test_id("balance")).to_have_text(shown_balance(player))
    return game


def test_the_german_seeds_game_played_by_mouse(screen_factory: Any, floor: dict[str, Any]) -> None:
    player = floor["player"]
    screen = signed_in(screen_factory, floor["user"])
    page = screen.page

    # given the table, its commitment shown before the bet and the account's 500.00 EUR
    screen.goto("/play/")
    expect(page.get_by_test_id("table-name")).to_have_text("Salon Privé")
    expect(page.get_by_test_id("commitment")).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    expect(page.get_by_test_id("balance")).to_have_text("500.00 EUR")
    for units in (1, 5, 10, 25, 100):
        expect(chip(page, units)).to_be_visible()
    expect(page.get_by_role("button", name="Deal")).to_be_disabled()
    expect(page.locator("#game")).to_have_attribute("data-state", "betting")
    screen.shot("table-open")

    # when she picks the 1 chip by a click and clicks in the circle: 1.00 EUR, below the
    # minimum, so Deal stays disabled
    chip(page, 1).click()
    expect(chip(page, 1)).to_have_attribute("aria-pressed", "true")
    bet_circle(page).click()
    expect(page.get_by_test_id("bet-amount")).to_have_text("1.00 EUR")
    expect(page.get_by_role("button", name="Deal")).to_be_disabled()
    expect(page.get_by_test_id("message")).to_have_text("The table's minimum bet is 2.00 EUR.")
    screen.shot("below-the-minimum")

    # a double click on the 10 chip places it; a click in the circle places another 10 (the
    # picked chip now); a right click takes the last one back
    chip(page, 10).dblclick()
    expect(page.get_by_test_id("bet-amount")).to_have_text("11.00 EUR")
    expect(chip(page, 10)).to_have_attribute("aria-pressed", "true")
    bet_circle(page).click()
    expect(page.get_by_test_id("bet-amount")).to_have_text("21.00 EUR")
    bet_circle(page).click(button="right")
    expect(page.get_by_test_id("bet-amount")).to_have_text("11.00 EUR")
    # a 100 chip on top would pass the table's maximum: refused in words
    chip(page, 100).dblclick()
    expect(page.get_by_test_id("message")).to_have_text(
        "The table's maximum bet is 100.00 EUR: another 100.00 EUR would make 111.00 EUR.")
    expect(page.get_by_test_id("bet-amount")).to_have_text("11.00 EUR")
    # the chips on the circle have left the account shown, until Clear or the game
    expect(page.get_by_test_id("balance")).to_have_text("489.00 EUR")
    expect(page.get_by_role("button", name="Deal")).to_be_enabled()
    screen.shot("chips-placed")

    # then Deal: her seven cards face up, the dealer's seven face down
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#felt .player-zone button.pcard")).to_have_count(7)
    expect(page.locator("#dealer-cards .pcard.back")).to_have_count(7)
    expect(page.get_by_role("button", name="House Way")).to_be_visible()
    expect(page.get_by_role("button", name="Deal")).to_be_hidden()
    expect(page.get_by_test_id("balance")).to_have_text("489.00 EUR")
    assert last_game(player).state == Round.State.DEALT
    screen.shot("dealt")

    # she drags the house way's two front cards into 2nd Highest: House Way becomes Done
    cards = my_cards(page)
    front = [c.code for c in paigow.house_way(" ".join(cards)).low]
    low_zone = page.get_by_test_id("second-highest")
    card(page, front[0]).drag_to(low_zone)
    expect(low_zone.locator("button.pcard")).to_have_count(1)
    expect(page.get_by_role("button", name="House Way")).to_be_visible()
    card(page, front[1]).drag_to(low_zone)
    expect(low_zone.locator("button.pcard")).to_have_count(2)
    expect(page.get_by_role("button", name="Done")).to_be_visible()
    screen.shot("two-cards-in-2nd-highest")
    # one dragged back: House Way again; and in again: Done
    card(page, front[1]).drag_to(page.get_by_test_id("highest"))
    expect(low_zone.locator("button.pcard")).to_have_count(1)
    expect(page.get_by_role("button", name="House Way")).to_be_visible()
    screen.shot("one-card-back-house-way-again")
    card(page, front[1]).drag_to(low_zone)
    expect(page.get_by_role("button", name="Done")).to_be_visible()

    # Done: the dealer's hand is shown and the game settled, the outcome in words
    page.get_by_role("button", name="Done").click()
    expect(page.get_by_role("button", name="New Game")).to_be_visible()
    expect(page.locator("#dealer-hand .pcard")).to_have_count(7)
    expect(page.get_by_test_id("message")).to_have_text(re.compile(
        r"^(You win \d+\.\d\d EUR \(commission \d+\.\d\d EUR\)|Push: your 11\.00 EUR back"
        r"|The dealer wins 11\.00 EUR)"))
    game = assert_settled_with_its_entry(page, player)
    hand = game.hands.get(position="1")
    assert (sorted(hand.low.split()), hand.set_by) == (sorted(front), Hand.SetBy.PLAYER)
    shot = screen.shot("settled-by-done")
    if os.environ.get("CASINO_DOC_SCREENSHOTS"):
        shutil.copyfile(shot, DOCS / "player-table.png")

    # New Game clears the table and shows Deal and Re-Bet again; Re-Bet places 11.00 again
    page.get_by_role("button", name="New Game").click()
    expect(page.get_by_role("button", name="Re-Bet")).to_be_visible()
    expect(page.get_by_role("button", name="Deal")).to_be_disabled()
    expect(page.locator("#felt .player-zone .pcard")).to_have_count(0)
    screen.shot("new-game")
    page.get_by_role("button", name="Re-Bet").click()
    expect(page.get_by_test_id("bet-amount")).to_have_text("11.00 EUR")
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#felt .player-zone button.pcard")).to_have_count(7)
    screen.shot("re-bet-dealt")
    page.get_by_role("button", name="House Way").click()
    expect(page.get_by_role("button", name="New Game")).to_be_visible()
    game = assert_settled_with_its_entry(page, player)
    assert game.hands.get(position="1").set_by == Hand.SetBy.HOUSE_WAY
    screen.shot("settled-by-house-way")

    # Clear before a deal takes every chip off the circle, back to the account
    before = shown_balance(player)
    page.get_by_role("button", name="New Game").click()
    chip(page, 25).dblclick()
    chip(page, 5).dblclick()
    expect(page.get_by_test_id("bet-amount")).to_have_text("30.00 EUR")
    screen.shot("before-clear")
    page.get_by_role("button", name="Clear").click()
    expect(page.get_by_test_id("bet-amount")).to_have_text("")
    expect(page.get_by_test_id("balance")).to_have_text(before)
    expect(page.get_by_role("button", name="Deal")).to_be_disabled()
    assert last_game(player).state == Round.State.BETTING
    screen.shot("cleared")


def test_a_foul_is_refused_in_words_and_the_keyboard_sets_the_hand_at_768_wide(
    screen_factory: Any, floor: dict[str, Any]
) -> None:
    player = floor["player"]
    screen = signed_in(screen_factory, floor["user"], width=768, height=1024)
    page = screen.page
    screen.goto("/play/")
    expect(page.locator("#game")).to_have_attribute("data-state", "betting")

    # given 25.00 EUR bet by keyboard (Enter on a chip picks it, Enter on the circle places
    # it) with a client seed of her own, and seven cards that can be set foul: a hand that
    # cannot (two pair and a pair, say) is set the house way and the next one dealt
    page.get_by_label("Your seed").fill("greta's lucky seed")
    fouls: list[paigow.Setting] = []
    for _ in range(6):
        chip(page, 25).focus()
        page.keyboard.press("Enter")
        bet_circle(page).focus()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("bet-amount")).to_have_text("25.00 EUR")
        page.get_by_role("button", name="Deal").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#felt .player-zone button.pcard")).to_have_count(7)
        cards = my_cards(page)
        fouls = [s for s in paigow.all_settings(" ".join(cards)) if s.foul]
        if fouls:
            break
        page.get_by_role("button", name="House Way").click()
        page.get_by_role("button", name="New Game").click()
        expect(page.locator("#game")).to_have_attribute("data-state", "betting")
    assert fouls, "six hands in a row without a foul setting to try"
    screen.shot("dealt-768")

    # when she sets a foul by keyboard (Enter on a card moves it to 2nd Highest) and presses
    # Done
    for code in (c.code for c in fouls[0].low):
        card(page, code).focus()
        page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Done")).to_be_visible()
    page.get_by_role("button", name="Done").click()

    # then it is refused in words, and the hand is left as it is, to fix
    message = page.get_by_test_id("message")
    expect(message).to_have_text(re.compile(r"foul|2nd Highest|higher", re.IGNORECASE))
    assert "{" not in message.inner_text() and "foul_setting" not in message.inner_text()
    front_shown = [card_label(c.code) for c in fouls[0].low]
    assert all(label in message.inner_text() for label in front_shown), message.inner_text()
    expect(page.get_by_test_id("second-highest").locator("button.pcard")).to_have_count(2)
    assert last_game(player).state == Round.State.DEALT
    screen.shot("foul-refused-768")

    # she moves them back by Space and sets the house way's front cards by Enter instead
    for code in (c.code for c in fouls[0].low):
        card(page, code).focus()
        page.keyboard.press("Space")
    expect(page.get_by_role("button", name="House Way")).to_be_visible()

    # a reload (or a lost connection) finds the dealt game again, her seven cards face up
    page.reload()
    expect(page.get_by_test_id("message")).to_have_text(
        "Your game was dealt already: set your hand.")
    assert sorted(my_cards(page)) == sorted(cards)
    expect(page.locator("#dealer-cards .pcard.back")).to_have_count(7)
    expect(page.get_by_test_id("balance")).to_have_text(shown_balance(player))
    screen.shot("resumed-after-reload-768")
    for code in (c.code for c in paigow.house_way(" ".join(cards)).low):
        card(page, code).focus()
        page.keyboard.press("Enter")
    page.get_by_role("button", name="Done").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="New Game")).to_be_visible()
    assert_settled_with_its_entry(page, player)

    # and the revealed seed checks out in her browser: her seven cards are the deal's
    expect(page.get_by_test_id("server-seed")).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    page.get_by_role("button", name="Check this deal").click()
    expect(page.get_by_test_id("check-result")).to_have_text(re.compile(
        r"^✓ The seed's sha256 is the commitment shown before your bet\. Your seven cards "
        r"match the deal recomputed from the seeds"))
    screen.shot("deal-checked-768")


def test_the_page_deals_the_worked_example_of_the_fairness_page(
    screen_factory: Any, floor: dict[str, Any]
) -> None:
    # (docs/fairness.md: the seed of bytes 0 to 31, round 1; with and without a client seed)
    screen = signed_in(screen_factory, floor["user"])
    screen.goto("/play/")
    seed = bytes(range(32)).hex()
    found = screen.page.evaluate(
        """async (seed) => ({
            commitment: await window.playFairness.sha256Hex(seed),
            plain: await window.playFairness.deal(seed, "", 1),
            lucky: await window.playFairness.deal(seed, "lucky", 1)})""", seed)
    assert found["commitment"] == ("630dcd2966c4336691125448bbb25b4ff412a49c"
                                   "732db2c8abc1b8581bd710dd")
    assert " ".join(found["plain"]["deck"][:9]) == "6D KD KC 5S 5C 3S 2D 6C QC"
    assert found["plain"]["dice"] == [6, 2, 1]
    assert " ".join(found["lucky"]["deck"][:7]) == "5H KC 8H JH 9C 2D JS"
    assert found["lucky"]["dice"] == [3, 3, 1]


def test_the_reminder_of_time_played_shows_over_the_game_and_is_dismissed(
    screen_factory: Any, floor: dict[str, Any]
) -> None:
    # (the players' pages' frame reminds every 30 minutes of the session: play/base.html)
    screen = signed_in(screen_factory, floor["user"])
    page = screen.page
    page.clock.install()
    screen.goto("/play/")
    expect(page.get_by_test_id("commitment")).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    reminder = page.locator("#play-reminder")
    expect(reminder).to_be_hidden()

    # when half an hour of the session has passed at the table
    page.clock.fast_forward("30:05")

    # then the reminder says how long she has played, and goes when dismissed
    expect(reminder).to_be_visible()
    expect(reminder).to_contain_text("You have been playing for 30 minutes")
    screen.shot("reminder")
    reminder.get_by_role("button", name="OK").click()
    expect(reminder).to_be_hidden()
    expect(page.get_by_role("button", name="Deal")).to_be_disabled()


def test_a_deal_past_her_own_limit_is_refused_in_words_and_the_chips_stay(
    screen_factory: Any, floor: dict[str, Any]
) -> None:
    # given Greta's own daily wager limit of 20.00 EUR
    player = floor["player"]
    player_limits_set(player_id=player.pk, changes={PlayerLimit.Kind.WAGER_PER_DAY: 2_000},
                      by=floor["user"])
    screen = signed_in(screen_factory, floor["user"])
    page = screen.page
    screen.goto("/play/")
    expect(page.locator("#game")).to_have_attribute("data-state", "betting")

    # when she bets 25.00 EUR and presses Deal
    chip(page, 25).dblclick()
    page.get_by_role("button", name="Deal").click()

    # then the service's refusal is shown in words; the chips stay, nothing was dealt or held
    expect(page.get_by_test_id("message")).to_have_text(
        "Your daily wager limit of 20.00 EUR leaves 20.00 EUR today: a wager of 25.00 EUR is "
        "past it.")
    expect(page.get_by_test_id("bet-amount")).to_have_text("25.00 EUR")
    expect(page.get_by_test_id("balance")).to_have_text("475.00 EUR")
    assert last_game(player).state == Round.State.BETTING
    assert shown_balance(player) == "500.00 EUR"
    screen.shot("limit-refused")

    # and with the 25 chip taken back by a right click, two 10 chips deal 20.00 EUR
    bet_circle(page).click(button="right")
    expect(page.get_by_test_id("bet-amount")).to_have_text("")
    chip(page, 10).dblclick()
    chip(page, 10).dblclick()
    page.get_by_role("button", name="Deal").click()
    expect(page.locator("#felt .player-zone button.pcard")).to_have_count(7)
    expect(page.get_by_test_id("balance")).to_have_text(shown_balance(player))
