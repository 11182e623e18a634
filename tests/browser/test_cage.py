"""The cage in a browser: find a player, take a deposit, pay a withdrawal with its receipt,
read and download the statement; a withdrawal beyond the balance refused in words; the
cage refused to a dealer. Setup goes through the services; only the steps under test are
clicked, and the ledger is checked afterwards."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import expect

from casino import roles
from casino.models import Player
from casino.selectors import player_account_ref, player_balance
from casino.services import player_deposit
from casino.shared.gaming_day import gaming_day_of
from casino.shared.money import format_minor
from ledger.models import Account, Entry, Hold
from ledger.selectors import account_find, account_statement
from rounds import services
from tests.browser.tables import seat_row
from tests.players import make_player

pytestmark = pytest.mark.django_db(transaction=True)


def anna_account(player: Player) -> Account:
    account = account_find(kind="player", currency=player.currency,
                           ref=player_account_ref(player.pk))
    assert account is not None
    return account


def round_of(player: Player) -> str:
    return Entry.objects.get(kind="round_settlement", lines__account=anna_account(player)).ref


def figure(screen: Any, name: str) -> str:
    return screen.page.locator(f"[data-figure={name}]").first.inner_text().strip()


@pytest.fixture
def anna(staff_user: Any) -> Player:
    """Anna, with 100.00 EUR from an earlier deposit and one round lost (20.00) at a table;
    another player is also called Anna."""
    boss = staff_user(roles.PIT_BOSS, "pia")
    anna = make_player(name="Anna Jansen", currency="EUR", by=boss)
    make_player(name="anna jansen", currency="EUR", by=boss)
    player_deposit(player_id=anna.pk, amount=10_000, reference="Opening float", by=boss)
    table = services.table_create(by=boss, name="Table 1",
                              deal_modes=["electronic", "physical", "results"])
    services.seat_take(table_id=table.pk, number=1, player_id=anna.pk, by=boss)
    round_ = services.round_open(table_id=table.pk, by=boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=2_000, by=boss)
    services.banker_set(round_id=round_.pk, house=True, by=boss)
    services.round_settle(round_id=round_.pk, outcomes={"1": "loss"}, by=boss)
    return anna


def test_a_deposit_a_withdrawal_with_its_receipt_and_the_statement(
    screen_factory: Any, staff_user: Any, anna: Player
) -> None:
    staff_user(roles.CAGE, "carla")
    screen = screen_factory()
    screen.sign_in("carla")
    page = screen.page

    # signed in, the cage is at home on its own screen (issue 22), not on the floor's
    assert page.url.endswith("/cage/")
    expect(page.get_by_role("heading", name="Cage")).to_be_visible()
    assert not page.get_by_text("The floor is for pit staff").count()
    screen.shot("signed-in")

    # find: both Annas, flagged as sharing a name
    screen.goto("/cage/")
    # typing is enough: the results follow the search box (htmx swaps them in)
    page.get_by_label("Find a player by name or id").fill("anna")
    page.wait_for_selector("#results table")
    expect(page.locator("#results")).to_have_count(1)
    assert page.url.endswith("/cage/?q=anna")
    expect(page.get_by_text("Several players share a name")).to_be_visible()
    expect(page.locator("#results tbody tr")).to_have_count(2)
    expect(page.locator("#results tbody tr", has_text=f"#{anna.pk}").get_by_text(
        "same name as another player")).to_be_visible()
    screen.shot("find-namesakes")
    page.locator("#results tbody tr", has_text=f"#{anna.pk}").get_by_role("link").click()
    assert figure(screen, "available") == "80.00 EUR"
    screen.shot("player")

    # deposit 250.00 with a reference: the receipt
    deposit = page.get_by_role("region", name="Deposit")
    deposit.get_by_label("Amount (EUR)").fill("250.00")
    deposit.get_by_label("Reference").fill("Slip 4711")
    deposit.get_by_role("button", name="Take deposit").click()
    expect(page.get_by_role("heading", name="Deposit receipt")).to_be_visible()
    assert figure(screen, "amount") == "250.00 EUR"
    assert figure(screen, "balance-after") == "330.00 EUR"
    deposit_entry = int(figure(screen, "entry"))
    expect(page.get_by_text("Slip 4711")).to_be_visible()
    expect(page.get_by_role("cell", name="carla")).to_be_visible()
    screen.shot("deposit-receipt")

    # withdraw 120.00: the receipt, printable (the print stylesheet hides the header)
    page.get_by_role("link", name="Anna Jansen").click()
    withdrawal = page.get_by_role("region", name="Withdrawal")
    withdrawal.get_by_label("Amount (EUR)").fill("120")
    withdrawal.get_by_role("button", name="Pay out").click()
    expect(page.get_by_role("heading", name="Withdrawal receipt")).to_be_visible()
    assert figure(screen, "amount") == "120.00 EUR"
    assert figure(screen, "balance-after") == "210.00 EUR"
    withdrawal_entry = int(figure(screen, "entry"))
    expect(page.get_by_role("button", name="Print receipt")).to_be_visible()
    # the casino's name, and a line for the cashier and one for the player to sign
    assert figure(screen, "casino") == "Pai Gow Poker casino · cage"
    signatures = page.get_by_label("Signatures")
    expect(signatures.get_by_text("Cashier (carla):")).to_be_visible()
    expect(signatures.get_by_text(f"Player (Anna Jansen #{anna.pk}):")).to_be_visible()
    screen.shot("withdrawal-receipt")
    page.emulate_media(media="print")
    expect(page.locator(".topbar")).to_be_hidden()
    expect(page.get_by_role("button", name="Print receipt")).to_be_hidden()
    screen.shot("withdrawal-receipt-print")
    page.emulate_media(media="screen")

    # the ledger: two cage entries by carla, Anna at 210.00
    for entry_id, kind, amount in ((deposit_entry, "deposit", 25_000),
                                   (withdrawal_entry, "withdrawal", -12_000)):
        entry = Entry.objects.get(pk=entry_id)
        assert entry.kind == kind and entry.created_by is not None
        assert entry.created_by.username == "carla"
        assert entry.lines.get(account=anna_account(anna)).amount == amount
    assert player_balance(anna).posted == 21_000

    # the statement: every movement, running balance, opening and closing
    page.get_by_role("link", name="Anna Jansen").click()
    page.get_by_role("link", name="Statement").click()
    ledger = account_statement(account_id=anna_account(anna).pk)
    rows = page.locator("tr[data-row=line]")
    # the opening float, the round lost (its settlement), the deposit, the withdrawal
    assert rows.count() == len(ledger.lines) == 4
    for i, line in enumerate(ledger.lines):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert cells[1] == str(line.entry_id)
        assert cells[4] == f"{format_minor(line.amount, 'EUR')} EUR"
        assert cells[5] == f"{format_minor(line.balance, 'EUR')} EUR"
    assert figure(screen, "opening") == "0.00 EUR"
    assert figure(screen, "closing") == "210.00 EUR" == f"{format_minor(ledger.closing, 'EUR')} EUR"
    expect(page.locator("tr[data-row=line]", has_text=round_of(anna))).to_have_count(1)
    # what went out, with one sign: the round's 20.00 and the 120.00 paid out
    expect(page.get_by_text("4 movements: in 350.00 EUR, out 140.00 EUR.")).to_be_visible()
    screen.shot("statement")

    # the CSV: one header row, decimal strings, the running balance adds up
    with page.expect_download() as info:
        page.get_by_role("link", name="Download CSV").click()
    text = Path(info.value.path()).read_text(encoding="utf-8")
    table = list(csv.reader(io.StringIO(text)))
    # (the statement report's columns, reports.files.kinds.STATEMENT)
    assert table[0] == ["posted_at", "entry", "kind", "reference", "amount", "balance",
                        "currency", "player", "player_name"]
    # every row names the player; the opening balance first, the closing one last
    assert {(r[7], r[8]) for r in table[1:]} == {(str(anna.pk), "Anna Jansen")}
    assert table[1][2:7] == ["opening", "", "", "0.00", "EUR"]
    assert table[-1][2:7] == ["closing", "", "210.00", "210.00", "EUR"]
    body = table[2:-1]
    assert [int(r[1]) for r in body] == [line.entry_id for line in ledger.lines]
    running = 0
    for row in body:
        running += int(row[4].replace(".", ""))
        assert row[5] == format_minor(running, "EUR")
    assert body[-1][5] == "210.00"
    assert body[-2][2:5] == ["deposit", "Slip 4711", "250.00"]
    assert body[1][2:5] == ["round_settlement", round_of(anna), "-20.00"]

    # the date filter, in gaming days: from the next gaming day on, nothing moved yet and the
    # opening balance is today's closing one
    tomorrow = gaming_day_of() + timedelta(days=1)
    page.get_by_label("From gaming day").fill(tomorrow.isoformat())
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_text("No movement in this period.")).to_be_visible()
    assert figure(screen, "opening") == figure(screen, "closing") == "210.00 EUR"
    screen.shot("statement-next-gaming-day")
    page.get_by_label("From gaming day").fill(gaming_day_of().isoformat())
    page.get_by_label("To gaming day (inclusive)").fill(gaming_day_of().isoformat())
    page.get_by_role("button", name="Show").click()
    expect(page.locator("tr[data-row=line]")).to_have_count(4)
    assert figure(screen, "opening") == "0.00 EUR" and figure(screen, "closing") == "210.00 EUR"

    # at 768 px the statement is whole: its balance column on screen, nothing runs off
    page.set_viewport_size({"width": 768, "height": 1024})
    box = page.locator("[data-figure=closing]").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 768
    assert page.evaluate("document.documentElement.scrollWidth") <= 768
    screen.shot("statement-768")


def test_a_withdrawal_beyond_the_balance_is_refused_in_words_and_changes_nothing(
    screen_factory: Any, staff_user: Any, anna: Player
) -> None:
    staff_user(roles.CAGE, "carla")
    entries = Entry.objects.count()
    screen = screen_factory()
    screen.sign_in("carla")
    page = screen.page
    screen.goto(f"/cage/players/{anna.pk}/")
    withdrawal = page.get_by_role("region", name="Withdrawal")

    withdrawal.get_by_label("Amount (EUR)").fill("200.00")
    withdrawal.get_by_role("button", name="Pay out").click()

    refusal = page.get_by_role("alert")
    assert refusal.inner_text() == "Anna Jansen has 80.00 EUR available; this needs 200.00 EUR."
    assert figure(screen, "available") == "80.00 EUR"
    screen.shot("refused-beyond-balance")

    withdrawal = page.get_by_role("region", name="Withdrawal")
    withdrawal.get_by_label("Amount (EUR)").fill("12,50")
    withdrawal.get_by_role("button", name="Pay out").click()
    # an English casino writes the decimals after a point (docs/rules.md, "Amounts on the
    # screens"): 12,50 is refused in words, not read as 1250
    assert ("“12,50” is not an amount as this casino writes them: the decimals come after a "
            "point, as in 7.50" in page.get_by_role("alert").inner_text())
    screen.shot("refused-comma")

    assert Entry.objects.count() == entries
    assert player_balance(anna).posted == 8_000


def test_a_dealer_is_refused_the_cage(screen_factory: Any, staff_user: Any,
                                      anna: Player) -> None:
    staff_user(roles.DEALER, "dana")
    screen = screen_factory()
    screen.sign_in("dana")

    for path in ("/cage/", f"/cage/players/{anna.pk}/", f"/cage/players/{anna.pk}/statement/"):
        response = screen.goto(path)
        assert response.status == 403 and "text/html" in response.headers["content-type"]
        expect(screen.page.get_by_role("heading", name="Not allowed")).to_be_visible()
        assert "Your role does not allow this" in screen.page.get_by_role("alert").inner_text()
    assert not screen.page.get_by_role("navigation").get_by_role("link", name="Cage").count()
    screen.shot("dealer-refused")


def test_a_new_player_is_registered_and_takes_a_first_deposit(
    screen_factory: Any, staff_user: Any
) -> None:
    staff_user(roles.CAGE, "carla")
    screen = screen_factory()
    screen.sign_in("carla")
    page = screen.page

    screen.goto("/cage/?q=Daan")
    expect(page.get_by_text("No player matches “Daan”.")).to_be_visible()
    page.get_by_role("link", name="Register a new player").click()
    page.get_by_label("Name").fill("Daan de Vries")
    # the identity the cage reads from the document (issue 22)
    page.get_by_label("Date of birth").fill("1990-04-12")
    page.get_by_label("Identity document").select_option("Passport")
    page.get_by_label("Document number").fill("nx-123 456")
    screen.shot("register")
    page.get_by_role("button", name="Register").click()

    daan = Player.objects.get(name="Daan de Vries")
    assert (daan.date_of_birth, daan.id_document_kind,
            daan.id_document_number) == (date(1990, 4, 12), "passport", "NX123456")
    assert page.get_by_role("status").inner_text() == (
        f"Daan de Vries is registered as player #{daan.pk}.")
    assert figure(screen, "available") == "0.00 EUR"
    screen.shot("registered")

    deposit = page.get_by_role("region", name="Deposit")
    deposit.get_by_label("Amount (EUR)").fill("50")
    deposit.get_by_role("button", name="Take deposit").click()
    assert figure(screen, "balance-after") == "50.00 EUR"
    assert Entry.objects.filter(kind="deposit", ref=player_account_ref(daan.pk)).count() == 1
    assert player_balance(daan).posted == 5_000


def test_a_deposit_above_the_cap_waits_for_a_pit_boss_who_approves_it_on_screen(
    screen_factory: Any, staff_user: Any, anna: Player, settings: Any
) -> None:
    # given a cage line of 500.00 a player's gaming day
    settings.CASINO_CAGE_APPROVAL_ABOVE = "500.00"
    staff_user(roles.CAGE, "carla")
    staff_user(roles.PIT_BOSS, "petra")
    entries = Entry.objects.count()
    cage = screen_factory(who="carla")
    cage.sign_in("carla")
    cage.goto(f"/cage/players/{anna.pk}/")

    # when the cashier takes a deposit of 2,000.00
    deposit = cage.page.get_by_role("region", name="Deposit")
    deposit.get_by_label("Amount (EUR)").fill("2000.00")
    deposit.get_by_role("button", name="Deposit").click()

    # then it waits for a pit boss, saying the day's total against the line, and no money
    # has moved
    cage.page.get_by_text("waits for a pit boss's approval").wait_for()
    assert ("brings today's deposits to 2,100.00 EUR, above the cage's line of 500.00 EUR"
            in cage.page.locator("main").inner_text())
    cage.shot("waiting")
    assert Entry.objects.count() == entries and player_balance(anna).posted == 8_000

    # when the pit boss approves it on the approvals screen
    boss = screen_factory(who="petra")
    boss.sign_in("petra")
    boss.goto("/approvals/")
    row = boss.page.locator("tr[data-approval]").first
    assert "Deposit of 2,000.00 EUR for Anna Jansen" in row.inner_text()
    row.get_by_role("button", name="Approve").click()
    boss.page.get_by_text("is approved").wait_for()
    boss.shot("approved")

    # then the deposit is posted, in the cashier's name
    assert player_balance(anna).posted == 208_000
    deposit_entry = Entry.objects.filter(kind="deposit").order_by("-id").first()
    assert deposit_entry is not None and deposit_entry.created_by is not None
    assert deposit_entry.created_by.username == "carla"


def test_a_namesake_is_registered_with_the_warning_then_told_apart_at_the_table(
    screen_factory: Any, staff_user: Any, anna: Player
) -> None:
    # given Anna Jansen (with her passport on file) seated at Table 1, and "anna jansen"
    Player.objects.filter(pk=anna.pk).update(date_of_birth="1980-05-01",
                                             id_document_kind="passport",
                                             id_document_number="NX999111")
    staff_user(roles.CAGE, "carla")
    cage = screen_factory(who="carla")
    cage.sign_in("carla")
    page = cage.page

    # when the cage registers a third Anna Jansen: the others are shown, nobody registered
    cage.goto("/cage/players/new/")
    page.get_by_label("Name").fill("Anna Jansen")
    page.get_by_label("Date of birth").fill("1995-09-30")
    page.get_by_label("Identity document").select_option("Identity card")
    page.get_by_label("Document number").fill("IDC 4455 66")
    page.get_by_role("button", name="Register").click()
    warning = page.get_by_test_id("namesakes")
    expect(warning.get_by_text("2 players already called Anna Jansen.")).to_be_visible()
    expect(warning.locator("li")).to_have_count(2)
    assert warning.locator(f"li[data-player='{anna.pk}']").inner_text().strip() == (
        f"Anna Jansen #{anna.pk}: born 1980-05-01; Passport NX999111; registered "
        f"{timezone.localdate(anna.created_at).isoformat()}")
    assert Player.objects.filter(name__iexact="anna jansen").count() == 2
    cage.shot("namesakes-shown")

    # then, ticked as a different person, she is registered with her document
    page.get_by_label("This is a different person from the players listed above").check()
    page.get_by_role("button", name="Register").click()
    third = Player.objects.filter(name="Anna Jansen").order_by("-pk").first()
    assert third is not None and third.pk != anna.pk
    assert third.id_document_number == "IDC445566"
    assert page.get_by_role("status").inner_text() == (
        f"Anna Jansen is registered as player #{third.pk}.")
    cage.shot("namesake-registered")

    # at the table, the two Anna Jansens are told apart in the buttons and the messages
    # (Anna leaves Table 1 first: a player sits at one table at a time)
    pia = User.objects.get(username="pia")
    services.seat_leave(table_id=anna.seats.get().table_id, number=1, by=pia)
    table = services.table_create(by=pia, name="Table 2")
    services.seat_take(table_id=table.pk, number=1, player_id=anna.pk, by=pia)
    services.seat_take(table_id=table.pk, number=2, player_id=third.pk, by=pia)
    round_ = services.round_open(table_id=table.pk, by=pia)
    pit = screen_factory(who="pia")
    pit.sign_in("pia")
    pit.goto(f"/tables/{table.pk}/")
    shown = pit.page
    expect(shown.get_by_role("button", name=f"Unseat Anna Jansen #{anna.pk} (seat 1)"
                             )).to_be_visible()
    expect(shown.get_by_role("button", name=f"Unseat Anna Jansen #{third.pk} (seat 2)"
                             )).to_be_visible()
    pit.shot("namesakes-at-the-table")
    shown.get_by_role("button", name="Add a 25 EUR chip to seat 2").click()
    seat_row(shown, 2).get_by_role("button", name="Bet", exact=True).click()
    refusal = shown.get_by_text(f"Anna Jansen #{third.pk} (seat 2) has 0.00 EUR available; "
                                "this needs 25.00 EUR.")
    refusal.wait_for()
    pit.shot("namesake-refused")
    assert not Hold.objects.filter(ref=f"round:{round_.pk}").exists()
