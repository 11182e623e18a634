"""A pit boss finds an older round in a table's history, reads its story and settlement, and
reverses it from its page; and a step's message is not shown again at the next step."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Entry
from rounds import services
from rounds.models import Round
from tests.browser.tables import available, make_floor
from tests.conftest import played_rounds_rewritten

__all__ = ["make_floor"]

# Seat 1 (Anna) loses and seat 2 (Bram) wins against the dealer's 5 5 T 4 2 / K Q.
DEALT = {"dealer": "5S 5H TD 4C 2S KD QC", "1": "AH TS 9C 6D 3H KS QH",
         "2": "KC JC 8C 6C 3C AS 2D"}
SET = {"1": ("AH TS 9C 6D 3H", "KS QH"), "2": ("KC JC 8C 6C 3C", "AS 2D")}


def dealt_round(floor: Any) -> Round:
    """A house-banked round recorded from a physical deal, its hands set and settled."""
    by = floor.pit_boss
    round_ = services.round_open(table_id=floor.table.pk, by=by)
    for seat in (1, 2):
        services.wager_place(round_id=round_.pk, seat=seat, amount=2_000, by=by)
    services.banker_set(round_id=round_.pk, house=True, by=by)
    services.round_deal(round_id=round_.pk, hands=DEALT, by=by)
    for position, (high, low) in SET.items():
        services.hand_set(round_id=round_.pk, position=position, high=high, low=low, by=by)
    return services.round_settle(round_id=round_.pk, by=by)


@pytest.mark.django_db(transaction=True)
def test_a_pit_boss_finds_an_older_round_in_the_history_and_reverses_it(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given yesterday's three rounds (the second dealt with cards) and two of today's
    floor = make_floor({1: ("Anna", 50_000), 2: ("Bram", 50_000)})
    anna, bram = floor.players[1], floor.players[2]
    floor.played_round({1: 1_000}, {"1": "win"})
    before = (available(anna), available(bram))
    older = dealt_round(floor)
    played = (available(anna), available(bram))
    assert played == (before[0] - 2_000, before[1] + 1_900)  # Bram's win less 5% commission
    floor.played_round({1: 500, 2: 500}, {"1": "loss", "2": "push"})
    yesterday = gaming_day_of() - timedelta(days=1)
    played_rounds_rewritten(Round.objects.filter(table=floor.table), gaming_day=yesterday)
    floor.played_round({2: 1_000}, {"2": "loss"})
    floor.played_round({1: 1_000}, {"1": "push"})
    last = (available(anna), available(bram))
    staff_user(roles.PIT_BOSS, "petra")
    screen = screen_factory(width=1024)
    missing: list[str] = []
    screen.page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    screen.sign_in("petra")
    page = screen.page

    # when the pit boss goes from the floor to the table's history
    page.get_by_role("link", name="Round history").first.click()
    page.get_by_role("heading", name=f"{floor.table.name} · round history").wait_for()
    assert [r.get_attribute("data-round") for r in page.locator("tr[data-round]").all()] == \
        ["5", "4"]
    screen.shot("history-today")
    # and picks yesterday
    page.get_by_role("link", name=f"{yesterday:%a} {yesterday.day} {yesterday:%b %Y} · 3 rounds"
                     ).click()
    rows = page.locator("tr[data-round]")
    assert [r.get_attribute("data-round") for r in rows.all()] == ["3", "2", "1"]
    row = page.locator('tr[data-round="2"]').inner_text()
    assert "40.00 EUR" in row and "The house" in row  # wagered; who banked
    screen.shot("history-yesterday")

    # then the round's page tells its story and its settlement
    page.get_by_role("link", name="Round 2", exact=True).click()
    page.get_by_role("heading", name=f"{floor.table.name} · Round 2").wait_for()
    story = page.get_by_test_id("story").inner_text()
    assert "Seat 1 · Anna wagers 20.00 EUR." in story
    assert "Seat 2 · Bram wagers 20.00 EUR." in story
    assert "The house banks." in story and "Hands recorded from a physical deal." in story
    assert story.index("Anna wagers") < story.index("The house banks") < story.index("Settled")
    # cards as cards, hearts in red
    assert page.locator('.card-red[data-card="AH"]').first.inner_text() == "A♥"
    results = page.get_by_test_id("results").inner_text()
    assert "Seat 1 · Anna" in results and "-20.00 EUR" in results
    assert "Seat 2 · Bram" in results and "1.00 EUR" in results and "19.00 EUR" in results
    assert "1.00 EUR" in page.get_by_test_id("house-income").inner_text()  # the commission
    screen.shot("round-page")

    # when the pit boss reverses it from there, with a reason, having seen what moves back
    preview = page.get_by_test_id("preview").inner_text()
    assert "Anna" in preview and "20.00 EUR" in preview
    assert "Bram" in preview and "-19.00 EUR" in preview
    page.get_by_role("button", name="Reverse round 2").click()
    assert page.get_by_label("Reason").evaluate("e => e.validity.valueMissing")
    page.get_by_label("Reason").fill("Seat 2's hand was misread")
    page.get_by_role("button", name="Reverse round 2").click()

    # then the page says so, tells the reversal, and the money is back where it was
    page.get_by_text("Round 2 is reversed").wait_for()
    assert "Seat 2's hand was misread" in page.get_by_test_id("reversed").inner_text()
    assert "Reversed: every amount" in page.get_by_test_id("story").inner_text()
    expect(page.get_by_role("button", name="Reverse round 2")).to_have_count(0)
    screen.shot("reversed")
    older.refresh_from_db()
    assert older.state == Round.State.REVERSED and older.reversal_entry_id is not None
    assert Entry.objects.get(pk=older.reversal_entry_id).reverses_id == older.entry_id
    # (round 2's amounts moved back; the later rounds' stay)
    assert (available(anna), available(bram)) == (last[0] + 2_000, last[1] - 1_900)
    # and no page asked for anything that is not there (the favicon among them)
    assert missing == []


@pytest.mark.django_db(transaction=True)
def test_a_message_is_not_shown_again_at_the_next_step(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given the table screen after a reversal, its message shown
    floor = make_floor({1: ("Anna", 50_000)})
    floor.played_round({1: 1_000}, {"1": "win"})
    staff_user(roles.PIT_BOSS, "petra")
    screen = screen_factory(width=1024)
    screen.sign_in("petra")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")
    page.get_by_role("link", name="Reverse round 1…").click()
    page.get_by_label("Reason").fill("Wrong outcome keyed")
    page.get_by_role("button", name="Reverse round 1").click()
    page.get_by_text("Round 1 is reversed").wait_for()

    # when the next step is taken on the screen
    page.get_by_role("button", name="New Game").click()
    page.get_by_text("Round 2 is open").wait_for()

    # then only its own message is shown
    shown = page.locator(".messages li").all_inner_texts()
    assert shown == ["Round 2 is open: place the wagers."]
    screen.shot("next-step")


@pytest.mark.django_db(transaction=True)
def test_a_round_in_play_shows_no_bank_card_on_its_page(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a round dealt electronically, the players' hands still to be set
    floor = make_floor({1: ("Anna", 50_000), 2: ("Bram", 50_000)})
    by = floor.pit_boss
    round_ = services.round_open(table_id=floor.table.pk, by=by)
    for seat in (1, 2):
        services.wager_place(round_id=round_.pk, seat=seat, amount=1_000, by=by)
    services.banker_set(round_id=round_.pk, house=True, by=by)
    round_ = services.round_deal(round_id=round_.pk, by=by)
    dealer_cards = round_.hands.get(position="dealer").cards.split()
    staff_user(roles.AUDITOR, "audrey")
    screen = screen_factory(width=1024)
    screen.sign_in("audrey")
    page = screen.page

    # when an auditor opens it from the table's history
    screen.goto(f"/tables/{floor.table.pk}/history/")
    page.get_by_role("link", name="Round 1", exact=True).click()

    # then Anna's cards show, the dealer's, the stacks and the burnt cards do not
    page.get_by_test_id("in-play").wait_for()
    shown = {c.get_attribute("data-card") for c in page.locator("[data-card]").all()}
    assert set(round_.hands.get(position="1").cards.split()) <= shown
    assert not shown & (set(dealer_cards) | set(round_.burnt.split()))
    expect(page.get_by_test_id("hidden")).to_have_count(1)
    expect(page.get_by_role("button", name="Reverse round 1")).to_have_count(0)
    screen.shot("in-play")
