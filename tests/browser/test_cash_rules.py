"""The cash rules at the cage in a browser: a deposit past the identity line refused in
words for a player without an identity, nothing moved; the identity recorded on the
player's page, and the same deposit taken."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from casino import roles
from casino.models import Player
from casino.selectors import player_balance
from casino.services import player_deposit
from ledger.models import Entry
from tests.players import make_player

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_deposit_past_the_identity_line_is_refused_in_words_until_the_identity_is_on_file(
        screen_factory: Any, staff_user: Any) -> None:
    # given Anna, registered without an identity, 1,500.00 in today
    carla = staff_user(roles.CAGE, "carla")
    anna = make_player(name="Anna", currency="EUR", by=carla, identity=False)
    player_deposit(player_id=anna.pk, amount=150_000, by=carla)
    entries = Entry.objects.count()
    screen = screen_factory()
    screen.sign_in("carla")
    page = screen.page
    screen.goto(f"/cage/players/{anna.pk}/")
    assert "No identity on file" in page.get_by_test_id("identity").inner_text()
    assert page.locator("[data-figure=cash-in]").inner_text().strip() == "1,500.00 EUR"
    screen.shot("no-identity")

    # when the cashier takes 600.00 more
    deposit = page.locator("section[aria-labelledby=deposit-title]")
    deposit.get_by_label("Amount (EUR)").fill("600.00")
    deposit.get_by_role("button", name="Take deposit").click()
    page.wait_for_load_state("networkidle")

    # then refused in words on the same page, and nothing moved
    refusal = (f"Anna #{anna.pk} needs an identity on file: cash in today would come to "
               "2,100.00 EUR, which reaches 2,000.00 or more.")
    expect(page.get_by_text(refusal)).to_be_visible()
    screen.shot("refused")
    assert Entry.objects.count() == entries
    assert player_balance(anna).posted == 150_000

    # when the identity is recorded from the document
    form = page.locator("section[aria-labelledby=identity-title]")
    form.get_by_label("Date of birth").fill("1980-05-01")
    form.get_by_label("Identity document").select_option("passport")
    form.get_by_label("Document number").fill("NX1234567")
    form.get_by_label("Document issued by").fill("NL")
    form.get_by_role("button", name="Record identity").click()
    page.wait_for_load_state("networkidle")
    assert "Identity on file: Passport NX1234567 (NL)" in \
        page.get_by_test_id("identity").inner_text()
    screen.shot("identity-on-file")

    # then the same deposit is taken
    deposit = page.locator("section[aria-labelledby=deposit-title]")
    deposit.get_by_label("Amount (EUR)").fill("600.00")
    deposit.get_by_role("button", name="Take deposit").click()
    page.wait_for_load_state("networkidle")
    assert player_balance(anna).posted == 210_000
    assert Player.objects.get(pk=anna.pk).identity_on_file
    screen.goto(f"/cage/players/{anna.pk}/")
    screen.shot("taken")
