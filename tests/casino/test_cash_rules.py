"""The cash rules (docs/rules.md, "Cash at the cage and the tables"), through the API: the
identity line, the multiple transaction log, the cash transaction report and splitting,
counted per player per gaming day, cash in and cash out apart, corrections included. The
lines are the settings' defaults: 2,000.00 (identity), 3,000.00 (log), 10,000.00 (report)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from casino import cash
from casino.models import CashReport, Player
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Account, Entry, Line
from ledger.services import account_get_or_create, entry_post

pytestmark = pytest.mark.django_db

IDENTITY: dict[str, Any] = {"birth_date": "1980-05-01",
            "id_document": {"kind": "passport", "number": "NX12-3456 7", "country": "nl"},
            "nationality": "BE"}


@pytest.fixture(autouse=True)
def _cage_cap_out_of_the_way(settings):
    """The cage's own cap (a pit boss approves past 10,000.00 a day) is another rule; one
    test below goes through it."""
    settings.CASINO_CAGE_APPROVAL_ABOVE = "1000000.00"


def register(client, name="Anna", identified=True):
    """A player registered by the API; ``identified=False``: without an identity."""
    body = {"name": name, **(IDENTITY if identified else {})}
    response = client.post("/api/v1/players", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def move(client, player_id, kind, amount):
    return client.post(f"/api/v1/players/{player_id}/{kind}", {"amount": amount},
                       format="json")


def moved(client, player_id, kind, amount):
    response = move(client, player_id, kind, amount)
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def correct(client, player_id, entry_id):
    response = client.post(f"/api/v1/players/{player_id}/corrections",
                           {"entry": entry_id, "reason": "slip keyed twice"}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def shown(client, player_id):
    return client.get(f"/api/v1/players/{player_id}").json()


def ledger_state(player_id):
    account = Account.objects.get(kind="player", ref=f"player:{player_id}")
    return Entry.objects.count(), Line.objects.filter(account=account).count()


def reports(client, day=None):
    day = day or gaming_day_of()
    response = client.get(f"/api/v1/cash-reports?gaming_day={day.isoformat()}")
    assert response.status_code == 200, response.json()
    return response.json()


# --- the identity line ---------------------------------------------------------------------

def test_cash_in_reaching_2000_is_refused_without_an_identity_and_taken_once_one_is_on_file(
        cage_client):
    # given Anna, registered without an identity, 1,500.00 in today
    anna = register(cage_client, identified=False)
    moved(cage_client, anna, "deposits", "1500.00")
    before = ledger_state(anna)

    # when 600.00 more would bring her day's cash in to 2,100.00
    refused = move(cage_client, anna, "deposits", "600.00")

    # then refused in words, and the ledger unchanged
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "identity_required"
    assert error["message"].startswith(
        f"Anna #{anna} needs an identity on file: cash in today would come to 2,100.00 EUR, "
        "which reaches 2,000.00 or more.")
    assert error["detail"]["would_reach"] == "2100.00"
    assert ledger_state(anna) == before
    # 500.00 would bring it to 2,000.00 exactly, which reaches the line too
    assert move(cage_client, anna, "deposits", "500.00").status_code == 409
    assert ledger_state(anna) == before
    assert shown(cage_client, anna)["identity_on_file"] is False
    assert shown(cage_client, anna)["cash_in"] == "1500.00"

    # when the cage records her identity
    patched = cage_client.patch(f"/api/v1/players/{anna}", IDENTITY, format="json")
    assert patched.status_code == 200, patched.json()
    body = patched.json()
    assert body["identity_on_file"] is True
    assert body["birth_date"] == "1980-05-01"
    assert body["id_document"] == {"kind": "passport", "number": "NX1234567",
                                   "country": "NL"}
    assert body["nationality"] == "BE"

    # then the same 600.00 is taken
    moved(cage_client, anna, "deposits", "600.00")
    assert shown(cage_client, anna)["cash_in"] == "2100.00"


@pytest.mark.parametrize(("amount", "taken"), [
    ("1999.99", True),     # a cent below the line
    ("2000.00", False),    # at the line: "EUR 2 000 or more" needs the identity
    ("2000.01", False),    # a cent above it
])
def test_the_identity_line_is_reached_at_2000_itself(cage_client, amount, taken):
    # given a player without an identity, and the day's cash in or out brought to amount
    for kind in ("deposits", "withdrawals"):
        anna = register(cage_client, identified=False)
        if kind == "withdrawals":
            # funds from a table's win: not cash in (deposits would count against the line)
            account = Account.objects.get(kind="player", ref=f"player:{anna}")
            house = account_get_or_create(kind="table_bankroll", currency="EUR", ref="t:1")
            entry_post(kind="round_settlement", memo="", by=None,
                       lines=[(house.pk, -300_000), (account.pk, 300_000)])

        response = move(cage_client, anna, kind, amount)

        if taken:
            assert response.status_code == 201, response.json()
        else:
            assert response.status_code == 409, response.json()
            error = response.json()["error"]
            assert error["code"] == "identity_required"
            assert "which reaches 2,000.00 or more" in error["message"]


def test_a_cent_below_the_identity_line_then_the_cent_that_reaches_it(cage_client):
    anna = register(cage_client, identified=False)
    moved(cage_client, anna, "deposits", "1999.98")
    moved(cage_client, anna, "deposits", "0.01")   # 1,999.99: under the line
    assert move(cage_client, anna, "deposits", "0.01").json()["error"]["code"] == \
        "identity_required"                        # 2,000.00 reaches it
    assert shown(cage_client, anna)["cash_in"] == "1999.99"


def test_cash_in_and_cash_out_are_counted_apart(cage_client):
    # given 1,999.99 in: the cash-in side a cent below the line
    bram = register(cage_client, "Bram", identified=False)
    moved(cage_client, bram, "deposits", "1999.99")

    # then paying out 1,500.00 then 499.99 counts on the cash-out side only
    moved(cage_client, bram, "withdrawals", "1500.00")
    moved(cage_client, bram, "withdrawals", "499.99")
    day = shown(cage_client, bram)
    assert (day["cash_in"], day["cash_out"]) == ("1999.99", "1999.99")
    listed = cage_client.get("/api/v1/players?search=Bram").json()["results"]
    assert [(p["cash_in"], p["cash_out"]) for p in listed] == [("1999.99", "1999.99")]

    # and a further 0.01 out, or in, reaches its own side's line
    out = move(cage_client, bram, "withdrawals", "0.01").json()["error"]
    assert out["code"] == "identity_required"
    assert "cash out today would come to 2,000.00 EUR" in out["message"]
    assert move(cage_client, bram, "deposits", "0.01").status_code == 409


def test_a_correction_of_a_deposit_lowers_that_days_cash_in(cage_client):
    # given 1,999.00 deposited, then corrected (keyed twice)
    chris = register(cage_client, "Chris", identified=False)
    deposit = moved(cage_client, chris, "deposits", "1999.00")
    correct(cage_client, chris, deposit)
    assert shown(cage_client, chris)["cash_in"] == "0.00"

    # then 1,800.00 is taken without an identity: the day's cash in is 1,800.00
    moved(cage_client, chris, "deposits", "1800.00")
    assert shown(cage_client, chris)["cash_in"] == "1800.00"
    listed = cage_client.get("/api/v1/players?search=Chris").json()["results"]
    assert [p["cash_in"] for p in listed] == ["1800.00"]


def test_identity_is_checked_whole_and_kept(cage_client):
    anna = register(cage_client, identified=False)
    # a document's country that is no country
    bad = cage_client.patch(f"/api/v1/players/{anna}",
                            {**IDENTITY, "id_document": {**IDENTITY["id_document"],
                                                          "country": "XX"}}, format="json")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_country"
    # the old names are still taken; the same field twice with different values is not
    clash = cage_client.patch(f"/api/v1/players/{anna}",
                              {"birth_date": "1980-05-01", "date_of_birth": "1981-05-01"},
                              format="json")
    assert clash.status_code == 400
    old_names = cage_client.patch(
        f"/api/v1/players/{anna}", {"date_of_birth": "1980-05-01",
                                    "id_document_kind": "id_card",
                                    "id_document_number": "AB12345",
                                    "id_document_country": "DE"}, format="json")
    assert old_names.status_code == 200, old_names.json()
    assert old_names.json()["id_document"] == {"kind": "id_card", "number": "AB12345",
                                               "country": "DE"}
    # an identity on file is corrected, not removed
    removed = cage_client.patch(f"/api/v1/players/{anna}", {"id_document": None},
                                format="json")
    assert removed.status_code == 400
    assert removed.json()["error"]["code"] == "identity_kept"
    assert Player.objects.get(pk=anna).identity_on_file


def test_a_dealer_cannot_change_a_players_identity(cage_client, dealer_client):
    anna = register(cage_client)
    assert dealer_client.patch(f"/api/v1/players/{anna}", IDENTITY,
                               format="json").status_code == 403


# --- the multiple transaction log ----------------------------------------------------------

def test_every_single_movement_above_3000_is_in_the_log(cage_client, auditor_client,
                                                        pit_boss_client, dealer_client):
    # given movements at and above the log line, one of them corrected
    dana = register(cage_client, "Dana", identified=True)
    at_line = moved(cage_client, dana, "deposits", "3000.00")
    above = moved(cage_client, dana, "deposits", "3000.01")
    moved(cage_client, dana, "deposits", "1000.00")
    correction = correct(cage_client, dana, above)
    paid = moved(cage_client, dana, "withdrawals", "3500.00")

    # when the auditor reads the day's log
    response = auditor_client.get(f"/api/v1/cash-log?gaming_day={gaming_day_of()}")

    # then the three above the line are there, in time order; the one at the line is not
    assert response.status_code == 200
    rows = [r for r in response.json() if r["player"] == dana]
    assert [(r["entry"], r["kind"], r["direction"], r["amount"], r["corrects"])
            for r in rows] == [
        (above, "deposit", "in", "3000.01", None),
        (correction, "correction", "in", "-3000.01", above),
        (paid, "withdrawal", "out", "3500.00", None)]
    assert at_line not in [r["entry"] for r in rows]
    assert {r["by"] for r in rows} == {cage_client.user.username}
    assert rows[0]["player_name"] == "Dana" and rows[0]["time"]
    # the pit boss and the cage read it too; a dealer does not
    assert pit_boss_client.get("/api/v1/cash-log").status_code == 200
    assert cage_client.get("/api/v1/cash-log").status_code == 200
    assert dealer_client.get("/api/v1/cash-log").status_code == 403


@pytest.mark.parametrize(("amount", "logged"), [
    ("2999.99", False),    # a cent below the line
    ("3000.00", False),    # at the line: the log holds movements above it
    ("3000.01", True),     # a cent above it
])
def test_the_log_line_is_passed_only_above_3000(cage_client, auditor_client, amount, logged):
    dana = register(cage_client, "Dana", identified=True)
    deposit = moved(cage_client, dana, "deposits", amount)

    log = auditor_client.get(f"/api/v1/cash-log?gaming_day={gaming_day_of()}").json()

    assert [r["entry"] for r in log] == ([deposit] if logged else [])


# --- the cash transaction report ----------------------------------------------------------

def test_a_day_above_10000_in_makes_a_report_with_its_totals_and_entries(
        cage_client, pit_boss_client, auditor_client):
    # given Emil's deposits of 4,000.00, 4,000.00 and 2,500.00: 10,500.00 in
    emil = register(cage_client, "Emil", identified=True)
    first = moved(cage_client, emil, "deposits", "4000.00")
    second = moved(cage_client, emil, "deposits", "4000.00")
    assert reports(auditor_client) == []          # 8,000.00: no report yet
    third = moved(cage_client, emil, "deposits", "2500.00")

    # then one report, with the day's figures and the entries
    (report,) = reports(auditor_client)
    assert (report["player"], report["gaming_day"]) == (emil, gaming_day_of().isoformat())
    assert (report["cash_in"], report["cash_out"]) == ("10500.00", "0.00")
    assert report["movements"] == [first, second, third]
    assert report["report_line_passed"] is True
    assert report["splitting_suspected"] is False
    assert report["identity"]["id_document"]["number"] == "NX1234567"

    # when a withdrawal comes the same day, the report follows; its history keeps the past
    paid = moved(cage_client, emil, "withdrawals", "500.00")
    (report,) = reports(pit_boss_client)
    assert (report["cash_in"], report["cash_out"]) == ("10500.00", "500.00")
    assert report["movements"] == [first, second, third, paid]
    assert [h["movements"] for h in report["history"]] == [[first, second, third]]

    # the cage does not read the reports
    assert cage_client.get("/api/v1/cash-reports").status_code == 403


@pytest.mark.parametrize(("amount", "reported"), [
    ("9999.99", False),    # a cent below the line
    ("10000.00", False),   # at the line: a report is for more than 10,000
    ("10000.01", True),    # a cent above it
])
def test_the_report_line_is_passed_only_above_10000(cage_client, auditor_client, amount,
                                                    reported):
    # one deposit of amount (with 5,000.00 first: no movement near a line, no splitting)
    emil = register(cage_client, "Emil", identified=True)
    first = moved(cage_client, emil, "deposits", "5000.00")
    rest = f"{Decimal(amount) - 5000:.2f}"
    second = moved(cage_client, emil, "deposits", rest)

    found = reports(auditor_client)

    if reported:
        (report,) = found
        assert (report["cash_in"], report["movements"]) == (amount, [first, second])
        assert report["report_line_passed"] is True
    else:
        assert found == []


def test_cash_in_and_out_are_not_added_for_the_report(cage_client, auditor_client):
    # 9,000.00 in and 9,000.00 out (each side below 10,000.00) make no report
    fay = register(cage_client, "Fay", identified=True)
    for _ in range(2):
        moved(cage_client, fay, "deposits", "4500.00")
    for _ in range(2):
        moved(cage_client, fay, "withdrawals", "4500.00")
    assert reports(auditor_client) == []
    # 1,000.01 more out passes the line on the cash-out side alone
    moved(cage_client, fay, "deposits", "2000.00")
    moved(cage_client, fay, "withdrawals", "1000.01")
    (report,) = reports(auditor_client)
    assert (report["cash_in"], report["cash_out"]) == ("11000.00", "10000.01")
    assert report["reasons"][0].startswith("cash in 11,000.00 EUR")


def test_a_correction_counts_in_the_report(cage_client, auditor_client):
    gus = register(cage_client, "Gus", identified=True)
    big = moved(cage_client, gus, "deposits", "8000.00")
    more = moved(cage_client, gus, "deposits", "2500.00")
    fix = correct(cage_client, gus, more)
    (report,) = reports(auditor_client)
    # the report was made at 10,500.00; the correction brings the day back to 8,000.00
    assert report["cash_in"] == "8000.00"
    assert report["report_line_passed"] is False
    assert report["movements"] == [big, more, fix]
    assert report["history"][-1]["cash_in"] == 1_050_000


def test_the_auditor_files_a_report_and_not_the_same_figures_twice(
        cage_client, auditor_client, pit_boss_client, settings):
    # given 10,000.01 deposited, with the pit boss's approval past the cage's cap
    settings.CASINO_CAGE_APPROVAL_ABOVE = "10000.00"
    hana = register(cage_client, "Hana", identified=True)
    asked = move(cage_client, hana, "deposits", "10000.01")
    assert asked.status_code == 202
    assert reports(auditor_client) == []        # nothing moved yet
    approved = pit_boss_client.post(f"/api/v1/approvals/{asked.json()['id']}/approve")
    assert approved.status_code == 200, approved.json()
    (report,) = reports(auditor_client)
    assert report["cash_in"] == "10000.01"
    # a pit boss reads but does not file
    assert pit_boss_client.post(f"/api/v1/cash-reports/{report['id']}/file").status_code \
        == 403
    filed = auditor_client.post(f"/api/v1/cash-reports/{report['id']}/file")
    assert filed.status_code == 200, filed.json()
    assert filed.json()["filed_by"] == auditor_client.user.username
    assert filed.json()["filed_at"]
    assert filed.json()["filings"] == [{"filed_at": filed.json()["filed_at"],
                                        "filed_by": auditor_client.user.username,
                                        "cash_in": "10000.01", "cash_out": "0.00"}]
    again = auditor_client.post(f"/api/v1/cash-reports/{report['id']}/file")
    assert again.status_code == 409 and again.json()["error"]["code"] == "cash_report_filed"
    assert auditor_client.post("/api/v1/cash-reports/999999/file").status_code == 404


# --- splitting -----------------------------------------------------------------------------

def test_two_deposits_just_under_the_identity_line_are_flagged(cage_client,
                                                                auditor_client):
    # given 1,900.00 and 1,950.00 in: each within 10 % under 2,000.00, 3,850.00 in all
    ida = register(cage_client, "Ida", identified=True)
    first = moved(cage_client, ida, "deposits", "1900.00")
    second = moved(cage_client, ida, "deposits", "1950.00")

    # then listed for splitting, though the report line was not passed
    (report,) = reports(auditor_client)
    assert report["splitting_suspected"] is True
    assert report["report_line_passed"] is False
    assert (report["cash_in"], report["movements"]) == ("3850.00", [first, second])
    assert "just under the identity line" in report["reasons"][0]


@pytest.mark.parametrize(("amount", "flagged"), [
    ("1799.99", False),    # more than 10 % under the line
    ("1800.00", True),     # 10 % under it
    ("1999.99", True),     # a cent below it
    ("2000.00", False),    # at the line: it reaches it, so it is not under it
])
def test_just_under_the_identity_line_is_below_2000(cage_client, auditor_client, amount,
                                                    flagged):
    ida = register(cage_client, "Ida", identified=True)
    moved(cage_client, ida, "deposits", amount)
    moved(cage_client, ida, "deposits", amount)

    found = reports(auditor_client)

    reasons = [r for report in found for r in report["reasons"]]
    assert any("just under the identity line" in r for r in reasons) is flagged


@pytest.mark.parametrize(("amount", "flagged"), [
    ("2699.99", False),    # more than 10 % under the line
    ("2700.00", True),
    ("3000.00", True),     # at the line: not logged, so still under it
    ("3000.01", False),    # a cent above it: logged
])
def test_just_under_the_log_line_is_at_most_3000(cage_client, auditor_client, amount,
                                                 flagged):
    kim = register(cage_client, "Kim", identified=True)
    moved(cage_client, kim, "deposits", amount)
    moved(cage_client, kim, "deposits", amount)

    reasons = [r for report in reports(auditor_client) for r in report["reasons"]]

    assert any("just under the log line" in r for r in reasons) is flagged


def test_small_movements_that_add_up_past_the_report_line_are_flagged(cage_client,
                                                                     auditor_client):
    # five deposits of 2,500.00: none near a line, none logged, 12,500.00 together
    jan = register(cage_client, "Jan", identified=True)
    for _ in range(5):
        moved(cage_client, jan, "deposits", "2500.00")
    (report,) = reports(auditor_client)
    assert report["splitting_suspected"] is True
    assert any("add up to 12,500.00 EUR" in r for r in report["reasons"])
    assert auditor_client.get("/api/v1/cash-log").json() == []


def test_one_movement_just_under_a_line_is_not_splitting(cage_client, auditor_client):
    kim = register(cage_client, "Kim", identified=True)
    moved(cage_client, kim, "deposits", "1000.00")
    moved(cage_client, kim, "deposits", "2950.00")
    moved(cage_client, kim, "withdrawals", "2900.00")   # the other side: counted apart
    assert reports(auditor_client) == []


# --- the gaming day ------------------------------------------------------------------------

def test_the_count_starts_again_with_the_next_gaming_day(cage_client, auditor_client,
                                                        monkeypatch):
    # given 1,999.99 in today for a player without an identity, and a report for Lea
    anna = register(cage_client, identified=False)
    moved(cage_client, anna, "deposits", "1999.99")
    lea = register(cage_client, "Lea", identified=True)
    moved(cage_client, lea, "deposits", "10000.01")
    today = gaming_day_of()

    # when the next gaming day has begun (ledger rows keep their time)
    monkeypatch.setattr(cash, "gaming_day_of", lambda moment=None: (
        gaming_day_of(moment) if moment else today + timedelta(days=1)))

    # then today's cash no longer counts: 1,999.99 more is taken without an identity
    moved(cage_client, anna, "deposits", "1999.99")
    # and the reports are the day's: none for the new day, Lea's for the one before
    assert reports(auditor_client, today + timedelta(days=1)) == []
    assert lea in [r["player"] for r in reports(auditor_client, today)]


def test_a_movement_belongs_to_the_gaming_day_its_start_hour_puts_it_in(cage_client,
                                                                       settings):
    # given a deposit, at some local hour H
    anna = register(cage_client)
    entry = Entry.objects.get(pk=moved(cage_client, anna, "deposits", "1000.00"))
    hour = timezone.localtime(entry.created_at).hour
    player = Player.objects.get(pk=anna)

    # a day starting at H holds it; a day starting at H + 1 puts it on the day before
    for start in (hour, (hour + 1) % 24):
        settings.GAMING_DAY_START_HOUR = start
        local = timezone.localtime(entry.created_at)
        day = local.date() if start <= local.hour else local.date() - timedelta(days=1)
        assert gaming_day_of(entry.created_at) == day
        assert cash.cash_day(player=player, gaming_day=day).cash_in == 100_000
        assert cash.cash_day(player=player, gaming_day=day + timedelta(days=1)).cash_in == 0
        assert cash.cash_day(player=player, gaming_day=day - timedelta(days=1)).cash_in == 0


# --- a table's buy-in counts as cash in ----------------------------------------------------

def test_a_buy_in_on_the_players_account_counts_as_cash_in(cage_client, auditor_client):
    # given a buy-in entry crediting the player's account (as a table's buy-in posts it)
    mo = register(cage_client, "Mo", identified=True)
    player = Player.objects.get(pk=mo)
    account = Account.objects.get(kind="player", ref=f"player:{mo}")
    drop = account_get_or_create(kind="table_bankroll", currency="EUR", ref="table:1")
    cash.cash_movement_check(player=player, direction="in", amount=900_000)
    buy_in = entry_post(kind="buy_in", memo="", ref="table:1", by=None,
                        lines=[(drop.pk, -900_000), (account.pk, 900_000)])
    cash.cash_movement_record(player=player, entry=buy_in)

    # then it is cash in, logged, and a deposit of 1,500.00 brings the day to a report
    assert shown(cage_client, mo)["cash_in"] == "9000.00"
    log = auditor_client.get("/api/v1/cash-log").json()
    assert [(r["entry"], r["kind"], r["direction"]) for r in log] == [
        (buy_in.pk, "buy_in", "in")]
    deposit = moved(cage_client, mo, "deposits", "1500.00")
    (report,) = reports(auditor_client)
    assert (report["cash_in"], report["movements"]) == ("10500.00", [buy_in.pk, deposit])
    assert CashReport.objects.get().history == []


def test_a_buy_in_past_the_identity_line_is_refused_by_the_check(cage_client):
    anna = register(cage_client, identified=False)
    moved(cage_client, anna, "deposits", "1500.00")
    with pytest.raises(cash.IdentityRequired) as refused:
        cash.cash_movement_check(player=Player.objects.get(pk=anna), direction="in",
                                 amount=60_000)
    assert "cash in today would come to 2,100.00 EUR" in refused.value.message


# --- the reports machinery: the cash_report kind -------------------------------------------

def test_the_cash_report_file_lists_the_days_reports_in_each_format(cage_client,
                                                                    auditor_client):
    from reports.files.formats import FORMATS
    from reports.files.kinds import report_document

    # given Ned's day past the report line, and Ola's split under the identity line
    ned = register(cage_client, "Ned", identified=True)
    first = moved(cage_client, ned, "deposits", "6000.00")
    second = moved(cage_client, ned, "deposits", "4500.00")
    ola = register(cage_client, "Ola", identified=True)
    for _ in range(2):
        moved(cage_client, ola, "withdrawals" if _ else "deposits", "1990.00")
    moved(cage_client, ola, "deposits", "1990.00")

    # when the auditor's file is laid out
    document = report_document(kind="cash_report",
                               parameters={"gaming_day": gaming_day_of()},
                               made_by="auditor1 (auditor)", made_at=timezone.now())

    # then one row per report, with the figures and the entries
    rows = document.sections[0].records()
    assert [(r["player"], str(r["cash_in"]), str(r["cash_out"]), r["movements"],
             r["report_line_passed"], r["splitting_suspected"]) for r in rows] == [
        (ned, "10500.00", "0.00", f"{first} {second}", True, False),
        (ola, "3980.00", "1990.00", rows[1]["movements"], False, True)]
    assert rows[0]["id_document"] == "passport NX1234567 NL"
    for fmt in FORMATS.values():
        assert fmt.render(document)
    assert b"10500.00" in FORMATS["csv"].render(document)
    # asked through the API like any report: the auditor may, the cage may not
    asked = {"kind": "cash_report", "format": "csv", "gaming_day": str(gaming_day_of())}
    assert auditor_client.post("/api/v1/reports", asked, format="json").status_code == 202
    assert cage_client.post("/api/v1/reports", asked, format="json").status_code == 403


# --- other doors ---------------------------------------------------------------------------

def test_a_deposit_waiting_for_a_pit_boss_is_not_filed_without_an_identity(
        cage_client, settings):
    from casino.shared.approvals import Approval

    # past the cage's cap and past the identity line: refused now, nothing waits
    settings.CASINO_CAGE_APPROVAL_ABOVE = "10000.00"
    anna = register(cage_client, identified=False)
    refused = move(cage_client, anna, "deposits", "10000.01")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "identity_required"
    assert not Approval.objects.exists()


def test_the_auditor_reads_the_reports_in_the_admin(cage_client, staff_client):
    from django.test import Client

    from casino.services import staff_create

    nina = register(cage_client, "Nina", identified=True)
    moved(cage_client, nina, "deposits", "10000.01")
    report = CashReport.objects.get()
    auditor, _ = staff_create(username="audrey", role="auditor")
    browser = Client()
    browser.force_login(auditor)
    listed = browser.get("/admin/casino/cashreport/")
    assert listed.status_code == 200 and b"10000.01 EUR" in listed.content
    assert browser.get(f"/admin/casino/cashreport/{report.pk}/change/").status_code == 200


@pytest.mark.parametrize("body", [
    {"id_document": "passport"}, {"id_document": {"kind": "library_card"}},
    {"birth_date": None}, {"birth_date": "yesterday"}, {"nationality": None},
    {"nationality": "Dutch"}, {"name": ""}, {"id_document": None}, [], "x",
    {"id_document": {"kind": "passport", "number": "AB12345", "country": 7}},
    {"birth_date": "2020-01-01", "id_document": {"kind": "passport", "number": "AB12345"}},
])
def test_a_bad_identity_is_a_clear_4xx_and_changes_nothing(cage_client, body):
    anna = register(cage_client, identified=True)
    before = shown(cage_client, anna)
    response = cage_client.patch(f"/api/v1/players/{anna}", body, format="json")
    assert 400 <= response.status_code < 500, response.content
    assert set(response.json()["error"]) == {"code", "message", "detail"}
    assert shown(cage_client, anna) == before


@pytest.mark.parametrize("query", ["gaming_day=yesterday", "gaming_day=9999-12-31"])
def test_a_bad_gaming_day_is_a_400(auditor_client, query):
    for path in ("/api/v1/cash-log", "/api/v1/cash-reports"):
        assert auditor_client.get(f"{path}?{query}").status_code == 400


# --- two clerks at once ---------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_deposits_cannot_both_pass_the_identity_line():
    import threading

    from django.db import connections

    from casino.services import player_deposit, staff_create
    from casino.shared.errors import Conflict
    from tests.players import make_player

    # given Anna without an identity; two clerks take 1,500.00 each at the same moment
    anna = make_player(name="Anna", identity=False)
    clerks = [staff_create(username=f"clerk-{n}", role="cage")[0] for n in (1, 2)]
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def deposit(clerk) -> None:
        try:
            start.wait()
            player_deposit(player_id=anna.pk, amount=150_000, by=clerk)
            outcomes.append("moved")
        except Conflict as exc:
            outcomes.append(exc.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=deposit, args=(c,)) for c in clerks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # then the second reads the first's deposit under the lock: 3,000.00 is refused
    assert sorted(outcomes) == ["identity_required", "moved"]
    assert cash.cash_day(player=anna).cash_in == 150_000


def test_the_database_refuses_a_country_that_is_not_two_capitals_and_negative_totals(
        cage_client):
    from django.db import IntegrityError, transaction

    anna = register(cage_client, identified=True)
    for field in ("nationality", "id_document_country"):
        with pytest.raises(IntegrityError), transaction.atomic():
            Player.objects.filter(pk=anna).update(**{field: "nl"})
    moved(cage_client, anna, "deposits", "10000.01")
    with pytest.raises(IntegrityError), transaction.atomic():
        CashReport.objects.update(cash_in=-1)


# --- a third-party proposition player (docs/rules.md §14) ------------------------------------

def test_a_proposition_players_licence_is_its_identity_and_its_cash_is_reported(
        cage_client, auditor_client):
    response = cage_client.post("/api/v1/players", {"name": "Golden Prop LLC",
                                                     "kind": "proposition",
                                                     "licence": "GEGP-001234"}, format="json")
    assert response.status_code == 201, response.json()
    prop = response.json()["id"]
    assert shown(cage_client, prop)["identity_on_file"] is True

    # its bankroll crosses the identity line and the report line, and is not refused
    first = moved(cage_client, prop, "deposits", "6000.00")
    second = moved(cage_client, prop, "deposits", "5000.00")

    (report,) = [r for r in reports(auditor_client) if r["player"] == prop]
    assert (report["cash_in"], report["movements"]) == ("11000.00", [first, second])
    assert CashReport.objects.get(player_id=prop).identity["licence"] == "GEGP-001234"


def test_a_player_without_a_document_is_not_identified_by_a_licence_field(cage_client):
    # a person's identity is a document; only a proposition player carries a licence
    anna = register(cage_client, "Anna", identified=False)
    assert Player.objects.get(pk=anna).identity_on_file is False
    assert move(cage_client, anna, "deposits", "2500.00").status_code == 409
