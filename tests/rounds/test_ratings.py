"""The house edge of a table's rules, players' ratings and the day's expected band
(docs/rules.md, "House edge", "Player rating", "The expected result and its band")."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from datetime import date, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from html import escape
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from casino import roles
from casino.services import staff_create
from reports.files.formats import FORMATS
from reports.files.kinds import day_text, report_document
from reports.services import report_request
from rounds import edges
from rounds.models import EdgeFigures, SeatChange
from rounds.paigow.edge import edges_from_counts, precomputed_counts
from rounds.services import seat_leave

pytestmark = pytest.mark.django_db

EDGE_KEYS = {"player", "banker", "how", "confidence", "rounds", "variance_per_wager",
             "reference_wager"}


def _edge(client, table) -> dict:
    response = client.get(f"/api/v1/tables/{table.pk}/edge")
    assert response.status_code == 200, response.json()
    return response.json()


def _cents(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)


# --- the edge ----------------------------------------------------------------------------

def test_the_default_tables_edge_is_the_engines_and_is_kept(dealer_client, table,
                                                           monkeypatch):
    calls = []
    compute = edges.compute_edge_figures

    def counting(*args, **kwargs):
        calls.append(args)
        return compute(*args, **kwargs)

    monkeypatch.setattr(edges, "compute_edge_figures", counting)

    first = _edge(dealer_client, table)
    second = _edge(dealer_client, table)

    assert set(first) == EDGE_KEYS and first == second
    assert len(calls) == 1 and EdgeFigures.objects.count() == 1   # worked out once, kept
    assert first["how"] == "simulated"
    assert 0.015 < float(first["player"]) < 0.029                  # published: ~2.7 %
    assert first["reference_wager"] == "2.00"                      # the table minimum
    counts = precomputed_counts("foxwoods", "second_highest")
    assert counts is not None and first["rounds"] == counts["hands"]
    expected = edges_from_counts(counts, 0.05)
    assert Decimal(first["player"]) == Decimal(f"{expected.player:.5f}")
    assert Decimal(first["banker"]) == Decimal(f"{expected.banker:.5f}")
    assert Decimal(first["variance_per_wager"]) == Decimal(f"{expected.player_variance:.5f}")
    assert 0 < Decimal(first["confidence"]) < Decimal("0.001")


def test_commission_rounded_up_to_a_quarter_on_a_two_unit_minimum_costs_the_player_more(
        dealer_client, make_table):
    plain = _edge(dealer_client, make_table())
    quarter = _edge(dealer_client, make_table(commission_rounding="up_to_quarter"))

    # 5 % of 2.00 is 0.10, rounded up to 0.25: an eighth of the win.
    counts = precomputed_counts("foxwoods", "second_highest")
    assert counts is not None
    assert Decimal(quarter["player"]) == Decimal(
        f"{edges_from_counts(counts, 0.125).player:.5f}")
    assert Decimal(quarter["player"]) > Decimal(plain["player"])
    assert EdgeFigures.objects.count() == 2


def test_rules_without_a_committed_run_are_simulated_on_the_spot(dealer_client, make_table,
                                                                 monkeypatch):
    monkeypatch.setattr(edges.engine, "COUNTS_FILE", Path("/nonexistent/edge_counts.json"))
    monkeypatch.setattr(edges, "ON_DEMAND_HANDS", 3_000)

    body = _edge(dealer_client, make_table())

    assert body["how"] == "simulated" and body["rounds"] == 3_000
    # A short run says how uncertain it is: about 1.96 * sqrt(0.8 / 3000).
    assert Decimal("0.02") < Decimal(body["confidence"]) < Decimal("0.05")


@pytest.mark.parametrize("table_id", ["999999", "99999999999999999999"])
def test_an_unknown_table_has_no_edge(dealer_client, table_id):
    response = dealer_client.get(f"/api/v1/tables/{table_id}/edge")

    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


# --- ratings -----------------------------------------------------------------------------

def test_a_rating_adds_up_the_players_wagers_results_and_theoretical_win(
        dealer, auditor_client, table, seat_player):
    anna = seat_player(table, 1, name="Anna")
    bert = seat_player(table, 2, name="Bert")
    dealer.house_round(table, {1: "20.00", 2: "30.00"}, {"1": "win", "2": "loss"})
    day = dealer.house_round(table, {1: "45.00", 2: "10.00"},
                             {"1": "loss", "2": "push"})["gaming_day"]
    edge = Decimal(_edge(auditor_client, table)["player"])

    response = auditor_client.get(f"/api/v1/ratings?gaming_day={day}")

    assert response.status_code == 200
    rows = {r["player"]: r for r in response.json()}
    a, b = rows[anna.pk], rows[bert.pk]
    assert (a["player_name"], a["table"], a["table_name"], a["gaming_day"]) == (
        "Anna", table.pk, table.name, day)
    assert (a["rounds"], a["wagered"], a["average_wager"]) == (2, "65.00", "32.50")
    assert a["actual"] == "-26.00"              # +20.00 less 1.00 commission, then -45.00
    assert a["theoretical"] == str(_cents(Decimal("65.00") * edge))
    assert (b["rounds"], b["wagered"], b["average_wager"], b["actual"]) == (
        2, "40.00", "20.00", "-30.00")
    assert b["theoretical"] == str(_cents(Decimal("40.00") * edge))
    assert a["time_seated_s"] >= 0 and a["currency"] == table.currency

    one = auditor_client.get(f"/api/v1/ratings?gaming_day={day}&player={bert.pk}").json()
    assert [r["player"] for r in one] == [bert.pk]


def test_a_player_who_banked_is_rated_on_the_action_covered(auditor_client, dutch_seed):
    seed = dutch_seed
    table_edge = _edge(auditor_client, seed.table)

    body = auditor_client.get(
        f"/api/v1/ratings?gaming_day={seed.gaming_day}&player={seed.banker.pk}").json()

    (row,) = body
    # The warm-up: 100.00 against the house, pushed; then the bank covered 300.00 and won
    # 160.00, paid 140.00 and 1.00 commission on the net.
    assert (row["rounds"], row["rounds_banked"], row["wagered"], row["action_covered"]) == (
        2, 1, "100.00", "300.00")
    assert row["actual"] == "19.00"
    assert row["theoretical"] == str(_cents(Decimal("100.00") * Decimal(table_edge["player"])
                                            + Decimal("300.00") * Decimal(table_edge["banker"])))


def test_time_seated_comes_from_the_seat_changes(auditor_client, pit_boss, table,
                                                 seat_player, dealer):
    clara = seat_player(table, 3, name="Clara")
    dora = seat_player(table, 4, name="Dora")
    now = timezone.now()
    # Clara sat down ten minutes ago and left now; Dora sat down five minutes ago and stays.
    SeatChange.objects.filter(player=clara).update(at=now - timedelta(minutes=10))
    SeatChange.objects.filter(player=dora).update(at=now - timedelta(minutes=5))
    seat_leave(table_id=table.pk, number=3, by=pit_boss)
    day = dealer.house_round(table, {4: "10.00"}, {"4": "push"})["gaming_day"]

    rows = {r["player"]: r for r in
            auditor_client.get(f"/api/v1/ratings?gaming_day={day}").json()}

    assert 600 <= rows[clara.pk]["time_seated_s"] <= 610
    assert rows[clara.pk]["rounds"] == 0 and rows[clara.pk]["wagered"] == "0.00"
    assert 300 <= rows[dora.pk]["time_seated_s"] <= 320
    assert rows[dora.pk]["rounds"] == 1


def test_ratings_need_a_gaming_day_and_a_pit_boss_or_auditor(auditor_client, dealer_client):
    assert auditor_client.get("/api/v1/ratings").status_code == 400
    assert auditor_client.get("/api/v1/ratings?gaming_day=2026-13-01").status_code == 400
    assert auditor_client.get("/api/v1/ratings?gaming_day=2026-01-01&player=999999"
                              ).status_code == 404
    for player in ("0", "x", "99999999999999999999"):
        response = auditor_client.get(f"/api/v1/ratings?gaming_day=2026-01-01&player={player}")
        assert response.status_code == 400, player
        assert response.json()["error"]["code"] == "invalid"
    assert dealer_client.get("/api/v1/ratings?gaming_day=2026-01-01").status_code == 403
    assert auditor_client.get("/api/v1/ratings?gaming_day=2020-01-01").json() == []


def test_the_rating_report_renders_in_every_format(dutch_seed,
                                                  django_capture_on_commit_callbacks):
    day = date.fromisoformat(dutch_seed.gaming_day)
    document = report_document(kind="rating", parameters={"gaming_day": day},
                               made_by="audrey (auditor)", made_at=timezone.now())

    rows = list(csv.DictReader(io.StringIO(FORMATS["csv"].render(document).decode())))
    bram = next(r for r in rows if r["player_name"] == "Banker Bram")
    assert (bram["action_covered"], bram["actual"]) == ("300.00", "19.00")
    data = json.loads(FORMATS["json"].render(document))
    assert "Banker Bram" in json.dumps(data)
    assert FORMATS["pdf"].render(document).startswith(b"%PDF")

    auditor, _ = staff_create(username="audrey", role=roles.AUDITOR)
    with django_capture_on_commit_callbacks(execute=True):
        report = report_request(kind="rating", format="csv",
                                parameters={"gaming_day": dutch_seed.gaming_day}, by=auditor)
    report.refresh_from_db()
    assert report.status == "done", report.error
    client = Client()
    client.force_login(auditor)
    assert "Gaming day" in client.get("/reports/?kind=rating").content.decode()
    page = client.get(f"/reports/{report.pk}/")
    assert page.status_code == 200
    assert "Banker Bram" in page.content.decode() and "Theoretical win" in page.content.decode()


def test_the_players_page_shows_their_ratings_and_the_floor_links_to_it(dutch_seed):
    boss, _ = staff_create(username="pia", role=roles.PIT_BOSS)
    client = Client()
    client.force_login(boss)

    page = client.get(f"/players/{dutch_seed.banker.pk}/ratings/")

    assert page.status_code == 200
    text = page.content.decode()
    assert "Banker Bram" in text and "300.00" in text and "19.00" in text
    floor = client.get("/").content.decode()
    assert f"/players/{dutch_seed.banker.pk}/ratings/" in floor

    assert client.get("/players/999999/ratings/").status_code == 404
    assert client.get("/players/99999999999999999999/ratings/").status_code == 404
    dealer, _ = staff_create(username="dirk", role=roles.DEALER)
    client.force_login(dealer)
    assert client.get(f"/players/{dutch_seed.banker.pk}/ratings/").status_code == 403


# --- the expected band -------------------------------------------------------------------

def test_a_day_of_big_house_wins_is_outside_its_band(dealer, auditor_client, make_table,
                                                    seat_player, settings):
    # The check starts at four rounds here (30 by default: tests/rounds/test_variance_flag).
    settings.CASINO_VARIANCE_MIN_ROUNDS = 4
    table = make_table(name="Table 3")
    seat_player(table, 1)
    for _ in range(4):
        day = dealer.house_round(table, {1: "100.00"}, {"1": "loss"})["gaming_day"]
    edge = _edge(auditor_client, table)

    body = auditor_client.get(f"/api/v1/tables/{table.pk}/report?gaming_day={day}").json()

    expected = _cents(Decimal("400.00") * Decimal(edge["player"]))
    band = _cents(Decimal("1.96") * Decimal(
        4 * 100 ** 2 * Decimal(edge["variance_per_wager"])).sqrt())
    assert (body["band_handle"], body["band_result"]) == ("400.00", "400.00")
    assert body["expected"] == str(expected) and body["band"] == str(band)
    assert body["outside_band"] is True                        # 400 - ~11 > ~351
    floor_file = json.loads(FORMATS["json"].render(report_document(
        kind="floor_day", parameters={"gaming_day": date.fromisoformat(day)},
        made_by="a", made_at=timezone.now())))
    (row,) = [r for r in floor_file["sections"][0]["rows"] if r["table"] == "Table 3"]
    assert (row["expected"], row["band"], row["outside_band"]) == (
        str(expected), str(band), True)
    (note,) = [n for n in floor_file["notes"] if "outside its expected band" in n]

    boss, _ = staff_create(username="pia", role=roles.PIT_BOSS)
    client = Client()
    client.force_login(boss)
    floor = client.get("/").content.decode()
    assert "Table 3&#x27;s result today is outside its expected band" in floor
    # the floor's sentence is the report's, the day said as "today"
    said = note.replace(f"on {day_text(date.fromisoformat(day))}", "today")
    assert said != note and escape(said) in floor


def test_a_day_of_ordinary_results_is_inside_its_band(dealer, auditor_client, table,
                                                     seat_player):
    seat_player(table, 1)
    seat_player(table, 2)
    day = dealer.house_round(table, {1: "100.00", 2: "100.00"},
                             {"1": "win", "2": "loss"})["gaming_day"]

    body = auditor_client.get(f"/api/v1/tables/{table.pk}/report?gaming_day={day}").json()

    assert body["band_result"] == "5.00"                       # +100.00 - 95.00
    assert body["outside_band"] is False
    assert abs(Decimal(body["band_result"]) - Decimal(body["expected"])) <= Decimal(
        body["band"])


# --- the rules page ----------------------------------------------------------------------

def test_the_rules_page_shows_the_engines_edges_of_the_default_rules(table):
    figures = edges.table_edge(table_id=table.pk)[1]
    text = (Path(settings.BASE_DIR) / "docs" / "rules.md").read_text()
    section = text[text.index("## 12. House edge"):]

    for name, value in (("player", figures.player), ("banker", figures.banker),
                        ("confidence", figures.confidence),
                        ("variance", figures.variance_per_wager)):
        assert re.search(rf"\b{re.escape(str(value))}\b", section), (name, value)
    assert f"{figures.rounds:,}" in section
    assert math.isclose(float(figures.player), 0.027, abs_tol=0.003)


def test_a_player_seated_before_the_day_began_counts_from_its_start(auditor_client, table,
                                                                   seat_player, pit_boss):
    from casino.shared.gaming_day import gaming_day_of, gaming_day_start

    today = gaming_day_of()
    eve = seat_player(table, 5, name="Eve")
    fred = seat_player(table, 6, name="Fred")
    start = gaming_day_start(today)
    # Eve sat down the day before and is still seated; Fred sat and left the day before.
    SeatChange.objects.filter(player=eve).update(at=start - timedelta(hours=3))
    SeatChange.objects.filter(player=fred).update(at=start - timedelta(hours=3))
    seat_leave(table_id=table.pk, number=6, by=pit_boss)
    SeatChange.objects.filter(player=fred, kind="left").update(at=start - timedelta(hours=2))

    rows = {r["player"]: r for r in
            auditor_client.get(f"/api/v1/ratings?gaming_day={today}").json()}

    seated = (timezone.now() - start).total_seconds()
    assert seated - 5 <= rows[eve.pk]["time_seated_s"] <= seated + 1
    assert fred.pk not in rows
    yesterday = auditor_client.get(
        f"/api/v1/ratings?gaming_day={today - timedelta(days=1)}").json()
    assert {r["player"]: r["time_seated_s"] for r in yesterday} == {
        eve.pk: 3 * 3600, fred.pk: 3600}


def test_the_kept_edges_are_read_in_the_admin_and_never_edited(dealer_client, table):
    _edge(dealer_client, table)
    auditor, _ = staff_create(username="aud", role=roles.AUDITOR)
    client = Client()
    client.force_login(auditor)
    row = EdgeFigures.objects.get()

    listing = client.get("/admin/rounds/edgefigures/")
    detail = client.get(f"/admin/rounds/edgefigures/{row.pk}/change/")

    assert listing.status_code == 200 and "foxwoods, wheel second_highest" in (
        listing.content.decode())
    assert detail.status_code == 200 and str(row.player) in detail.content.decode()
    assert client.post(f"/admin/rounds/edgefigures/{row.pk}/delete/", {"post": "yes"}
                       ).status_code == 403
    assert EdgeFigures.objects.filter(pk=row.pk).exists()


def test_a_remade_run_gives_new_figures_and_keeps_the_old(dealer_client, table, monkeypatch,
                                                         tmp_path):
    old = _edge(dealer_client, table)
    remade = tmp_path / "edge_counts.json"
    remade.write_text(json.dumps({"runs": {"foxwoods/second_highest": {
        "hands": 1000, "win": 280, "push": 420, "loss": 300}}}))
    monkeypatch.setattr(edges.engine, "COUNTS_FILE", remade)

    new = _edge(dealer_client, table)

    assert new["rounds"] == 1000
    assert Decimal(new["player"]) == Decimal("0.03400")      # 0.300 - 0.280 x 0.95
    assert EdgeFigures.objects.count() == 2 and old != new


def test_a_wager_of_tens_of_millions_squares_without_overflowing_the_band(
        dealer, auditor_client, make_table, seat_player, settings):
    # 31,000,000.00 is 3.1e9 minor units: squared in bigint it would overflow (9.2e18)
    settings.CASINO_CAGE_APPROVAL_ABOVE = "100000000.00"   # the cage's own cap aside
    table = make_table(name="High limit", max_bet=5_000_000_000)
    seat_player(table, 1, funds=4_000_000_000)
    day = dealer.house_round(table, {1: "31000000.00"}, {"1": "loss"})["gaming_day"]
    edge = _edge(auditor_client, table)

    answer = auditor_client.get(f"/api/v1/tables/{table.pk}/report?gaming_day={day}")

    assert answer.status_code == 200, answer.content[:300]
    band = _cents(Decimal("1.96") * Decimal(
        3_100_000_000 ** 2 * Decimal(edge["variance_per_wager"])).sqrt() / 100)
    assert answer.json()["band"] == str(band)
