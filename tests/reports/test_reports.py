"""A table's figures for a gaming day (rules §10), checked figure by figure and against
the ledger entries the same rounds posted."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.management import call_command
from django.db.models import Sum

from ledger.models import Line
from rounds.models import Round

pytestmark = pytest.mark.django_db


@pytest.fixture
def played_day(dealer, pit_boss_client, table, seat_player):
    """Four rounds: house-banked, player-banked with a house stake, voided, reversed."""
    for n in (1, 2, 3):
        seat_player(table, n, funds=100_000)
    # 1. house-banked: seat 1 wins 20 (1.00 commission), seat 2 loses 30, seat 3 pushes 10
    first = dealer.house_round(table, {1: "20.00", 2: "30.00", 3: "10.00"},
                               {"1": "win", "2": "loss", "3": "push"})
    # 2. seat 1 banks with a 20.00 house stake: seat 2 loses 50, seat 3 wins 40 (2.00),
    #    the house stake wins 20; the bank: +50 -40 -20 = -10, no banker commission
    second = dealer.open_round(table)["id"]
    dealer.wager(second, 2, "50.00")
    dealer.wager(second, 3, "40.00")
    dealer.banker(second, seat=1, house_stake="20.00")
    dealer.settle(second, {"outcomes": {"2": "loss", "3": "win", "dealer": "win"}})
    # 3. voided
    third = dealer.open_round(table)["id"]
    dealer.wager(third, 1, "10.00")
    pit_boss_client.post(f"/api/v1/rounds/{third}/void", {"reason": "misdeal"}, format="json")
    # 4. settled, then reversed: its money is moved back, so it counts apart
    fourth = dealer.house_round(table, {1: "100.00"}, {"1": "loss"})
    pit_boss_client.post(f"/api/v1/rounds/{fourth['id']}/reverse", {"reason": "wrong"},
                         format="json")
    return first["gaming_day"]


def test_the_days_figures_add_up_figure_by_figure(auditor_client, table, played_day):
    response = auditor_client.get(f"/api/v1/tables/{table.pk}/report?gaming_day={played_day}")

    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in (
        "rounds_settled", "rounds_house_banked", "rounds_player_banked", "rounds_reversed",
        "rounds_voided")} == {"rounds_settled": 2, "rounds_house_banked": 1,
                              "rounds_player_banked": 1, "rounds_reversed": 1,
                              "rounds_voided": 1}
    assert body["handle"] == "150.00"          # 20 + 30 + 10, then 50 + 40
    assert body["house_stakes"] == "20.00"
    assert body["house_win_house_banked"] == "10.00"   # +30 - 20
    assert body["house_win_house_stakes"] == "20.00"
    assert body["commission_players"] == "3.00"        # 1.00 + 2.00
    assert body["commission_bankers"] == "0.00"
    assert body["house_result"] == "33.00"
    assert body["hold_percent"] == "22.00"             # 33 / 150
    # and where it was read (no replica here: tests/reports/test_replica.py has one)
    assert body["read_from"] == {
        "replica": False, "standby": False, "streaming": False, "read_at": None,
        "replayed_to": None, "behind_seconds": None,
        "said": "Read from the primary database (no replica configured)."}


def test_the_house_result_is_what_the_ledger_moved_into_the_tables_accounts(table, played_day):
    from reports.play import table_day_report

    report = table_day_report(table_id=table.pk, gaming_day=date.fromisoformat(played_day))

    refs = [f"round:{pk}" for pk in Round.objects.filter(table=table).values_list("pk",
                                                                                  flat=True)]
    moved = Line.objects.filter(entry__ref__in=refs,
                                account__ref=f"table:{table.pk}").aggregate(s=Sum("amount"))
    assert moved["s"] == report.house_result


def test_a_day_without_play_has_no_hold_percentage(auditor_client, table):
    body = auditor_client.get(f"/api/v1/tables/{table.pk}/report?gaming_day=2020-01-01").json()

    assert body["rounds_settled"] == 0 and body["handle"] == "0.00"
    assert body["hold_percent"] is None


def test_a_dealer_may_not_run_reports_and_a_bad_day_is_refused(dealer_client, auditor_client,
                                                               table):
    assert dealer_client.get(
        f"/api/v1/tables/{table.pk}/report?gaming_day=2026-01-01").status_code == 403
    bad = auditor_client.get(f"/api/v1/tables/{table.pk}/report?gaming_day=yesterday")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid"
    assert auditor_client.get("/api/v1/tables/999999/report?gaming_day=2026-01-01"
                              ).status_code == 404


def test_the_report_command_prints_the_figures(table, played_day, capsys):
    call_command("table_report", "--table", str(table.pk), "--day", played_day)

    # the table-day file's columns, in its words
    lines = {" ".join(line.split()) for line in capsys.readouterr().out.splitlines()}
    assert "House result (the six above) 33.00 EUR" in lines
    assert "Hold % (house result / handle) 22.00" in lines
    assert "Rounds voided 1" in lines
    assert "Database Read from the primary database (no replica configured)." in lines


def test_each_money_figure_of_the_day_is_what_the_ledger_moved(table, played_day):
    from reports.play import table_day_report

    report = table_day_report(table_id=table.pk, gaming_day=date.fromisoformat(played_day))

    def moved(banked_by_house: bool | None, kind: str) -> int:
        rounds = Round.objects.filter(table=table)
        if banked_by_house is not None:
            rounds = rounds.filter(banker_is_house=banked_by_house)
        refs = [f"round:{pk}" for pk in rounds.values_list("pk", flat=True)]
        return Line.objects.filter(entry__ref__in=refs, account__kind=kind).aggregate(
            s=Sum("amount"))["s"] or 0

    # the reversed round's settlement and reversal cancel out in the ledger as in the day
    assert moved(True, "table_bankroll") == report.house_win_house_banked == 1_000
    assert moved(False, "table_bankroll") == report.house_win_house_stakes == 2_000
    assert moved(None, "commission") == (report.commission_players
                                         + report.commission_bankers) == 300
    assert moved(None, "table_bankroll") + moved(None, "commission") == report.house_result
    assert report.win == report.house_result
