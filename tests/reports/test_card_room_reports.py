"""The card room's reports: the collection on a table's and the floor's day, the
proposition players' day and the bank's rotation log, each figure checked against the
ledger lines the rounds posted (docs/rules.md, card-room mode)."""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from typing import Any

import pytest
from django.db.models import Sum
from django.utils import timezone

from casino.selectors import player_account_ref
from ledger.models import Line
from reports.card_room import proposition_report, rotation_log
from reports.files.formats import FORMATS
from reports.files.kinds import report_document
from reports.play import floor_day_report, table_day_report
from rounds.models import Round, Table
from tests.conftest import played_rounds_rewritten

pytestmark = pytest.mark.django_db


@pytest.fixture
def card_table(make_table) -> Table:
    return make_table(bank_mode="card_room", commission_rate="0", collection_player=50)


@pytest.fixture
def proposition(cage_client) -> dict[str, Any]:
    """A proposition player registered and funded at the cage, by the API."""
    player = cage_client.post("/api/v1/players", {"name": "Golden Prop LLC",
                                                  "kind": "proposition",
                                                  "licence": "GEGP-001234"},
                              format="json").json()
    cage_client.post(f"/api/v1/players/{player['id']}/deposits", {"amount": "5000.00"},
                     format="json")
    return player


def _moved(refs: list[str], **account: Any) -> int:
    """What the given rounds' entries moved on the accounts matching ``account``."""
    return Line.objects.filter(entry__ref__in=refs, **{f"account__{k}": v for k, v in
                                                       account.items()}) \
        .aggregate(s=Sum("amount"))["s"] or 0


@pytest.fixture
def card_day(dealer, card_table, seat_player, proposition) -> dict[str, Any]:
    """Two card-room rounds on one day.

    1. The rules page's worked round: seats 2, 3, 4 wager 100.00; seat 1 takes the bank
       covering 150.00, the proposition player the rest; seat 2 loses, 3 wins, 4 loses.
    2. Every seat declines the bank in turn (2, 3, 4, 1): the proposition player banks
       alone; seats 2 and 3 wager 60.00 and 40.00; seat 2 wins, seat 3 loses.
    """
    players = {n: seat_player(card_table, n, funds=100_000) for n in (1, 2, 3, 4)}
    first = dealer.open_round(card_table)["id"]
    for seat in (2, 3, 4):
        dealer.wager(first, seat, "100.00")
    dealer.banker(first, seat=1, cover="150.00", third_party=proposition["id"])
    dealer.settle(first, {"outcomes": {"2": "loss", "3": "win", "4": "loss"}})
    second = dealer.open_round(card_table)["id"]
    for seat in (2, 3, 4, 1):   # the rotation starts after the last player-dealer
        dealer.call("post", f"/api/v1/rounds/{second}/banker/decline", {"seat": seat})
    for seat, amount in ((2, "60.00"), (3, "40.00")):
        dealer.wager(second, seat, amount)
    dealer.banker(second, third_party=proposition["id"])
    dealer.settle(second, {"outcomes": {"2": "win", "3": "loss"}})
    rounds = list(Round.objects.filter(pk__in=[first, second]).order_by("number"))
    return {"players": players, "rounds": rounds, "gaming_day": rounds[0].gaming_day,
            "refs": [f"round:{r.pk}" for r in rounds]}


def test_the_table_day_shows_the_collection_by_kind_as_the_ledger_moved_it(
        auditor_client, card_table, card_day):
    body = auditor_client.get(f"/api/v1/tables/{card_table.pk}/report"
                              f"?gaming_day={card_day['gaming_day']}").json()

    # 1: 3.00 on 300.00 covered, 3 x 0.50; 2: 1.00 on 100.00 covered, 2 x 0.50
    assert (body["collection_banker"], body["collection_players"]) == ("4.00", "2.50")
    # no commission at this table: the house result is the collection
    assert body["house_result"] == "6.50"
    assert body["rounds_settled"] == 2
    assert body["handle"] == "400.00"
    # the collection account moved exactly that, and every table account the house result
    report = table_day_report(table_id=card_table.pk, gaming_day=card_day["gaming_day"])
    assert _moved(card_day["refs"], kind="collection") == report.collection == 650
    assert _moved(card_day["refs"], ref=f"table:{card_table.pk}") == report.house_result


def test_the_floor_day_adds_the_collection_of_its_card_room_tables(card_table, card_day,
                                                                   dealer, make_table,
                                                                   seat_player):
    casino = make_table(name="Casino table")
    seat_player(casino, 1, funds=100_000)
    dealer.house_round(casino, {1: "20.00"}, {"1": "loss"})

    floor = floor_day_report(gaming_day=card_day["gaming_day"])

    rows = {r.table_name: r for r in floor.tables}
    assert (rows[card_table.name].collection_banker,
            rows[card_table.name].collection_players) == (400, 250)
    assert rows["Casino table"].collection == 0
    (total,) = floor.totals
    assert (total.collection_banker, total.collection_players) == (400, 250)
    assert total.house_result == 650 + 2_000


def test_the_proposition_players_day_is_what_its_account_moved(card_day, proposition):
    report = proposition_report(gaming_day=card_day["gaming_day"])

    (line,) = report.lines
    assert (line.name, line.licence, line.rounds, line.rounds_alone) == (
        "Golden Prop LLC", "GEGP-001234", 2, 1)
    # 1: half of seat 3 (won by the player) and seat 4 (lost); 2: all of seats 2 and 3
    assert line.action == 5_000 + 10_000 + 6_000 + 4_000
    assert (line.won, line.lost, line.net) == (10_000 + 4_000, 5_000 + 6_000, 3_000)
    # the bank's fee only when it banked alone (round 2: 1.00 on 100.00)
    assert (line.commission, line.fees, line.result) == (0, 100, 2_900)
    assert _moved(card_day["refs"], kind="player",
                  ref=player_account_ref(proposition["id"])) == line.result


def test_the_rotation_log_lists_every_offer_take_and_decline_in_order(card_table, card_day):
    log = rotation_log(table_id=card_table.pk, gaming_day=card_day["gaming_day"])

    names = {n: p.name for n, p in card_day["players"].items()}
    steps = [(x.round_number, x.what, x.seat, x.player) for x in log.lines]
    assert steps == [
        (1, "offered", 1, names[1]), (1, "taken", 1, names[1]),
        *((2, step, seat, names[seat]) for seat in (2, 3, 4, 1)
          for step in ("offered", "declined")),
        (2, "no_offer", None, ""), (2, "alone", None, "Golden Prop LLC"),
    ]
    assert log.lines[1].detail == ("covers up to 150.00 EUR; Golden Prop LLC (licence "
                                   "GEGP-001234) covers the rest")
    assert log.lines[-1].detail == "Golden Prop LLC (licence GEGP-001234) banks alone"
    assert log.lines[-2].detail  # why no seat was offered, in words
    assert [x.at for x in log.lines] == sorted(x.at for x in log.lines)


def _document(kind: str, **parameters: Any):
    return report_document(kind=kind, parameters=parameters, made_by="audrey (auditor)",
                           made_at=timezone.now())


def test_the_two_new_kinds_render_as_csv_json_and_pdf(card_table, card_day):
    day: date = card_day["gaming_day"]
    props = _document("proposition_day", gaming_day=day)
    rotation = _document("rotation_log", table=card_table.pk, gaming_day=day)

    (row,) = csv.DictReader(io.StringIO(FORMATS["csv"].render(props).decode()))
    assert (row["player"], row["action"], row["net"], row["fees"], row["result"]) == (
        "Golden Prop LLC", "250.00", "30.00", "1.00", "29.00")
    rows = list(csv.DictReader(io.StringIO(FORMATS["csv"].render(rotation).decode())))
    assert [r["step"] for r in rows][:2] == ["offered the bank", "took the bank"]
    assert len(rows) == 12
    loaded = json.loads(FORMATS["json"].render(rotation))
    assert "Rotation log" in json.dumps(loaded)
    assert FORMATS["pdf"].render(props).startswith(b"%PDF")
    table_day = _document("table_day", table=card_table.pk, gaming_day=day)
    (figures,) = csv.DictReader(io.StringIO(FORMATS["csv"].render(table_day).decode()))
    assert (figures["collection_banker"], figures["collection_players"]) == ("4.00", "2.50")


def test_a_casino_table_has_an_empty_rotation_log(dealer, table: Table, seat_player):
    seat_player(table, 1, funds=100_000)
    seat_player(table, 2, funds=100_000)
    dealer.house_round(table, {1: "20.00"}, {"1": "loss"})
    # a casino table's own rotation: seat 1 is offered the bank and declines
    round_id = dealer.open_round(table)["id"]
    dealer.call("post", f"/api/v1/rounds/{round_id}/banker/decline", {"seat": 1})
    dealer.wager(round_id, 1, "20.00")
    dealer.banker(round_id, house=True)
    played = dealer.settle(round_id, {"outcomes": {"1": "push"}})

    log = rotation_log(table_id=table.pk, gaming_day=date.fromisoformat(played["gaming_day"]))

    assert log.lines == []


def test_the_api_takes_the_new_kinds_and_refuses_a_missing_table(auditor_client, card_day):
    day = str(card_day["gaming_day"])
    asked = auditor_client.post("/api/v1/reports", {"kind": "rotation_log", "format": "csv",
                                                    "gaming_day": day}, format="json")
    assert asked.status_code == 400
    assert "table" in asked.json()["error"]["detail"]["fields"]
    asked = auditor_client.post("/api/v1/reports", {"kind": "proposition_day",
                                                    "format": "json", "gaming_day": day},
                                format="json")
    assert asked.status_code == 202, asked.json()


def test_the_html_pages_of_the_new_kinds_read_as_the_files(card_table, card_day, db):
    from django.test import Client

    from casino import roles
    from casino.services import staff_create
    from reports.models import Report

    auditor, _ = staff_create(username="audrey", role=roles.AUDITOR)
    client = Client()
    client.force_login(auditor)
    day = str(card_day["gaming_day"])
    asked = {kind: Report.objects.create(kind=kind, format="pdf", parameters=parameters,
                                         requested_by=auditor)
             for kind, parameters in (("rotation_log", {"table": str(card_table.pk),
                                                        "gaming_day": day}),
                                      ("proposition_day", {"gaming_day": day}))}

    rotation = client.get(f"/reports/{asked['rotation_log'].pk}/").content.decode()
    props = client.get(f"/reports/{asked['proposition_day'].pk}/").content.decode()

    assert "Rotation log" in rotation and "took the bank" in rotation
    assert "covers up to 150.00 EUR" in rotation
    assert "Golden Prop LLC" in props and "GEGP-001234" in props and "29.00" in props
    # and the console offers the kinds, the rotation log with a table to pick
    form = client.get("/reports/?kind=rotation_log").content.decode()
    assert "A table&#x27;s bank rotation log" in form or "A table's bank rotation log" in form
    assert f'<option value="{card_table.pk}"' in form
    assert "Proposition players&#x27; day" in form or "Proposition players' day" in form


def test_a_wager_no_bank_covered_is_not_handle_and_pays_no_fee(dealer, card_table,
                                                               seat_player):
    # given seat 1 banks covering 50.00 with no proposition player against 100.00
    players = {n: seat_player(card_table, n, funds=100_000) for n in (1, 2)}
    round_id = dealer.open_round(card_table)["id"]
    dealer.wager(round_id, 2, "100.00")
    dealer.banker(round_id, seat=1, cover="50.00")
    played = dealer.settle(round_id, {"outcomes": {"2": "loss"}})

    report = table_day_report(table_id=card_table.pk,
                              gaming_day=date.fromisoformat(played["gaming_day"]))

    # then only the covered 50.00 is handle; 1.00 on 50.00 covered, 0.50 on the wager
    assert report.handle == 5_000
    assert (report.collection_banker, report.collection_players) == (100, 50)
    refs = [f"round:{round_id}"]
    assert _moved(refs, ref=player_account_ref(players[2].pk)) == -5_050
    assert _moved(refs, ref=f"table:{card_table.pk}") == report.house_result == 150


def test_a_closed_day_keeps_the_collection_by_kind(card_table, card_day, pit_boss_client):
    from datetime import timedelta

    from casino.shared.gaming_day import gaming_day_of

    # the card room's rounds, as if played on the previous gaming day (a day over)
    yesterday = gaming_day_of() - timedelta(days=1)
    played_rounds_rewritten(Round.objects.filter(table=card_table), gaming_day=yesterday)
    live = table_day_report(table_id=card_table.pk, gaming_day=yesterday)

    closed = pit_boss_client.post("/api/v1/gaming-days/close",
                                  {"gaming_day": str(yesterday)}, format="json")

    assert closed.status_code == 201, closed.json()
    (row, total) = closed.json()["tables"]
    assert (row["collection_banker"], row["collection_players"], row["house_result"]) == (
        "4.00", "2.50", "6.50")
    assert total["house_result"] == "6.50"
    stored = table_day_report(table_id=card_table.pk, gaming_day=yesterday)
    assert stored.closed and stored.collection == live.collection == 650
    assert stored.house_result == live.house_result
