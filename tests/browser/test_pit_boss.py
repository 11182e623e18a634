"""What only a pit boss does on the table screen: seats, settings, voids and reversals."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from casino.selectors import player_balance
from ledger.models import Entry
from rounds import services
from rounds.models import Round, Seat, Table
from tests.browser.tables import available, make_floor, open_holds, seat_row
from tests.players import make_player

__all__ = ["make_floor"]


@pytest.mark.django_db(transaction=True)
def test_a_pit_boss_reverses_and_voids_rounds_after_seeing_what_moves(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a settled round in which Anna won 10.00 (0.50 commission) and Bram lost 20.00
    floor = make_floor({1: ("Anna", 50_000), 2: ("Bram", 50_000)})
    settled = floor.played_round({1: 1_000, 2: 2_000}, {"1": "win", "2": "loss"})
    anna, bram = floor.players[1], floor.players[2]
    assert (available(anna), available(bram)) == (50_950, 48_000)
    staff_user(roles.PIT_BOSS, "petra")
    screen = screen_factory(width=768)
    screen.sign_in("petra")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")

    # when the pit boss asks to reverse it, the page lists every amount that moves back
    page.get_by_role("link", name="Reverse round 1…").click()
    preview = page.get_by_test_id("preview").inner_text()
    assert "Anna" in preview and "-9.50 EUR" in preview
    assert "Bram" in preview and "20.00 EUR" in preview
    assert "commission" in preview.lower() and "-0.50 EUR" in preview
    screen.shot("reverse-preview")
    # a reversal without a reason is not sent
    page.get_by_role("button", name="Reverse round 1").click()
    assert page.get_by_label("Reason").evaluate("e => e.validity.valueMissing")
    assert Round.objects.get(pk=settled.pk).state == Round.State.SETTLED
    page.get_by_label("Reason").fill("Wrong outcome keyed for seat 1")
    page.get_by_role("button", name="Reverse round 1").click()

    # then the settlement is marked reversed and the money is back where it was
    page.get_by_test_id("reversed").wait_for()
    assert "Wrong outcome keyed for seat 1" in page.get_by_test_id("reversed").inner_text()
    screen.shot("reversed")
    settled.refresh_from_db()
    assert settled.state == Round.State.REVERSED and settled.reversal_entry_id
    assert Entry.objects.get(pk=settled.reversal_entry_id).reverses_id == settled.entry_id
    assert (available(anna), available(bram)) == (50_000, 50_000)

    # when a new round takes Anna's wager and the pit boss voids it
    page.get_by_role("button", name="New Game").click()
    page.get_by_role("button", name="Add a 25 EUR chip to seat 1").click()
    seat_row(page, 1).get_by_role("button", name="Bet", exact=True).click()
    seat_row(page, 1).get_by_test_id("wager").filter(has_text="25.00 EUR").wait_for()
    page.get_by_role("link", name="Void round 2…").click()
    preview = page.get_by_test_id("preview").inner_text()
    assert "Anna" in preview and "wager, seat 1" in preview and "25.00 EUR" in preview
    screen.shot("void-preview")
    page.get_by_label("Reason").fill("Card exposed during the shuffle")
    page.get_by_role("button", name="Void round 2").click()

    # then every hold is released
    page.get_by_text("Round 2 is voided").wait_for()
    screen.shot("voided")
    voided = Round.objects.get(table=floor.table, number=2)
    assert voided.state == Round.State.VOIDED and open_holds(voided) == 0
    assert player_balance(anna).held == 0 and available(anna) == 50_000


@pytest.mark.django_db(transaction=True)
def test_a_pit_boss_seats_players_and_changes_settings_only_between_rounds(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    floor = make_floor({1: ("Anna", 50_000)})
    carla = make_player(name="Carla", currency="EUR", by=floor.pit_boss)
    staff_user(roles.PIT_BOSS, "petra")
    screen = screen_factory(width=768)
    screen.sign_in("petra")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")

    # seat Carla at seat 4, unseat Anna
    page.get_by_label("Seat a player").select_option(str(carla.pk))
    page.get_by_label("at seat").select_option("4")
    page.get_by_role("button", name="Seat", exact=True).click()
    page.get_by_text("Carla sits at seat 4.").wait_for()
    page.get_by_role("button", name="Unseat Anna").click()
    page.get_by_text("Seat 1 is free.").wait_for()
    screen.shot("seated")
    seats = dict(Seat.objects.filter(table=floor.table, player__isnull=False)
                 .values_list("number", "player__name"))
    assert seats == {4: "Carla"}

    # with a round in play, a change of settings is refused in words
    services.round_open(table_id=floor.table.pk, by=floor.pit_boss)
    page.get_by_role("link", name="Table settings…").click()
    expect(page.get_by_text("settings change only between rounds").first).to_be_visible()
    page.get_by_label("Maximum wager (EUR)").fill("250.00")
    page.get_by_role("button", name="Save the settings").click()
    refusal = page.locator(".msg-error").first
    assert refusal.inner_text() == ("Settings change only between rounds: this table has a "
                                    "round in play.")
    screen.shot("settings-refused")
    assert Table.objects.get(pk=floor.table.pk).max_bet == 10_000

    # once the round is voided, the change is saved
    open_round = Round.objects.get(table=floor.table, state=Round.State.BETTING)
    services.round_void(round_id=open_round.pk, reason="no players", by=floor.pit_boss)
    page.get_by_role("button", name="Save the settings").click()
    page.get_by_text("The table's settings are saved.").wait_for()
    assert "Wagers 2.00 EUR to 250.00 EUR" in page.locator("#screen").inner_text()
    screen.shot("settings-saved")
    assert Table.objects.get(pk=floor.table.pk).max_bet == 25_000


@pytest.mark.django_db(transaction=True)
def test_a_dealer_is_refused_what_only_a_pit_boss_may_do(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a settled round and a round in play
    floor = make_floor({1: ("Anna", 50_000)})
    settled = floor.played_round({1: 1_000}, {"1": "win"})
    open_round = services.round_open(table_id=floor.table.pk, by=floor.pit_boss)
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=768)
    screen.sign_in("dana")
    page = screen.page

    # the dealer's screen offers none of the pit boss's steps
    screen.goto(f"/tables/{floor.table.pk}/")
    expect(page.get_by_role("heading", name="Pit boss")).to_have_count(0)
    expect(page.get_by_role("button", name="Unseat Anna")).to_have_count(0)
    expect(page.get_by_label("Seat a player")).to_have_count(0)
    screen.shot("dealer-screen")

    # and by URL each is a page in words, not JSON
    for path in (f"/rounds/{open_round.pk}/void/", f"/rounds/{settled.pk}/reverse/",
                 f"/tables/{floor.table.pk}/settings/"):
        response = screen.goto(path)
        assert response.status == 403 and "text/html" in response.headers["content-type"]
        expect(page.get_by_role("heading", name="Not allowed")).to_be_visible()
        assert "Your role does not allow this" in page.locator("main").inner_text()
    screen.shot("refused-page")

    # and a post from the page, with its CSRF token, is refused too and changes nothing
    screen.goto(f"/tables/{floor.table.pk}/")
    status = page.evaluate(
        """async (url) => {
            const token = JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken'];
            const body = new URLSearchParams({reason: 'try'});
            const r = await fetch(url, {method: 'POST', body, headers: {'X-CSRFToken': token}});
            return r.status;
        }""", f"/rounds/{open_round.pk}/void/")
    assert status == 403
    open_round.refresh_from_db()
    settled.refresh_from_db()
    assert open_round.state == Round.State.BETTING and settled.state == Round.State.SETTLED
