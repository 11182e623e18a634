"""A dealer signs in at the table screen, the next dealer takes over and signs out; the floor,
the round history and the dealer_shift report show who dealt."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from casino.shared.gaming_day import gaming_day_of
from rounds.models import DealerShift, Round
from tests.browser.tables import make_floor

__all__ = ["make_floor"]

WIDTHS = (1440, 768)


def _shots(screen: Any, name: str) -> None:
    """The screen at each width a pit boss reads it at."""
    for width in WIDTHS:
        screen.page.set_viewport_size({"width": width, "height": 900})
        screen.shot(f"{name}-{width}")


@pytest.mark.django_db(transaction=True)
def test_dealers_sign_in_take_over_and_are_relieved_at_the_table_screen(
        screen_factory: Any, staff_user: Any, make_floor: Any) -> None:
    floor = make_floor({1: ("Anna", 50_000), 2: ("Bram", 50_000)}, name="Salon 1")
    table = floor.table
    staff_user(roles.DEALER, "dana")
    staff_user(roles.DEALER, "eve")
    dana = screen_factory(width=1440, who="dana")
    dana.sign_in("dana")
    page = dana.page

    # Dana signs in at the table and opens a round: it records her as its dealer
    dana.goto(f"/tables/{table.pk}/")
    expect(page.get_by_test_id("dealer")).to_have_text("nobody signed in")
    page.get_by_role("button", name="Sign in as the dealer").click()
    expect(page.get_by_test_id("dealer")).to_have_text("dana")
    expect(page.locator("#messages")).to_contain_text("dana deals at Salon 1 from now")
    page.get_by_role("button", name="Open the first round").click()
    expect(page.get_by_test_id("step")).to_contain_text("Betting")
    _shots(dana, "table-with-dealer")
    assert Round.objects.values_list("dealer__username", flat=True).get(table=table) == "dana"

    # Eve takes over from her own screen: Dana is relieved at that moment
    eve = screen_factory(width=768, who="eve")
    eve.sign_in("eve")
    eve.goto(f"/tables/{table.pk}/")
    eve.page.get_by_role("button", name="Take over from dana").click()
    expect(eve.page.get_by_test_id("dealer")).to_have_text("eve")
    eve.shot("took-over")
    assert DealerShift.objects.values_list("ended_by__username", flat=True).get(
        dealer__username="dana") == "eve"

    # Dana, on her stale screen, may not relieve Eve: told why in words
    page.reload()
    expect(page.get_by_test_id("dealer")).to_have_text("eve")
    expect(page.get_by_role("button", name="Relieve eve")).to_have_count(0)

    # Eve signs out; the table waits for the next dealer
    eve.page.get_by_role("button", name="Sign out: I am relieved").click()
    expect(eve.page.get_by_test_id("dealer")).to_have_text("nobody signed in")
    expect(eve.page.locator("#messages")).to_contain_text("eve is relieved at Salon 1")
    eve.shot("relieved")
    assert not DealerShift.objects.filter(ended_at__isnull=True).exists()
    assert list(DealerShift.objects.order_by("id").values_list(
        "dealer__username", "ended_by__username")) == [("dana", "eve"), ("eve", "eve")]


@pytest.mark.django_db(transaction=True)
def test_the_pit_boss_signs_in_a_dealer_and_reads_who_dealt_on_the_floor_history_and_report(
        screen_factory: Any, staff_user: Any, make_floor: Any, tmp_path: Any) -> None:
    floor = make_floor({1: ("Anna", 50_000), 2: ("Bram", 50_000)}, name="Salon 1")
    make_floor({3: ("Chris", 50_000)}, name="Salon 2")
    staff_user(roles.DEALER, "dana")
    staff_user(roles.DEALER, "eve")
    staff_user(roles.PIT_BOSS, "bo")
    boss = screen_factory(width=1440)
    boss.sign_in("bo")
    page = boss.page

    # the pit boss picks Dana from the list
    boss.goto(f"/tables/{floor.table.pk}/")
    page.get_by_label("Sign in a dealer").select_option("dana")
    page.get_by_test_id("dealer-sign-in-named").click()
    expect(page.get_by_test_id("dealer")).to_have_text("dana")
    expect(page.get_by_role("button", name="Relieve dana")).to_be_visible()
    # two rounds under Dana: one played, one voided
    floor.played_round({1: 2_000, 2: 3_000}, {"1": "win", "2": "loss"})
    from rounds import services
    voided = services.round_open(table_id=floor.table.pk, by=floor.pit_boss)
    services.round_void(round_id=voided.pk, reason="cards dropped", by=floor.pit_boss)
    assert set(Round.objects.values_list("dealer__username", flat=True)) == {"dana"}
    # then Eve takes the table over, signed in by the pit boss: Dana is relieved
    boss.goto(f"/tables/{floor.table.pk}/")
    page.get_by_label("Sign in a dealer").select_option("eve")
    page.get_by_test_id("dealer-sign-in-named").click()
    expect(page.get_by_test_id("dealer")).to_have_text("eve")
    expect(page.locator("#messages")).to_contain_text("eve deals at Salon 1 from now")
    _shots(boss, "table-pit-boss")

    # the floor shows each table's dealer
    boss.goto("/")
    cards = page.locator("section.table-card")
    expect(cards.filter(has_text="Salon 1").get_by_test_id("floor-dealer")).to_contain_text(
        "eve")
    expect(cards.filter(has_text="Salon 2").get_by_test_id("floor-dealer")).to_contain_text(
        "nobody signed in")
    _shots(boss, "floor")

    # the round history shows who dealt each round
    boss.goto(f"/tables/{floor.table.pk}/history/")
    expect(page.get_by_test_id("history").get_by_test_id("dealer")).to_have_text(
        ["dana", "dana"])
    _shots(boss, "history")

    # the dealer_shift report, read as a page and as a PDF
    page.get_by_role("link", name="Reports", exact=True).click()
    page.get_by_label("Kind").select_option(label="Dealers' shifts")
    page.wait_for_url(re.compile(r"kind=dealer_shift"))
    page.locator("input[name=kind][value=dealer_shift]").wait_for(state="attached")
    page.wait_for_load_state("networkidle")
    page.get_by_label("Gaming day", exact=True).fill(gaming_day_of().isoformat())
    page.get_by_label("Format").select_option("pdf")
    page.get_by_role("button", name="Ask for it").click()
    page.get_by_text("Dealers' shifts asked for").wait_for()
    download = page.get_by_role("link", name=re.compile(r"Download dealer_shift-"))
    download.wait_for()
    with page.expect_download() as info:
        download.click()
    pdf = tmp_path / "dealer_shift.pdf"
    info.value.save_as(pdf)
    assert pdf.read_bytes().startswith(b"%PDF")
    poppler = shutil.which("pdftoppm")
    if poppler is not None:  # its pages as pictures beside the screenshots, to look at
        subprocess.run([poppler, "-png", "-r", "80", str(pdf),
                        str(boss.folder / "dealer_shift-pdf")], check=True)
    page.get_by_role("link", name=re.compile(r"Read #\d+ as a page")).first.click()
    main = page.locator("main")
    expect(main).to_contain_text("Dealers' shifts")
    expect(main).to_contain_text("Hands per hour")
    expect(main).to_contain_text("cards dropped")
    expect(main).to_contain_text("Round 2 voided by pat")
    shifts = main.locator("table").first.inner_text()
    assert shifts.index("\ndana\t") < shifts.index("\neve\t")   # in the order signed in
    _shots(boss, "dealer-shift-report")
