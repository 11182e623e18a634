"""The drop in the table's and the floor's day: each figure recomputed here from the
ledger's lines (docs/rules.md, "Drop and win")."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.db.models import Sum

from casino import roles
from casino.services import staff_create
from casino.shared.gaming_day import gaming_day_of
from casino.shared.money import format_minor
from ledger.models import Line
from rounds.models import Round

pytestmark = pytest.mark.django_db


def post(client, url, body, expect=201, witnessed=True):
    """Send it; a drop count is then confirmed by the witness it names (``witnessed``)."""
    response = client.post(url, body, format="json")
    assert response.status_code == expect, response.json()
    if witnessed and url.endswith("/drop-counts"):
        from django.contrib.auth import get_user_model

        from rounds.services.drop import drop_count_confirm

        witness = get_user_model().objects.get(username=body["witness"])
        drop_count_confirm(count_id=response.json()["id"], by=witness)
    return response.json()


def ledger_sum(**filters) -> int:
    return Line.objects.filter(**filters).aggregate(s=Sum("amount"))["s"] or 0


def ledger_figures(table, day):
    """The drop, the count and the win as the ledger's lines say them."""
    ref = f"table:{table.pk}"
    recorded = -ledger_sum(entry__kind="buy_in", account__kind="drop_box", account__ref=ref)
    counted = -ledger_sum(entry__kind="drop_count", entry__ref=ref, account__kind="cage")
    variance = ledger_sum(entry__kind="drop_variance", account__kind="drop_variance",
                          account__ref=ref)
    rounds = [f"round:{pk}" for pk in Round.objects.filter(
        table=table, gaming_day=day, state="settled").values_list("pk", flat=True)]
    win = ledger_sum(entry__ref__in=rounds, account__ref=ref)
    return recorded, counted, variance, win


@pytest.fixture
def witness(db):
    user, _ = staff_create(username="wendy", role=roles.COUNT)
    return user


@pytest.fixture
def played(dealer, dealer_client, table, seat_player):
    """Two players buy in at the table with cash (500.00) and play one house-banked round:
    seat 1 loses 100.00, seat 2 wins 50.00 (2.50 commission)."""
    seat_player(table, 1, funds=0)
    seat_player(table, 2, funds=0)
    post(dealer_client, f"/api/v1/tables/{table.pk}/buy-ins", {"seat": 1, "amount": "300.00"})
    post(dealer_client, f"/api/v1/tables/{table.pk}/buy-ins", {"seat": 2, "amount": "200.00"})
    dealer.house_round(table, {1: "100.00", 2: "50.00"}, {"1": "loss", "2": "win"})
    return gaming_day_of()


def report(client, table, day):
    response = client.get(f"/api/v1/tables/{table.pk}/report?gaming_day={day}")
    assert response.status_code == 200, response.json()
    return response.json()


def test_before_the_count_the_drop_is_the_buy_ins_recorded_and_nothing_is_counted(
        auditor_client, table, played):
    body = report(auditor_client, table, played)

    recorded, _, _, win = ledger_figures(table, played)
    assert body["drop_recorded"] == format_minor(recorded, "EUR") == "500.00"
    assert body["win"] == format_minor(win, "EUR") == body["house_result"] == "52.50"
    assert (body["drop"], body["drop_variance"], body["win_to_drop"]) == (None, None, None)


def test_after_the_count_the_report_shows_the_drop_its_variance_and_win_over_drop(
        auditor_client, cage_client, witness, table, played):
    post(cage_client, f"/api/v1/tables/{table.pk}/drop-counts",
         {"gaming_day": str(played), "counted": "480.00", "witness": witness.username,
          "reason": "a 20.00 note missing"})

    body = report(auditor_client, table, played)

    recorded, counted, variance, win = ledger_figures(table, played)
    assert (recorded, counted, variance) == (50_000, 48_000, -2_000)
    assert body["drop_recorded"] == format_minor(recorded, "EUR")
    assert body["drop"] == format_minor(counted, "EUR")
    assert body["drop_variance"] == format_minor(variance, "EUR") == "-20.00"
    assert body["win"] == format_minor(win, "EUR")
    ratio = (Decimal(win) / counted).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    assert body["win_to_drop"] == str(ratio) == "0.1094"     # 52.50 / 480.00


def test_a_count_awaiting_its_witness_is_not_yet_the_drop(auditor_client, cage_client,
                                                          witness, table, played):
    post(cage_client, f"/api/v1/tables/{table.pk}/drop-counts",
         {"gaming_day": str(played), "counted": "480.00", "witness": witness.username},
         witnessed=False)

    body = report(auditor_client, table, played)

    assert (body["drop_recorded"], body["drop"], body["drop_variance"]) == \
        ("500.00", None, None)


def test_a_box_counted_empty_has_no_win_over_drop(auditor_client, cage_client, witness,
                                                  table):
    day = gaming_day_of()
    post(cage_client, f"/api/v1/tables/{table.pk}/drop-counts",
         {"gaming_day": str(day), "counted": "0", "witness": witness.username})

    body = report(auditor_client, table, day)

    assert (body["drop_recorded"], body["drop"], body["drop_variance"]) == \
        ("0.00", "0.00", "0.00")
    assert body["win_to_drop"] is None


def test_the_floor_totals_the_drop_the_win_and_the_variance_of_its_tables(
        auditor_client, cage_client, dealer_client, witness, make_table, table, played,
        seat_player):
    # A second table took cash but dealt no round: the floor shows it all the same.
    quiet = make_table(name="Quiet table")
    seat_player(quiet, 1, funds=0, name="Quinn")
    post(dealer_client, f"/api/v1/tables/{quiet.pk}/buy-ins", {"seat": 1, "amount": "75.00"})
    for t, counted, reason in ((table, "480.00", "short"), (quiet, "80.00", "over")):
        post(cage_client, f"/api/v1/tables/{t.pk}/drop-counts",
             {"gaming_day": str(played), "counted": counted, "witness": witness.username,
              "reason": reason})

    response = auditor_client.get(f"/api/v1/floor/report?gaming_day={played}")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert [row["table"] for row in body["tables"]] == [table.pk, quiet.pk]
    (total,) = body["totals"]
    figures = [ledger_figures(t, played) for t in (table, quiet)]
    assert total["table"] is None
    assert total["drop_recorded"] == format_minor(sum(f[0] for f in figures), "EUR") == \
        "575.00"
    assert total["drop"] == format_minor(sum(f[1] for f in figures), "EUR") == "560.00"
    assert total["drop_variance"] == format_minor(sum(f[2] for f in figures), "EUR") == \
        "-15.00"
    assert total["win"] == format_minor(sum(f[3] for f in figures), "EUR") == "52.50"
    assert total["win_to_drop"] == "0.0938"        # 52.50 / 560.00


def test_the_floor_days_file_shows_the_drop_and_says_what_win_over_drop_divides(
        cage_client, witness, table, played):
    import csv
    import io

    from django.utils import timezone

    from reports.files.formats import FORMATS
    from reports.files.kinds import report_document

    post(cage_client, f"/api/v1/tables/{table.pk}/drop-counts",
         {"gaming_day": str(played), "counted": "480.00", "witness": witness.username,
          "reason": "a 20.00 note missing"})

    document = report_document(kind="floor_day", parameters={"gaming_day": played},
                               made_by="audrey (auditor)", made_at=timezone.now())

    rows = list(csv.DictReader(io.StringIO(FORMATS["csv"].render(document).decode())))
    assert [(r["table"], r["drop_recorded"], r["drop"], r["drop_variance"], r["win"],
             r["win_to_drop"]) for r in rows] == [
        (table.name, "500.00", "480.00", "-20.00", "52.50", "0.1094"),
        ("Total", "500.00", "480.00", "-20.00", "52.50", "0.1094")]
    labels = document.sections[0].labels
    assert labels["win_to_drop"] == "Win / drop (win divided by drop)"
    assert any("win / drop" in note for note in document.notes)


def test_the_report_command_prints_the_drop_and_win_over_drop(cage_client, witness, table,
                                                               played, capsys):
    from django.core.management import call_command

    post(cage_client, f"/api/v1/tables/{table.pk}/drop-counts",
         {"gaming_day": str(played), "counted": "480.00", "witness": witness.username,
          "reason": "a 20.00 note missing"})

    call_command("table_report", "--table", str(table.pk), "--day", str(played))

    lines = {" ".join(line.split()) for line in capsys.readouterr().out.splitlines()}
    for line in ("Drop recorded (buy-ins at the table) 500.00 EUR",
                 "Drop (cash counted in the drop box) 480.00 EUR",
                 "Drop variance (counted - recorded) -20.00 EUR",
                 "Win (the house result) 52.50 EUR", "Win / drop (win divided by drop) 0.1094"):
        assert line in lines, line


def test_a_buy_in_reversed_the_same_day_comes_out_of_the_drop_recorded(
        auditor_client, dealer_client, pit_boss_client, table, seat_player):
    seat_player(table, 3, funds=0)
    taken = post(dealer_client, f"/api/v1/tables/{table.pk}/buy-ins",
                 {"seat": 3, "amount": "60.00"})
    post(dealer_client, f"/api/v1/tables/{table.pk}/buy-ins", {"seat": 3, "amount": "40.00"})

    post(pit_boss_client, f"/api/v1/buy-ins/{taken['id']}/correct",
         {"reason": "keyed on the wrong table"})

    body = report(auditor_client, table, gaming_day_of())
    recorded, _, _, _ = ledger_figures(table, gaming_day_of())
    assert body["drop_recorded"] == format_minor(recorded - 6_000, "EUR") == "40.00"
