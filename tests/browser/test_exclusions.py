"""An excluded player refused at a seat and at the cage, as the pit boss and the cashier see
it: the pit boss records a self-exclusion on the Exclusions page, then tries to seat the
player (refused in words); the cashier sees the exclusion on the player's page and tries a
deposit (refused in words); the exclusions report lists it. The ledger and the seats are
checked afterwards, not the pages alone. Each screen is shot at 1440 and 768 px wide."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from casino.models import Exclusion
from casino.selectors import player_balance
from casino.services import player_deposit
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Entry
from rounds.models import Seat
from tests.browser.tables import make_floor
from tests.players import make_player

__all__ = ["make_floor"]

# Where the screenshots are collected for people to look at.
SHOTS = Path("/work/shots/35")


def _keep(path: Path, screen_name: str, width: int) -> None:
    if SHOTS.parent.exists():
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SHOTS / f"excl-{screen_name}-{width}.png")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1440, 768])
def test_an_excluded_player_is_refused_at_a_seat_and_at_the_cage(
        screen_factory: Any, staff_user: Any, make_floor: Any, width: int) -> None:
    floor = make_floor({1: ("Bram", 50_000)})
    anna = make_player(name="Anna Meyer", currency="EUR", by=floor.pit_boss)
    player_deposit(player_id=anna.pk, amount=20_000, by=floor.pit_boss)
    until = (gaming_day_of() + timedelta(days=177)).isoformat()
    staff_user(roles.PIT_BOSS, "petra")
    staff_user(roles.CAGE, "carl")
    boss = screen_factory(width=width, who="pit-boss")
    boss.sign_in("petra")
    page = boss.page

    # the pit boss records Anna's self-exclusion on the Exclusions page
    page.get_by_role("link", name="Exclusions").click()
    expect(page.get_by_role("heading", name="Exclusions", level=1)).to_be_visible()
    form = page.get_by_role("region", name="Record an exclusion")
    form.get_by_label("Player number").fill(str(anna.pk))
    form.get_by_label("Self-excluded: the player asked").check()
    form.get_by_label("Until (inclusive)").fill(until)
    form.get_by_label("Reason").fill("Asked at the cage to be kept from play")
    _keep(boss.shot("recording-form"), "recording-form", width)
    form.get_by_role("button", name="Record the exclusion").click()
    expect(page.get_by_text(f"Recorded: Anna Meyer is self-excluded until {until}")
           ).to_be_visible()
    row = page.locator(f"tr[data-exclusion='{Exclusion.objects.get().pk}']")
    expect(row).to_contain_text(f"Self-excluded until {until}")
    expect(row).to_contain_text("In force")
    expect(row).to_contain_text("Asked at the cage to be kept from play")
    _keep(boss.shot("exclusions-page"), "exclusions-page", width)

    # then seating her at the table is refused in words
    boss.goto(f"/tables/{floor.table.pk}/")
    page.get_by_label("Seat a player").select_option(str(anna.pk))
    page.get_by_label("at seat").select_option("3")
    page.get_by_role("button", name="Seat", exact=True).click()
    refusal = page.locator(".msg-error").first
    expect(refusal).to_have_text(f"Anna Meyer is self-excluded until {until} and cannot be "
                                 "seated.")
    _keep(boss.shot("seat-refusal"), "seat-refusal", width)
    assert not Seat.objects.filter(player=anna).exists()

    # the cashier sees the exclusion on her page, and her deposit is refused in words
    cage = screen_factory(width=width, who="cage")
    cage.sign_in("carl")
    cage.goto(f"/cage/players/{anna.pk}/")
    expect(cage.page.get_by_test_id("excluded-now")).to_have_text(
        f"Anna Meyer is self-excluded until {until}: no seat, wager, buy-in, deposit or bank "
        "until it ends or is lifted.")
    _keep(cage.shot("player-page"), "player-page", width)
    entries = Entry.objects.count()
    deposit = cage.page.get_by_role("region", name="Deposit")
    deposit.get_by_label("Amount (EUR)").fill("500.00")
    deposit.get_by_label("Reference").fill("Slip 5001")
    deposit.get_by_role("button", name="Take deposit").click()
    expect(cage.page.get_by_role("region", name="Deposit").locator(".msg-error")).to_have_text(
        f"Anna Meyer is self-excluded until {until} and cannot deposit at the cage.")
    _keep(cage.shot("cage-refusal"), "cage-refusal", width)
    assert Entry.objects.count() == entries
    assert player_balance(anna).posted == 20_000

    # the exclusions report lists her
    page.get_by_role("link", name="Reports", exact=True).click()
    page.get_by_label("Kind").select_option(label="Self-excluded and barred players")
    page.wait_for_url("**kind=exclusions**")
    page.get_by_label("Gaming day", exact=True).fill(gaming_day_of().isoformat())
    page.get_by_label("Format").select_option("pdf")
    page.get_by_role("button", name="Ask for it").click()
    page.get_by_role("link", name="as a page").first.click()
    main = page.locator("main")
    expect(main).to_contain_text("Self-excluded and barred players")
    expect(main).to_contain_text("Anna Meyer")
    expect(main).to_contain_text("Asked at the cage to be kept from play")
    _keep(boss.shot("report"), "report", width)
