"""A table that records results only, and dual control, through the console: the dealer
records outcomes; a pit boss's reversal waits until a second pit boss approves it on the
approvals screen; the one who asked cannot approve their own request."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from casino.shared.approvals import Approval
from ledger.models import Entry
from rounds import services
from rounds.models import Round
from tests.browser.tables import available, make_floor, open_holds

__all__ = ["make_floor"]


@pytest.mark.django_db(transaction=True)
def test_a_dealer_records_the_outcomes_at_a_results_only_table(
    screen_factory: Any, staff_user: Any, make_floor: Any
) -> None:
    # given a table that records results only, Anna 10.00 and Bram 20.00 against the house
    floor = make_floor({1: ("Anna", 50_000), 2: ("Bram", 50_000)}, deal_modes=["results"])
    round_ = services.round_open(table_id=floor.table.pk, by=floor.pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=floor.pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=2_000, by=floor.pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=floor.pit_boss)
    staff_user(roles.DEALER, "dana")
    screen = screen_factory(width=768)
    screen.sign_in("dana")
    page = screen.page
    screen.goto(f"/tables/{floor.table.pk}/")

    # the table offers no card deal, only the outcomes
    expect(page.get_by_role("button", name="Deal", exact=True)).to_have_count(0)
    expect(page.get_by_text("Record a physical deal")).to_have_count(0)
    page.get_by_label("Anna").select_option("win")
    page.get_by_label("Bram").select_option("loss")
    screen.shot("outcomes")
    page.get_by_role("button", name="Record the outcomes and settle").click()

    # then the round is settled: Anna +9.50 (0.50 commission), Bram -20.00
    page.get_by_text("is settled from its outcomes").wait_for()
    screen.shot("settled")
    round_.refresh_from_db()
    assert round_.state == Round.State.SETTLED and round_.deal_kind == Round.DealKind.RESULTS
    assert (available(floor.players[1]), available(floor.players[2])) == (50_950, 48_000)
    assert open_holds(round_) == 0


@pytest.mark.django_db(transaction=True)
def test_with_dual_control_a_reversal_waits_for_a_second_pit_boss_on_the_approvals_screen(
    screen_factory: Any, staff_user: Any, make_floor: Any, settings: Any
) -> None:
    # given a settled round in which Anna won 10.00 (0.50 commission), then dual control on
    floor = make_floor({1: ("Anna", 50_000)})
    settled = floor.played_round({1: 1_000}, {"1": "win"})
    anna = floor.players[1]
    assert available(anna) == 50_950
    settings.CASINO_DUAL_CONTROL = True
    staff_user(roles.PIT_BOSS, "petra")
    staff_user(roles.PIT_BOSS, "paul")
    first = screen_factory(width=1280, who="petra")
    first.sign_in("petra")
    first.goto(f"/tables/{floor.table.pk}/")

    # when Petra reverses it, the reversal is filed, nothing moves
    first.page.get_by_role("link", name="Reverse round 1…").click()
    first.page.get_by_label("Reason").fill("Wrong outcome keyed for seat 1")
    first.page.get_by_role("button", name="Reverse round 1").click()
    first.page.get_by_text("waits for a second pit boss's approval").wait_for()
    first.shot("filed")
    assert Round.objects.get(pk=settled.pk).state == Round.State.SETTLED
    assert available(anna) == 50_950
    # and Petra cannot approve her own request
    first.goto("/approvals/")
    assert "Your request: a colleague decides." in first.page.locator("main").inner_text()
    expect(first.page.get_by_role("button", name="Approve")).to_have_count(0)
    first.shot("own-request")

    # when Paul approves it on the approvals screen
    second = screen_factory(width=1280, who="paul")
    second.sign_in("paul")
    second.goto("/approvals/")
    row = second.page.locator(f"tr[data-approval='{Approval.objects.get().pk}']")
    assert "Reverse Table 1, round 1" in row.inner_text() and "petra" in row.inner_text()
    row.get_by_label("Note").fill("Checked the camera")
    second.shot("pending")
    row.get_by_role("button", name="Approve").click()
    second.page.get_by_text("is approved").wait_for()
    second.shot("approved")

    # then the round is reversed and Anna's win moved back
    settled.refresh_from_db()
    assert settled.state == Round.State.REVERSED
    assert Entry.objects.get(pk=settled.reversal_entry_id).reverses_id == settled.entry_id
    assert available(anna) == 50_000
    approval = Approval.objects.select_related("decided_by").get()
    assert approval.decided_by is not None
    assert (approval.status, approval.decided_by.username, approval.note) == (
        "approved", "paul", "Checked the camera")
