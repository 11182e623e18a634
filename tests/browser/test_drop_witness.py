"""Two people count the drop box: the counter records the count in one browser, the witness
signs in as themselves in another and confirms it, and only then does the ledger move; the
variance is then explained, in a panel on its row, by someone other than the counter."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from ledger.models import Account, Entry, Line
from rounds.models import DropCount
from rounds.services.drop import buy_in_take
from tests.browser.tables import make_floor

__all__ = ["make_floor"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1440, 768])
def test_the_witness_confirms_the_count_in_their_own_browser_and_only_then_it_posts(
    screen_factory: Any, staff_user: Any, make_floor: Any, width: int
) -> None:
    # given 200.00 taken at Salon 1's seat 1 today, Carl who counts and Wendy his witness
    floor = make_floor({1: ("Anna", 0)}, name="Salon 1")
    buy_in_take(table_id=floor.table.pk, seat=1, amount=20_000, by=floor.pit_boss)
    staff_user(roles.COUNT, "carl")
    staff_user(roles.COUNT, "wendy")
    box = Account.objects.get(kind="drop_box", ref=f"table:{floor.table.pk}")

    # when Carl, in his browser, counts 190.00 and names Wendy
    counter = screen_factory(width=width, who="counter")
    counter.sign_in("carl")
    counter.goto("/drop-count/")
    page = counter.page
    page.get_by_label("Table").select_option(label="Salon 1")
    page.get_by_label("Cash counted").fill("190")
    page.get_by_label("Witness (username)").fill("wendy")
    page.get_by_label("Your note on a variance").fill("A 10.00 note may be torn in the box")
    counter.shot("count-form")
    page.get_by_role("button", name="Record the count").click()

    # then it waits for Wendy, and nothing is posted
    expect(page.get_by_text("it waits for wendy to confirm it")).to_be_visible()
    expect(page.get_by_test_id("drop-count-result")).to_contain_text("Waiting for wendy")
    expect(page.get_by_text("Counts waiting for your signature")).to_have_count(0)
    counter.shot("awaiting")
    count = DropCount.objects.get()
    assert (count.status, count.entry_id, count.variance) == ("awaiting_witness", None, None)
    box.refresh_from_db()
    assert box.posted == -20_000
    assert not Line.objects.filter(entry__kind__in=["drop_count", "drop_variance"]).exists()

    # when Wendy signs in, in her own browser, and confirms the count waiting for her
    witness = screen_factory(width=width, who="witness")
    witness.sign_in("wendy")
    witness.goto("/drop-count/")
    signing = witness.page.get_by_test_id("to-sign")
    expect(signing).to_contain_text("Counts waiting for your signature")
    expect(signing).to_contain_text("190.00 EUR")
    expect(signing).to_contain_text("A 10.00 note may be torn in the box")
    witness.shot("witness")
    signing.get_by_role("button", name="Confirm the count of 190.00 EUR").click()

    # then the count posts: the cash to the cage, the 10.00 short to the variance account
    expect(witness.page.get_by_text("You confirmed Salon 1's count")).to_be_visible()
    count.refresh_from_db()
    assert (count.status, count.recorded, count.variance) == ("unexplained", 20_000, -1_000)
    assert count.witnessed_at is not None
    assert count.entry_id is not None and count.variance_entry_id is not None
    assert sorted((line.account.kind, line.amount) for line in Line.objects.filter(
        entry_id=count.entry_id).select_related("account")) == [("cage", -19_000),
                                                                 ("drop_box", 19_000)]
    assert Line.objects.get(entry_id=count.variance_entry_id,
                            account__kind="drop_variance").amount == -1_000
    box.refresh_from_db()
    assert box.posted == 0

    # and Carl's list says the variance is for someone else to explain
    counter.goto("/drop-count/")
    expect(counter.page.get_by_test_id(f"count-{count.pk}")).to_contain_text(
        "by someone other than you")

    # when Wendy opens the explain panel on the row and explains it
    row = witness.page.get_by_test_id(f"count-{count.pk}")
    expect(row.get_by_test_id("count-status")).to_contain_text("To explain")
    row.get_by_role("link", name="Explain it").click()
    panel = row.get_by_test_id("explain-form")
    expect(panel).to_contain_text("differ from the buy-ins by -10.00 EUR")
    expect(witness.page.locator("main main, main html, .explain-panel h1")).to_have_count(0)
    witness.shot("explain-panel")
    panel.get_by_role("textbox").fill("A 10.00 note torn in two; the halves went to the cage")
    panel.get_by_role("button", name="Explain the variance").click()

    # then the row says who explained it, and the list no longer says "to explain"
    row = witness.page.get_by_test_id(f"count-{count.pk}")
    expect(row.get_by_test_id("count-status")).to_have_text("Explained by wendy")
    expect(witness.page.get_by_role("table")).not_to_contain_text("To explain")
    witness.shot("explained")
    count.refresh_from_db()
    assert count.explained_by is not None
    assert (count.status, count.explained_by.username) == ("explained", "wendy")
    assert Entry.objects.filter(kind="drop_variance").count() == 1  # nothing moved again
