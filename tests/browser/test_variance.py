"""The floor's variance check as a pit boss reads it: a table not checked yet, a day outside
its band said in words, explained in the pit boss's own words and then read as explained.
Screenshots at 1440 and 768 px wide also go to /work/shots/35/ (issue 35's review)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from rounds.models import VarianceExplanation
from tests.browser.tables import make_floor

__all__ = ["make_floor"]

SHOTS = Path("/work/shots/35")


def review_shot(page: Any, name: str, width: int) -> None:
    """A copy of the screen for the issue's review, where that folder exists."""
    if SHOTS.is_dir():
        page.screenshot(path=str(SHOTS / f"variance-{name}-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", [1440, 768])
@pytest.mark.django_db(transaction=True)
def test_a_pit_boss_reads_and_explains_a_day_outside_its_band_on_the_floor(
    width: int, screen_factory: Any, make_floor: Any, staff_user: Any
) -> None:
    # given a table whose 30 house rounds the player won 12 of (the house lost 1,140.00),
    # and a table of 12 rounds, too few for the check (30 by default)
    lucky = make_floor({1: ("Anna", 100_000)}, name="Table 1")
    for n in range(30):
        lucky.played_round({1: 10_000}, {"1": "win" if n % 5 < 2 else "push"})
    early = make_floor({2: ("Bram", 100_000)}, name="Table 2")
    for n in range(12):
        early.played_round({2: 2_500}, {"2": "loss" if n % 2 else "win"})
    screen = screen_factory(width=width)
    # pat opened those rounds, so dealt them: another pit boss explains the day
    staff_user("pit_boss", "pia")
    screen.sign_in("pia")
    page = screen.page
    check = page.get_by_test_id("variance-check")

    # then the floor says which day is flagged, in words, and which is not checked yet
    flagged = page.get_by_test_id(f"variance-{lucky.table.pk}")
    expect(flagged).to_contain_text("To explain")
    expect(flagged).to_contain_text(
        "Table 1's result today is outside its expected band after 30 house-banked rounds: "
        "expected house result about +")
    expect(flagged).to_contain_text(
        "on 3,000.00 EUR of house-banked wagers, actual -1,140.00 EUR: "
        "the house lost 1,140.00 EUR.")
    assert "won -" not in check.inner_text()
    waiting = page.get_by_test_id(f"variance-{early.table.pk}")
    expect(waiting).to_have_text(
        "Not checked yet Table 2: 12 house-banked rounds today; the variance check starts at 30.")
    check.scroll_into_view_if_needed()
    screen.shot("flag-unexplained")
    review_shot(page, "flag-unexplained", width)
    if SHOTS.is_dir():
        check.screenshot(path=str(SHOTS / f"variance-not-enough-rounds-{width}.png"))

    # when the pit boss explains it in their own words
    flagged.get_by_label("What explains Table 1's result?").fill(
        "Anna's twelve wins checked with surveillance: a fair shoe, paid right")
    screen.shot("explain-form")
    review_shot(page, "explain-form", width)
    flagged.get_by_role("button", name="Record the explanation").click()
    page.wait_for_load_state("networkidle")

    # then the floor says so, and reads the flag as explained, by whom
    expect(page.locator("#messages")).to_contain_text("Table 1's result today is explained.")
    explained = page.get_by_test_id(f"variance-{lucky.table.pk}")
    expect(explained).to_contain_text("Explained")
    expect(explained.get_by_test_id("variance-explained")).to_contain_text(
        "Explained by pia: Anna's twelve wins checked with surveillance: a fair shoe, paid "
        "right")
    expect(explained.get_by_test_id("variance-explain-form")).to_have_count(0)
    screen.shot("flag-explained")
    review_shot(page, "flag-explained", width)

    # and the explanation is stored once, with who and the figures it speaks of
    (row,) = VarianceExplanation.objects.all()
    assert (row.table_id, row.explained_by.username, row.rounds, row.result) == (
        lucky.table.pk, "pia", 30, -114_000)
