"""The cage's screens through Django's test client: who may open them, refusals in words,
and the statement's period; the browser tests (tests/browser/test_cage.py) click through the
rest."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.test import Client

from casino import roles
from casino.models import Player
from casino.selectors import player_balance
from casino.services import player_deposit, staff_create
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Entry
from ledger.services import account_get_or_create, entry_post
from tests.players import make_player

pytestmark = pytest.mark.django_db


# What the cage reads from a player's identity document (issue 22: registration records it).
IDENTITY = {"date_of_birth": "1990-04-12", "id_document_kind": "passport",
            "id_document_number": "NX123456"}


def signed_in(role: str) -> Client:
    user, _ = staff_create(username=f"screen-{role}", role=role)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def anna() -> Player:
    anna = make_player(name="Anna", currency="EUR", by=None)
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
    assert f'filename="statement-player-{anna.pk}.csv"' in download["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    # the statement report's columns (reports.files.kinds.STATEMENT)
    assert rows[0] == ["posted_at", "entry", "kind", "reference", "amount", "balance",
                       "currency", "player", "player_name"]
    # every row names the player; the opening and closing balances frame the movements
    assert {tuple(r[-2:]) for r in rows[1:]} == {(str(anna.pk), "Anna")}
    assert [r[2:7] for r in rows[1:]] == [
        ["opening", "", "", "0.00", "EUR"],
        ["deposit", "Deposit at the cage", "120.00", "120.00", "EUR"],
        ["closing", "", "120.00", "120.00", "EUR"],
    ]


def test_a_statement_csv_cell_never_starts_a_spreadsheet_formula(anna):
    # given movements whose references a spreadsheet would run as formulas
    for n, reference in enumerate(['=HYPERLINK("http://x.example","pay")', "+1+1", "@SUM(A1)",
                                   "\tcmd", "-2+3"]):
        player_deposit(player_id=anna.pk, amount=100 + n, reference=reference, by=None)

    # when the auditor downloads the statement
    download = signed_in(roles.AUDITOR).get(f"/cage/players/{anna.pk}/statement.csv")

    # then each such cell is text (a leading '), and the amounts stay numbers
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    references = [r[3] for r in rows[3:-1]]
    assert references == ['\'=HYPERLINK("http://x.example","pay")', "'+1+1", "'@SUM(A1)",
                          "'\tcmd", "'-2+3"]
    assert [r[4] for r in rows[3:-1]] == ["1.00", "1.01", "1.02", "1.03", "1.04"]


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

    response = client.post("/cage/players/new/", {"name": "Bram", "currency": "EUR",
                                                  **IDENTITY}, follow=True)

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


def test_the_cage_signs_in_to_its_own_screen_and_the_floor_sends_it_there():
    # issue 22: the cage landed on "The floor is for pit staff"
    staff_create(username="carla", role=roles.CAGE, password="cage-screens-2026")
    client = Client()

    signed_in_page = client.post("/login/", {"username": "carla",
                                             "password": "cage-screens-2026"}, follow=True)

    assert signed_in_page.redirect_chain[-1][0] == "/cage/"
    html = signed_in_page.content.decode()
    assert "Find a player by name or id" in html and "The floor is for pit staff" not in html
    assert client.get("/")["Location"] == "/cage/"


def test_a_receipt_names_the_casino_and_has_the_cashier_and_player_sign(anna, settings):
    settings.CASINO_NAME = "Casino Zandvoort"
    client = signed_in(roles.CAGE)

    paid = client.post(f"/cage/players/{anna.pk}/withdraw/", {"withdraw-amount": "20.00"})
    html = client.get(paid["Location"]).content.decode()

    assert "Casino Zandvoort" in html
    signatures = html.split('class="signatures"')[1].split("</div>")[0]
    assert f"Cashier (screen-{roles.CAGE}):" in signatures
    assert f"Player (Anna #{anna.pk}):" in signatures
    assert signatures.count("signature-line") == 2


def test_the_statement_says_what_went_out_with_one_sign(anna):
    client = signed_in(roles.CAGE)
    client.post(f"/cage/players/{anna.pk}/withdraw/", {"withdraw-amount": "20.00"})

    html = client.get(f"/cage/players/{anna.pk}/statement/").content.decode()

    assert "in 120.00 EUR, out 20.00 EUR." in html and "out -" not in html


def test_a_statement_csv_for_a_period_opens_and_closes_with_the_balances_around_it(anna):
    # given 120.00 deposited earlier and 20.00 paid out today
    client = signed_in(roles.CAGE)
    client.post(f"/cage/players/{anna.pk}/withdraw/", {"withdraw-amount": "20.00"})
    today = gaming_day_of()

    # when the statement of the days from tomorrow on is downloaded (nothing moved yet)
    later = client.get(f"/cage/players/{anna.pk}/statement.csv",
                       {"date_from": (today + timedelta(days=1)).isoformat()})
    # and the one of today alone
    day = client.get(f"/cage/players/{anna.pk}/statement.csv",
                     {"date_from": today.isoformat(), "date_to": today.isoformat()})

    # then the balance before the period opens it and the balance after closes it
    rows = list(csv.reader(io.StringIO(later.content.decode())))
    assert [(r[2], r[4], r[5]) for r in rows[1:]] == [("opening", "", "100.00"),
                                                      ("closing", "0.00", "100.00")]
    rows = list(csv.reader(io.StringIO(day.content.decode())))
    assert [(r[2], r[4], r[5]) for r in rows[1:]] == [
        ("opening", "", "0.00"), ("deposit", "120.00", "120.00"),
        ("withdrawal", "-20.00", "100.00"), ("closing", "100.00", "100.00")]
    # at the period's start and end, in the casino's zone (the gaming day starts at 06:00)
    assert rows[1][0].startswith(f"{today.isoformat()}T06:00:00")
    assert rows[-1][0].startswith(f"{(today + timedelta(days=1)).isoformat()}T06:00:00")
    # amounts are plain numbers a spreadsheet sums; the closing row's is the period's net
    assert sum(float(r[4]) for r in rows[2:-1]) == float(rows[-1][5]) - float(rows[1][5]) \
        == float(rows[-1][4])


def test_a_player_registered_before_the_ledger_gets_an_empty_statement_csv():
    # given a player whose account was never opened (no money ever moved)
    player = Player.objects.create(name="Old Olga", currency="EUR")

    download = signed_in(roles.CAGE).get(f"/cage/players/{player.pk}/statement.csv")

    assert download.status_code == 200
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    assert [(r[2], r[5]) for r in rows[1:]] == [("opening", "0.00"), ("closing", "0.00")]


def test_a_player_named_like_a_formula_is_text_in_the_statement_csv():
    player = make_player(name="=HYPERLINK(\"http://x.example\")", currency="EUR", by=None)

    download = signed_in(roles.AUDITOR).get(f"/cage/players/{player.pk}/statement.csv")

    rows = list(csv.reader(io.StringIO(download.content.decode())))
    assert {r[-1] for r in rows[1:]} == {"'=HYPERLINK(\"http://x.example\")"}


def test_registering_without_the_identity_is_refused_in_words_and_registers_nobody():
    client = signed_in(roles.CAGE)

    response = client.post("/cage/players/new/", {"name": "Bram", "currency": "EUR"})

    assert response.status_code == 400
    html = response.content.decode()
    assert html.count("This field is required.") == 3
    assert not Player.objects.filter(name="Bram").exists()


@pytest.mark.parametrize("typed, words", [
    ({"date_of_birth": "2100-01-01"}, "The date of birth must be a day in the past."),
    ({"date_of_birth": "today"}, "Enter a valid date."),
    ({"id_document_number": "N1"}, "A document number is 5 to 20 letters and digits"),
    ({"id_document_number": "NX<script>"}, "A document number is 5 to 20 letters and digits"),
])
def test_an_identity_the_service_refuses_is_refused_in_words(typed, words):
    client = signed_in(roles.CAGE)

    response = client.post("/cage/players/new/", {"name": "Bram", "currency": "EUR",
                                                  **IDENTITY, **typed})

    assert response.status_code == 400
    assert words in response.content.decode()
    assert not Player.objects.filter(name="Bram").exists()


def test_a_minor_is_not_registered(settings):
    from django.utils import timezone

    settings.CASINO_MIN_PLAYER_AGE = 21
    today = timezone.localdate()
    client = signed_in(roles.CAGE)
    twenty = today.replace(year=today.year - 20) if not (today.month == 2 and today.day == 29) \
        else today.replace(year=today.year - 20, day=28)

    response = client.post("/cage/players/new/", {"name": "Bram", "currency": "EUR",
                                                  **IDENTITY,
                                                  "date_of_birth": twenty.isoformat()})

    assert response.status_code == 400
    assert "A player must be at least 21 years old" in response.content.decode()
    assert not Player.objects.filter(name="Bram").exists()


def test_a_namesake_is_shown_to_the_cage_and_registered_once_confirmed(anna):
    # given Anna, registered with her passport
    Player.objects.filter(pk=anna.pk).update(date_of_birth="1980-05-01",
                                             id_document_kind="passport",
                                             id_document_number="NX999111")
    client = signed_in(roles.CAGE)
    second = {"name": " anna ", "currency": "EUR", **IDENTITY}

    # when a second Anna is registered: the cage is shown the first, nobody is registered
    shown = client.post("/cage/players/new/", second)

    assert shown.status_code == 409
    html = shown.content.decode()
    assert "1 player already called anna." in html
    assert f"#{anna.pk}" in html and "1980-05-01" in html and "Passport NX999111" in html
    assert "This is a different person from the players listed above" in html
    assert Player.objects.filter(name__iexact="anna").count() == 1

    # then, confirmed as a different person, she is registered
    done = client.post("/cage/players/new/", {**second, "namesakes_seen": "on"})

    assert done.status_code == 302
    assert Player.objects.filter(name__iexact="anna").count() == 2
