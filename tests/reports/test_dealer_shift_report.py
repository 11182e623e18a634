"""The dealer_shift report: per dealer and shift, each figure against the records it counts
(the shifts, the rounds each dealt, their settled parties, the refusals trace)."""

from __future__ import annotations

import csv
import io
import json
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from casino import roles
from casino.services import staff_create
from casino.shared.refusals import Refusal
from reports.dealers import dealer_shift_report
from reports.files.formats import FORMATS
from reports.files.kinds import report_document
from reports.models import Report
from rounds.models import DealerShift, Round
from tests.rounds.conftest import Dealer

pytestmark = pytest.mark.django_db


def _signed_in(client: Any, table: Any) -> int:
    answer = client.post(f"/api/v1/tables/{table.pk}/dealer", {}, format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()["id"]


def _started_earlier(shift_id: int, minutes: int) -> None:
    """The shift as if it had started ``minutes`` before it ended (a test cannot wait two
    hours): its guard lets a shift change only by its end, so the owner lifts it here."""
    shift = DealerShift.objects.get(pk=shift_id)
    assert shift.ended_at is not None
    with connection.cursor() as cursor:
        # ALTER TABLE waits for no deferred check: run them now, defer again after.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE rounds_dealershift DISABLE TRIGGER rounds_dealershift_guard")
        cursor.execute("UPDATE rounds_dealershift SET started_at = %s WHERE id = %s",
                       [shift.ended_at - timedelta(minutes=minutes), shift_id])
        cursor.execute("ALTER TABLE rounds_dealershift ENABLE TRIGGER rounds_dealershift_guard")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")


@pytest.fixture
def dealers_day(staff_client, pit_boss_client, make_table, seat_player) -> dict[str, Any]:
    """Anna deals three rounds at Table A (two settled: three player hands; one voided by
    the pit boss) and is refused one wager above the table's maximum; Bert relieves her and
    deals one round; Anna is refused once more after her relief. At Table B nobody signs
    in: the pit boss opens a round there."""
    table_a, table_b = make_table(name="Table A"), make_table(name="Table B")
    seat_player(table_a, 1, funds=100_000)
    seat_player(table_a, 2, funds=100_000)
    anna, bert = staff_client(roles.DEALER), staff_client(roles.DEALER)
    a, b = Dealer(anna), Dealer(bert)

    anna_shift = _signed_in(anna, table_a)
    a.house_round(table_a, {1: "20.00", 2: "30.00"}, {"1": "win", "2": "loss"})
    a.house_round(table_a, {1: "10.00"}, {"1": "push"})
    voided = a.open_round(table_a)["id"]
    a.wager(voided, 1, "5000.00", expect=400)   # above the maximum: refused, traced
    assert pit_boss_client.post(f"/api/v1/rounds/{voided}/void", {"reason": "misdeal"},
                                format="json").status_code == 200
    bert_shift = _signed_in(bert, table_a)
    b.house_round(table_a, {2: "15.00"}, {"2": "win"})
    after = b.open_round(table_a)["id"]
    a.wager(after, 1, "5000.00", expect=400)    # Anna, relieved: not her shift's
    pit_boss_client.post(f"/api/v1/tables/{table_b.pk}/rounds", format="json")
    _started_earlier(anna_shift, 120)
    return {"anna": anna.user.username, "bert": bert.user.username,
            "pit": pit_boss_client.user.username, "anna_shift": anna_shift,
            "bert_shift": bert_shift, "voided": voided,
            "day": Round.objects.get(pk=voided).gaming_day}


def test_each_shift_counts_the_rounds_hands_refusals_and_voids_it_dealt(dealers_day):
    report = dealer_shift_report(gaming_day=dealers_day["day"])

    anna, bert, unsigned = report.lines
    assert (anna.dealer, anna.table_name, anna.minutes) == (dealers_day["anna"], "Table A", 120)
    assert (anna.rounds_dealt, anna.rounds_played, anna.rounds_voided, anna.rounds_reversed,
            anna.hands, anna.refusals) == (3, 2, 1, 0, 3, 1)
    assert anna.hands_per_hour == Decimal("1.0")   # 2 rounds played in 2 hours
    # Bert's round in play counts as dealt, not played.
    assert (bert.dealer, bert.rounds_dealt, bert.rounds_played, bert.hands,
            bert.refusals, bert.ended_at) == (dealers_day["bert"], 2, 1, 1, 0, None)
    assert (unsigned.dealer, unsigned.table_name, unsigned.started_at, unsigned.rounds_dealt,
            unsigned.refusals) == (dealers_day["pit"], "Table B", None, 1, None)


def test_the_figures_are_the_records(dealers_day):
    report = dealer_shift_report(gaming_day=dealers_day["day"])
    anna = DealerShift.objects.get(pk=dealers_day["anna_shift"])

    line = report.lines[0]
    assert anna.ended_at is not None
    dealt = Round.objects.filter(dealer_shift=anna)
    assert line.rounds_dealt == dealt.count()
    assert line.rounds_voided == dealt.filter(state="voided").count()
    assert line.refusals == Refusal.objects.filter(
        by=anna.dealer, at__gte=anna.started_at, at__lt=anna.ended_at).count()
    assert Refusal.objects.filter(by=anna.dealer).count() == 2   # one after her relief
    assert line.minutes == (anna.ended_at - anna.started_at).total_seconds() // 60


def test_the_refusals_and_voids_are_listed_in_order_in_words(dealers_day):
    report = dealer_shift_report(gaming_day=dealers_day["day"])

    assert [(e.dealer, e.what) for e in report.events] == [
        (dealers_day["anna"], "Refused: round wagers"),
        (dealers_day["anna"], f"Round 3 voided by {dealers_day['pit']}")]
    assert "from 2.00 to 100.00" in report.events[0].detail
    assert report.events[1].detail == "misdeal"


def _document(day: date) -> Any:
    return report_document(kind="dealer_shift", parameters={"gaming_day": day},
                           made_by="test", made_at=timezone.now())


def test_the_report_renders_as_csv_json_and_pdf(dealers_day):
    document = _document(dealers_day["day"])

    rows = list(csv.DictReader(io.StringIO(FORMATS["csv"].render(document).decode())))
    assert [(r["dealer"], r["table"], r["rounds_dealt"], r["hands_per_hour"],
             r["refusals"]) for r in rows] == [
        (dealers_day["anna"], "Table A", "3", "1.0", "1"),
        (dealers_day["bert"], "Table A", "2", rows[1]["hands_per_hour"], "0"),
        (dealers_day["pit"], "Table B", "1", "", "")]
    loaded = json.dumps(json.loads(FORMATS["json"].render(document)))
    assert "misdeal" in loaded
    assert FORMATS["pdf"].render(document).startswith(b"%PDF")


def test_the_report_page_reads_as_a_pit_manager_reads_it(dealers_day, db):
    auditor, _ = staff_create(username="audrey", role=roles.AUDITOR)
    client = Client()
    client.force_login(auditor)
    asked = Report.objects.create(kind="dealer_shift", format="pdf",
                                  parameters={"gaming_day": str(dealers_day["day"])},
                                  requested_by=auditor)

    page = client.get(f"/reports/{asked.pk}/").content.decode()

    assert "Dealers&#x27; shifts" in page or "Dealers' shifts" in page
    assert dealers_day["anna"] in page and "misdeal" in page
    assert "Hands per hour" in page


def test_the_api_asks_for_the_report_by_gaming_day(auditor_client, dealers_day):
    asked = auditor_client.post("/api/v1/reports", {"kind": "dealer_shift", "format": "csv",
                                                    "gaming_day": str(dealers_day["day"])},
                                format="json")
    assert asked.status_code == 202, asked.json()
    missing = auditor_client.post("/api/v1/reports", {"kind": "dealer_shift", "format": "csv"},
                                  format="json")
    assert missing.status_code == 400


def test_a_day_without_dealers_says_so(db):
    document = _document(date(2026, 1, 2))

    assert document.sections[0].rows == []
    assert any("No dealer signed in" in note for note in document.notes)
