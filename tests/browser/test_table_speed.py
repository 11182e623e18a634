"""The dealer's table screen at the pace of a dealer's hands (issue 22): chips that add up,
an insolvent bank resolved at the table, the keyboard's focus on the next thing to do."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from ledger.models import Entry, Hold
from rounds import services
from rounds.models import Round, RoundParty, Wager
from rounds.settlement import commission_on
from tests.browser.tables import available, make_floor, seat_row

__all__ = ["make_floor"]


@pytest.mark.django_db(transaction=True)
def test_a_wager_built_from_several_chips_with_one_taken_back(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given Anna at seat 1 with 1,000.00 EUR, and a dealer at the table
    floor = make_floor({1: ("Anna", 100_000)})
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=1024)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_role("button", name="Open the first round").click()
    page.get_by_text("Round 1 is open").wait_for()

    # when the dealer adds 25 + 5 + 10, takes the 10 back, and bets once
    row = seat_row(page, 1)
    for chip in (25, 5, 10):
        page.get_by_role("button", name=f"Add a {chip} EUR chip to seat 1").click()
    assert row.get_by_label("Amount (EUR)").input_value() == "40"
    expect(row.get_by_text("25 + 5 + 10 = 40")).to_be_visible()
    # the rack stays while the wager is built
    expect(page.get_by_role("button", name="Add a 25 EUR chip to seat 1")).to_be_visible()
    screen.shot("three-chips")
    page.get_by_role("button", name="Take back the last chip on seat 1").click()
    assert row.get_by_label("Amount (EUR)").input_value() == "30"
    expect(row.get_by_text("25 + 5 = 30")).to_be_visible()
    screen.shot("one-taken-back")
    row.get_by_role("button", name="Bet", exact=True).click()
    row.get_by_test_id("wager").filter(has_text="30.00 EUR").wait_for()
    screen.shot("wager-placed")

    # then one wager of 30.00 is held on Anna's account, no more
    round_ = Round.objects.get(table=floor.table)
    wager = Wager.objects.get(round=round_, state=Wager.State.ACTIVE)
    assert wager.amount == 3_000
    assert Hold.objects.filter(ref=f"round:{round_.pk}", status=Hold.Status.OPEN).count() == 1
    assert available(floor.players[1]) == 100_000 - 3_000
    assert not Wager.objects.filter(round=round_, state=Wager.State.CLEARED).exists()
    assert screen.policy_violations == []


def round_open_at_three_seats(screen_factory: Any, staff_user: Any, make_floor: Any) -> Any:
    """A dealer's table screen with round 1 open, Anna, Ben and Carla at seats 1 to 3."""
    floor = make_floor({1: ("Anna", 100_000), 2: ("Ben", 100_000), 3: ("Carla", 100_000)})
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=1024)
    screen.sign_in("dana")
    screen.goto(f"/tables/{floor.table.pk}/")
    screen.page.get_by_role("button", name="Open the first round").click()
    screen.page.get_by_text("Round 1 is open").wait_for()
    return screen.page


@pytest.mark.django_db(transaction=True)
def test_an_amount_typed_before_the_screen_settles_is_bet_by_enter_and_kept(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a round open at a table with Anna, Ben and Carla, and a dealer at the table
    page = round_open_at_three_seats(screen_factory, staff_user, make_floor)
    # the console settles a swapped screen at once (base.html's htmx-config); were it later,
    # as htmx's default 20 ms or a slow device make it, typing could come in between: 2 s here
    page.evaluate("htmx.config.defaultSettleDelay = 2000")
    seat_row(page, 1).get_by_label("Amount (EUR)").fill("30")
    seat_row(page, 1).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 1).get_by_test_id("wager").filter(has_text="30.00 EUR").wait_for()

    # when seat 3's amount is typed before the screen settles, and Bet pressed after
    seat_row(page, 3).get_by_label("Amount (EUR)").fill("50")
    page.wait_for_function(
        "() => document.querySelector('#seat-3 form[data-chips]')._chipsReady === true")

    # then the amount typed is still there, and is the wager
    assert seat_row(page, 3).get_by_label("Amount (EUR)").input_value() == "50"
    seat_row(page, 3).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 3).get_by_test_id("wager").filter(has_text="50.00 EUR").wait_for()

    # when seat 2's amount is typed and Enter pressed the moment that answer is shown,
    # before the screen settles (its chips still submit buttons, the first one first)
    assert page.evaluate("htmx.config.defaultSettleDelay") == 2000
    seat_row(page, 2).get_by_label("Amount (EUR)").fill("40")
    seat_row(page, 2).get_by_label("Amount (EUR)").press("Enter")

    # then Enter is Bet, not the rack's first chip
    seat_row(page, 2).get_by_test_id("wager").filter(has_text="40.00 EUR").wait_for()
    assert sorted(Wager.objects.values_list("seat", "amount")) == [
        (1, 3_000), (2, 4_000), (3, 5_000)]


@pytest.mark.django_db(transaction=True)
def test_a_swapped_screen_is_ready_and_focused_before_anything_can_be_typed(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a round open at a table with Anna, Ben and Carla, and a dealer at the table
    page = round_open_at_three_seats(screen_factory, staff_user, make_floor)
    # what the page is like at the first moment anything else may run after the swap (a
    # mutation observer's callback: before the next click, keystroke or timer)
    page.evaluate("""() => {
      const old = document.querySelector('#seat-3 form[data-chips]');
      window.firstLook = null;
      new MutationObserver(() => {
        const form = document.querySelector('#seat-3 form[data-chips]');
        if (window.firstLook || !form || form === old) return;
        window.firstLook = {ready: form._chipsReady === true,
                            focused: document.activeElement && document.activeElement.id};
      }).observe(document.body, {childList: true, subtree: true});
    }""")

    # when seat 2 bets (seat 1, still without a wager, is the next to do)
    seat_row(page, 2).get_by_label("Amount (EUR)").fill("40")
    seat_row(page, 2).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 2).get_by_test_id("wager").filter(has_text="40.00 EUR").wait_for()

    # then the new screen was already wired and focused on seat 1's amount when first seen:
    # a field clicked and typed into right after cannot lose the keystrokes to that focus
    assert page.evaluate("window.firstLook") == {"ready": True, "focused": "amount-1"}
    seat_row(page, 3).get_by_label("Amount (EUR)").fill("50")
    seat_row(page, 3).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 3).get_by_test_id("wager").filter(has_text="50.00 EUR").wait_for()
    assert sorted(Wager.objects.values_list("seat", "amount")) == [(2, 4_000), (3, 5_000)]


@pytest.mark.django_db(transaction=True)
def test_an_insolvent_bank_made_solvent_by_lowering_a_wager(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given Anna (150.00) banking against Bram's 100.00 and Chris's 80.00: 30.00 short
    floor = make_floor({1: ("Anna", 15_000), 2: ("Bram", 100_000), 3: ("Chris", 100_000)},
                       bank_rotation="open", banker_must_have_played=False)
    round_ = services.round_open(table_id=floor.table.pk, by=floor.pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=10_000, by=floor.pit_boss)
    services.wager_place(round_id=round_.pk, seat=3, amount=8_000, by=floor.pit_boss)
    services.banker_set(round_id=round_.pk, seat=1, house_stake=0, by=floor.pit_boss)
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=1024)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")

    # the screen says the bank is short and offers no deal, in words
    expect(page.get_by_text("Anna is 30.00 EUR short")).to_be_visible()
    assert page.get_by_role("button", name="Deal", exact=True).is_disabled()
    assert page.get_by_test_id("deal-why").inner_text() == (
        "No deal yet: Anna cannot cover the wagers, 30.00 EUR short. Lower or clear wagers "
        "above, or change the banker.")
    # nor does the card picker of a physical deal record one (rounds.screens.deal_picker)
    page.get_by_text("Record a physical deal with the card picker").click()
    assert page.get_by_role("button", name="Record the deal").is_disabled()
    assert page.get_by_test_id("record-why").inner_text().startswith(
        "The deal cannot be recorded yet: Anna cannot cover the wagers, 30.00 EUR short.")
    screen.shot("bank-short")

    # when the dealer lowers Bram's wager to 70.00
    seat_row(page, 2).get_by_label("Lower to (EUR)").fill("70")
    page.get_by_role("button", name="Lower seat 2").click()
    seat_row(page, 2).get_by_test_id("wager").filter(has_text="70.00 EUR").wait_for()
    expect(page.get_by_test_id("solvency").get_by_text("covered")).to_be_visible()
    assert page.get_by_role("button", name="Deal", exact=True).is_enabled()
    assert not page.get_by_test_id("record-why").count()
    screen.shot("bank-covers")
    page.get_by_role("button", name="Deal", exact=True).click()
    page.get_by_test_id("dice").wait_for()
    screen.shot("dealt")

    # then the ledger holds 70.00 for Bram, 80.00 for Chris and Anna's 150.00 cover
    round_.refresh_from_db()
    assert round_.state == Round.State.DEALT and round_.solvency_required == 15_000
    assert sorted(Hold.objects.filter(ref=f"round:{round_.pk}", status=Hold.Status.OPEN)
                  .values_list("amount", flat=True)) == [7_000, 8_000, 15_000]
    assert [available(floor.players[n]) for n in (1, 2, 3)] == [0, 93_000, 92_000]
    # the bank panel's "available" is the seat row's
    assert page.get_by_test_id("banker-available").inner_text() == \
        seat_row(page, 1).get_by_test_id("available").inner_text() == "0.00 EUR"
    assert screen.policy_violations == []


@pytest.mark.django_db(transaction=True)
def test_a_whole_house_banked_round_by_keyboard_alone(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given Anna and Bram seated, and a dealer who never touches the mouse
    floor = make_floor({1: ("Anna", 100_000), 2: ("Bram", 100_000)})
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=1024)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")

    def focused() -> str:
        return page.evaluate("() => document.activeElement.getAttribute('aria-label')"
                             " || document.activeElement.id || document.activeElement.innerText")

    def focus_is(expected: str) -> None:
        page.wait_for_function("(name) => { const e = document.activeElement; return "
                               "(e.getAttribute('aria-label') || e.id || e.innerText) === name"
                               " }", arg=expected)

    expect(page.get_by_test_id("shortcuts")).to_be_visible()
    focus_is("Open the first round")
    page.keyboard.press("Enter")
    focus_is("amount-1")  # the first seat without a wager
    screen.shot("seat-1-focused")
    page.keyboard.type("10")
    page.keyboard.press("Enter")
    focus_is("amount-2")  # the second Enter acts on seat 2, not seat 1
    assert seat_row(page, 1).get_by_test_id("wager").inner_text() == "10.00 EUR"
    page.keyboard.type("7")
    page.keyboard.press("Enter")
    focus_is("The house banks")
    screen.shot("banker-focused")
    page.keyboard.press("Enter")
    focus_is("Deal")
    page.keyboard.press("Enter")
    focus_is("House Way for Seat 1 · Anna")
    screen.shot("hand-1-focused")
    page.keyboard.press("h")  # the shortcut: House Way for the hand in focus
    focus_is("House Way for Seat 2 · Bram")
    page.keyboard.press("Enter")
    focus_is("Done: settle the round")
    screen.shot("settle-focused")
    page.keyboard.press("s")
    focus_is("New Game")
    page.get_by_text("Round 1 is settled").wait_for()
    screen.shot("settled")
    assert focused() == "New Game"

    # then the round is settled in one entry (none if every hand pushed), no hold is left
    # open, and the seat rows show the ledger's balances
    round_ = Round.objects.get(table=floor.table)
    assert round_.state == Round.State.SETTLED
    assert [w.amount for w in round_.wagers.filter(state=Wager.State.ACTIVE)] == [1_000, 700]
    assert Entry.objects.filter(ref=f"round:{round_.pk}").count() == (
        1 if round_.entry_id else 0)
    # each player's balance moved by what the rules pay the outcome (a win less 5 %), which
    # is the settlement's stored result for the seat and what the screen shows
    for n, player in floor.players.items():
        party = round_.parties.get(role=RoundParty.Role.SEAT, position=str(n))
        outcome = round_.hands.get(position=str(n)).outcome
        wager = party.wager
        assert party.result == {"win": wager - commission_on(wager, Decimal("0.05"), "exact"),
                                "loss": -wager, "push": 0}[outcome], (n, outcome)
        assert available(player) == 100_000 + party.result
        assert seat_row(page, n).get_by_test_id("available").inner_text() == \
            f"{available(player) / 100:,.2f} EUR"  # en: thousands separated
    assert not Hold.objects.filter(ref=f"round:{round_.pk}", status=Hold.Status.OPEN).exists()
    assert screen.policy_violations == []
