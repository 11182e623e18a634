"""The cage's screens through Django's test client: who may open them, refusals in words,
and the statement's period; the browser tests (tests/browser/test_cage.py) click through the
rest."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client

from casino import roles
from casino.models import Player
from casino.selectors import player_balance
from casino.services import player_create, player_deposit, staff_create
from ledger.models import Entry
from ledger.services import account_get_or_create, entry_post

pytestmark = pytest.mark.django_db


def signed_in(role: str) -> Client:
    user, _ = staff_create(username=f"screen-{role}", role=role)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def anna() -> Player:
    anna = player_create(name="Anna", currency="EUR", by=None)
    player_deposit(player_id=anna.pk, amount=12_000, by=None)
    return anna


def test_signed_out_people_are_sent_to_the_login_page(anna):
    response = Client().get(f"/cage/players/{anna.pk}/")

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next=/cage/players/{anna.pk}/"


@pytest.mark.parametrize("role", [roles.DEALER, roles.PIT_BOSS, roles.AUDITOR])
def test_only_the_cage_takes_deposits(role, anna):
    client = signed_in(role)

    response = client.post(f"/cage/players/{anna.pk}/deposit/", {"deposit-amount": "10.00"})

    assert response.status_code == 403
    assert "Your role does not allow this" in response.content.decode()
    assert player_balance(anna).posted == 12_000


@pytest.mark.parametrize("typed", ["-5", "0", "0.001", "1e3", "ten", "12,50", " "])
def test_an_amount_the_api_would_refuse_is_refused_in_words(typed, anna):
    client = signed_in(roles.CAGE)
    entries = Entry.objects.count()

    response = client.post(f"/cage/players/{anna.pk}/deposit/", {"deposit-amount": typed})

    assert response.status_code == 400
    html = response.content.decode()
    assert 'class="msg msg-error" role="alert"' in html
    assert "invalid_amount" not in html and "{" not in html.split("<main")[1].split("</main>")[0]
    assert Entry.objects.count() == entries


def test_an_auditor_reads_a_statement_and_its_csv(anna):
    client = signed_in(roles.AUDITOR)

    page = client.get(f"/cage/players/{anna.pk}/statement/")
    download = client.get(f"/cage/players/{anna.pk}/statement.csv")

    assert page.status_code == 200 and "120.00 EUR" in page.content.decode()
    assert download["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    assert rows[0] == ["posted_at", "entry", "kind", "reference", "amount", "balance"]
    assert [r[2:] for r in rows[1:]] == [["deposit", "Deposit at the cage", "120.00", "120.00"]]


def test_a_statement_csv_cell_never_starts_a_spreadsheet_formula(anna):
    # given movements whose references a spreadsheet would run as formulas
    for n, reference in enumerate(['=HYPERLINK("http://x.example","pay")', "+1+1", "@SUM(A1)",
                                   "\tcmd", "-2+3"]):
        player_deposit(player_id=anna.pk, amount=100 + n, reference=reference, by=None)

    # when the auditor downloads the statement
    download = signed_in(roles.AUDITOR).get(f"/cage/players/{anna.pk}/statement.csv")

    # then each such cell is text (a leading '), and the amounts stay numbers
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    references = [r[3] for r in rows[2:]]
    assert references == ['\'=HYPERLINK("http://x.example","pay")', "'+1+1", "'@SUM(A1)",
                          "'\tcmd", "'-2+3"]
    assert [r[4] for r in rows[2:]] == ["1.00", "1.01", "1.02", "1.03", "1.04"]


@pytest.mark.parametrize("text, safe", [
    ("-120.00", "-120.00"), ("120.00", "120.00"), ("=1+1", "'=1+1"), ("\r=1", "'\r=1"),
    ("Anna", "Anna"), ("-", "'-"), ("", ""),
])
def test_safe_cell_marks_a_formula_and_leaves_numbers(text, safe):
    from casino.shared.spreadsheet import safe_cell

    assert safe_cell(text) == safe


def test_a_period_that_ends_before_it_starts_is_refused_in_words(anna):
    client = signed_in(roles.CAGE)

    response = client.get(f"/cage/players/{anna.pk}/statement/",
                          {"date_from": "2026-03-02", "date_to": "2026-03-01"})
    csv_response = client.get(f"/cage/players/{anna.pk}/statement.csv",
                              {"date_from": "2026-03-02", "date_to": "2026-03-01"})

    assert response.status_code == csv_response.status_code == 400
    assert "The first gaming day must not be after the last." in response.content.decode()


def test_a_receipt_is_only_for_a_cage_movement(anna):
    # given an entry that is not a deposit or a withdrawal: chips sent to a table
    cage = account_get_or_create(kind="cage", currency="EUR")
    table = account_get_or_create(kind="table_bankroll", currency="EUR", ref="table:1")
    fill = entry_post(kind="fill", memo="chips to table 1", lines=[(cage.pk, -500),
                                                                   (table.pk, 500)], by=None)
    client = signed_in(roles.CAGE)

    response = client.get(f"/cage/receipts/{fill.pk}/")

    assert response.status_code == 404
    assert "text/html" in response["Content-Type"]
    assert client.get(f"/cage/receipts/{fill.pk - 1}/").status_code == 200  # the deposit


def test_registering_a_player_through_the_screen_opens_their_account(anna):
    client = signed_in(roles.CAGE)

    response = client.post("/cage/players/new/", {"name": "Bram", "currency": "EUR"},
                           follow=True)

    bram = Player.objects.get(name="Bram")
    assert response.redirect_chain[-1][0] == f"/cage/players/{bram.pk}/"
    assert f"Bram is registered as player #{bram.pk}." in response.content.decode()
    assert player_balance(bram).posted == 0


def test_a_deposit_form_sent_twice_moves_the_money_once(anna):
    # given the deposit form as the cage's screen shows it, with its once-only token
    client = signed_in(roles.CAGE)
    page = client.get(f"/cage/players/{anna.pk}/").content.decode()
    token = page.split('name="once" value="', 1)[1].split('"', 1)[0]
    deposits = Entry.objects.filter(kind="deposit").count()
    form = {"deposit-amount": "25.00", "once": token}

    # when the cashier's double click sends it twice
    first = client.post(f"/cage/players/{anna.pk}/deposit/", form)
    second = client.post(f"/cage/players/{anna.pk}/deposit/", form)

    # then one deposit is posted, and both answers lead to its receipt
    assert Entry.objects.filter(kind="deposit").count() == deposits + 1
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert first["Location"].startswith("/cage/receipts/")
    assert player_balance(anna).posted == 12_000 + 2_500

    # and a new form (a new token) takes a new deposit
    page = client.get(f"/cage/players/{anna.pk}/").content.decode()
    fresh = page.split('name="once" value="', 1)[1].split('"', 1)[0]
    assert fresh != token
    client.post(f"/cage/players/{anna.pk}/deposit/", {"deposit-amount": "25.00", "once": fresh})
    assert player_balance(anna).posted == 12_000 + 5_000


def test_a_refused_withdrawal_keeps_no_token_so_the_corrected_form_goes_through(anna):
    client = signed_in(roles.CAGE)
    form = {"withdraw-amount": "500.00", "once": "abc123"}

    refused = client.post(f"/cage/players/{anna.pk}/withdraw/", form)
    assert refused.status_code == 409
    form["withdraw-amount"] = "20.00"
    paid = client.post(f"/cage/players/{anna.pk}/withdraw/", form)

    assert paid.status_code == 302 and paid["Location"].startswith("/cage/receipts/")
    assert player_balance(anna).posted == 12_000 - 2_000


@pytest.mark.parametrize("role", [roles.AUDITOR, roles.PIT_BOSS])
def test_auditors_and_pit_bosses_find_a_player_and_read_the_statement_but_take_no_money(
    role, anna
):
    client = signed_in(role)

    found = client.get("/cage/", {"q": "Anna"})
    page = client.get(f"/cage/players/{anna.pk}/")

    assert found.status_code == 200 and "Anna" in found.content.decode()
    assert page.status_code == 200
    html = page.content.decode()
    assert "Statement" in html and "Take deposit" not in html and "Pay out" not in html


def test_a_statement_to_the_last_day_of_the_calendar_is_refused_in_words(anna):
    client = signed_in(roles.CAGE)

    for path in (f"/cage/players/{anna.pk}/statement/", f"/cage/players/{anna.pk}/statement.csv"):
        response = client.get(path, {"date_to": "9999-12-31"})
        assert response.status_code == 400
        assert "between 1900 and 9998" in response.content.decode()


def test_a_form_sent_again_with_another_amount_is_refused_and_moves_nothing(anna):
    client = signed_in(roles.CAGE)
    client.post(f"/cage/players/{anna.pk}/deposit/", {"deposit-amount": "25.00", "once": "t1"})

    again = client.post(f"/cage/players/{anna.pk}/deposit/",
                        {"deposit-amount": "250.00", "once": "t1"})

    assert again.status_code == 409
    assert "already sent with other figures" in again.content.decode()
    assert player_balance(anna).posted == 12_000 + 2_500
