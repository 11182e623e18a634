"""The report files: CSV parsed back, JSON read, PDF turned into text (pdftotext) and its
first page into a PNG (pdftoppm, kept under .data/reports/ to be looked at)."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from reports.files.document import Document, Section
from reports.files.formats import FORMATS
from reports.files.kinds import report_document
from reports.files.readable import grid
from tests.conftest import newest_block, played_rounds_rewritten
from tests.rounds.conftest import DutchSeed

pytestmark = pytest.mark.django_db

ARTEFACTS = Path(settings.BASE_DIR) / ".data" / "reports"
needs_poppler = pytest.mark.skipif(shutil.which("pdftoppm") is None,
                                   reason="needs poppler-utils (pdftoppm, pdftotext)")


def _document(kind: str, seed: DutchSeed, **parameters) -> Document:
    day = date.fromisoformat(seed.gaming_day)
    every: dict[str, dict[str, Any]] = {"table_day": {"table": seed.table.pk, "gaming_day": day},
                "floor_day": {"gaming_day": day},
                "banker": {"date_from": day, "date_to": day},
                "player_statement": {"player": seed.players[3].pk, "date_from": day,
                                     "date_to": day},
                "trial_balance": {"as_of": timezone.now()}}
    defaults = every[kind]
    return report_document(kind=kind, parameters={**defaults, **parameters},
                           made_by="audrey (auditor)", made_at=timezone.now())


def _csv(document: Document) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(FORMATS["csv"].render(document).decode())))


def test_the_banker_csv_has_the_dutch_seed_line_in_the_named_columns(dutch_seed):
    rows = _csv(_document("banker", dutch_seed))

    assert list(rows[0])[:14] == ["gaming_day", "table", "round", "party", "player",
                                  "co_banked", "house_stake", "covered", "bank_won",
                                  "bank_paid", "net", "commission", "fee", "result"]
    (line,) = rows
    assert line["gaming_day"] == dutch_seed.gaming_day and line["player"] == "Banker Bram"
    assert line["party"] == "player_banker"
    assert (line["house_stake"], line["covered"], line["bank_won"], line["bank_paid"],
            line["net"], line["commission"], line["fee"], line["result"]) == (
        "0.00", "300.00", "160.00", "140.00", "20.00", "1.00", "0.00", "19.00")


def test_the_table_day_csv_names_the_issues_columns_and_the_days_commissions(dutch_seed):
    rows = _csv(_document("table_day", dutch_seed))

    required = ["gaming_day", "table", "rounds_settled", "rounds_house_banked",
                "rounds_player_banked", "rounds_voided", "rounds_reversed", "handle",
                "house_win_house_banked", "house_win_house_stakes", "commission_players",
                "commission_bankers", "house_result", "hold_percent"]
    (row,) = rows
    assert set(required) <= set(row)
    assert (row["handle"], row["commission_players"], row["commission_bankers"],
            row["house_result"], row["hold_percent"]) == ("400.00", "7.00", "1.00", "8.00",
                                                          "2.00")


def test_the_floor_csv_ends_with_the_total_row(dutch_seed):
    rows = _csv(_document("floor_day", dutch_seed))

    assert [r["table"] for r in rows] == [dutch_seed.table.name, "Total"]
    assert rows[-1]["commission_bankers"] == "1.00" and rows[-1]["house_result"] == "8.00"


def test_the_statement_csv_runs_from_opening_to_closing_with_the_round(dutch_seed):
    rows = _csv(_document("player_statement", dutch_seed))

    assert list(rows[0])[:6] == ["posted_at", "entry", "kind", "reference", "amount",
                                 "balance"]
    assert rows[0]["kind"] == "opening" and rows[0]["balance"] == "0.00"
    round_line = next(r for r in rows if r["reference"] == f"round:{dutch_seed.round_id}")
    assert round_line["amount"] == "95.00" and round_line["balance"] == "595.00"
    assert rows[-1]["kind"] == "closing" and rows[-1]["balance"] == "595.00"
    running = Decimal("0.00")
    for r in rows[1:-1]:
        running += Decimal(r["amount"])
        assert Decimal(r["balance"]) == running
    # every row names the player; the files a person reads say it once, in the title
    player = dutch_seed.players[3]
    assert {(r["player"], r["player_name"]) for r in rows} == {(str(player.pk), player.name)}
    document = _document("player_statement", dutch_seed)
    assert player.name in document.title
    assert not {"Player #", "Player"} & set(grid(document.sections[0]).header)


def test_the_trial_balance_json_sums_to_zero_and_names_the_chain_head(dutch_seed):

    body = json.loads(FORMATS["json"].render(_document("trial_balance", dutch_seed)))

    head = newest_block()
    assert body["chain_head"] == {"seq": head.seq, "hash": head.hash}
    rows = body["sections"][0]["rows"]
    (grand,) = [r for r in rows if r["account"] == "total" and r["kind"] == "all"]
    assert grand["posted"] == "0.00"
    assert sum(Decimal(r["posted"]) for r in rows if r["account"] != "total") == 0
    assert "check out" in body["notes"][0]
    assert body["read_from"]["replica"] is False
    assert body["read_from"]["said"] == "Read from the primary database (no replica configured)."


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path is not None, name
    return path


def _pdf_text(pdf: bytes, tmp_path: Path) -> str:
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    return subprocess.run([_tool("pdftotext"), "-layout", str(path), "-"], check=True,
                          capture_output=True, text=True).stdout


def _first_page_png(pdf: bytes, name: str, tmp_path: Path) -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    source = tmp_path / f"{name}.pdf"
    source.write_bytes(pdf)
    subprocess.run([_tool("pdftoppm"), "-png", "-r", "70", "-f", "1", "-l", "1", "-singlefile",
                    str(source), str(ARTEFACTS / name)], check=True)
    return ARTEFACTS / f"{name}.png"


@needs_poppler
@pytest.mark.parametrize(("kind", "figures"), [
    ("table_day", ["400.00", "7.00", "1.00", "8.00", "2.00"]),
    ("floor_day", ["Total", "400.00", "8.00"]),
    ("banker", ["Banker Bram", "300.00", "160.00", "140.00", "20.00", "1.00"]),
    ("player_statement", ["Opening balance", "95.00", "595.00", "Closing balance"]),
    ("trial_balance", ["check out", "0.00"]),
])
def test_each_pdf_kind_has_its_title_block_and_figures(dutch_seed, tmp_path, kind, figures):
    document = _document(kind, dutch_seed)

    pdf = FORMATS["pdf"].render(document)

    assert pdf.startswith(b"%PDF")
    text = _pdf_text(pdf, tmp_path)
    assert settings.CASINO_NAME in text and "audrey (auditor)" in text
    # nothing of the test's own transaction is sealed: the title block says so in words
    assert document.chain_seq == 0
    assert "Ledger sealed through: no block yet (entries are sealed into blocks within" \
        in " ".join(text.split())
    assert ("Database: Read from the primary database (no replica configured)."
            in " ".join(text.split()))
    for figure in figures:
        assert figure in text, figure
    png = _first_page_png(pdf, f"report-{kind}", tmp_path)
    assert png.stat().st_size > 10_000


@needs_poppler
def test_a_sealed_block_is_named_on_the_title_block_with_its_hash(tmp_path):
    document = Document(
        kind="test", title="Sealed", casino="C", period="p", made_at=timezone.now(),
        made_by="x", chain_seq=7, chain_hash="ab" * 32, sections=[])

    text = " ".join(_pdf_text(FORMATS["pdf"].render(document), tmp_path).split())

    assert f"Ledger sealed through: block 7, hash {'ab' * 32}"[:60] in text
    assert "no block yet" not in text


@needs_poppler
def test_a_long_table_breaks_across_pages_and_repeats_its_header(tmp_path):
    rows: list[list] = [[n, f"row {n}", Decimal("1.00") * n] for n in range(1, 121)]
    document = Document(
        kind="test", title="Long", casino="C", period="p", made_at=timezone.now(),
        made_by="x", chain_seq=0, chain_hash="0" * 64,
        sections=[Section("Rows", ["number", "label", "amount_column"], rows)])

    text = _pdf_text(FORMATS["pdf"].render(document), tmp_path)

    pages = text.split("\f")
    assert len([p for p in pages if p.strip()]) >= 2
    assert all("amount column" in page for page in pages if "row " in page), pages
    assert "row 120" in pages[-1] or "row 120" in pages[-2]


def test_csv_cells_are_plain_text():
    from reports.files.to_csv import cell_text

    assert cell_text(Decimal("-0.05")) == "-0.05"
    assert cell_text(None) == "" and cell_text(True) == "true"
    assert cell_text(date(2026, 1, 2)) == "2026-01-02"
    assert cell_text(datetime(2026, 1, 2, 5, tzinfo=UTC)).startswith(
        "2026-01-02T06:00:00+01:00")


def test_a_pdf_tables_columns_fit_their_longest_header_word_and_figure_and_fill_the_page():
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from reports.files.to_pdf import HEADER, _column_widths

    # the nineteen columns of a table's day: "commission" does not fit a nineteenth of
    # the page, so equal columns broke it inside the word
    titles = ["gaming day", "table", "rounds settled", "rounds house banked",
              "rounds player banked", "rounds co banked", "rounds voided", "rounds reversed",
              "handle", "house stakes", "house win house banked", "house stake result",
              "commission players", "commission bankers", "house result", "hold percent",
              "adjustments", "closed", "currency"]
    body = [["2026-12-01", "Table 1", "4", "2", "2", "0", "0", "0", "123456.00", "100.00",
             "-68.00", "-50.00", "15.20", "7.30", "-95.50", "-8.24", "0.00", "false", "EUR"]]
    width = 273 * 72 / 25.4  # landscape A4 less the margins, in points

    widths = _column_widths(titles, body, width)

    assert sum(widths) == pytest.approx(width)
    for title, cell, column in zip(titles, body[0], widths, strict=True):
        longest = max(stringWidth(w, "Helvetica-Bold", HEADER.fontSize) for w in title.split())
        assert column >= longest + 12, title
        assert column >= stringWidth(cell, "Helvetica-Bold", 7) + 12, cell
    assert width / len(titles) < stringWidth("commission", "Helvetica-Bold", HEADER.fontSize) + 12


def test_a_pdf_table_too_wide_for_the_page_keeps_its_figures_whole_and_shares_out_the_rest():
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from reports.files.to_pdf import HEADER, _column_widths

    # a statement whose memo is far longer than the page is wide
    titles = ["posted", "movement", "memo", "amount"]
    body = [["2026-12-01 18:29", "Deposit", "a long memo " * 40, "-1234.00"]]
    width = 500.0

    widths = _column_widths(titles, body, width)

    assert sum(widths) == pytest.approx(width)
    for col in (0, 1, 3):  # the narrow columns keep all they need
        need = max(stringWidth(body[0][col], "Helvetica-Bold", 7),
                   *(stringWidth(w, "Helvetica-Bold", HEADER.fontSize)
                     for w in titles[col].split()))
        assert widths[col] == pytest.approx(need + 12)
    assert widths[2] == pytest.approx(width - widths[0] - widths[1] - widths[3])


def test_a_report_csv_text_cell_never_starts_a_formula():
    from reports.files.to_csv import cell_text

    # a player's name as a formula is text in the file; an amount stays a number
    assert cell_text('=HYPERLINK("http://x.example")') == '\'=HYPERLINK("http://x.example")'
    assert cell_text(Decimal("-120.00")) == "-120.00"


def _all_pages_png(pdf: bytes, name: str, tmp_path: Path) -> list[Path]:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    source = tmp_path / f"{name}.pdf"
    source.write_bytes(pdf)
    subprocess.run([_tool("pdftoppm"), "-png", "-r", "80", str(source), str(ARTEFACTS / name)],
                   check=True)
    return sorted(ARTEFACTS.glob(f"{name}-*.png"))


@needs_poppler
def test_a_tables_day_pdf_is_a_sheet_of_labelled_figures_not_a_strip_of_field_names(
        dutch_seed, tmp_path):
    document = _document("table_day", dutch_seed)

    text = _pdf_text(FORMATS["pdf"].render(document), tmp_path)

    lines = {" ".join(line.split()) for line in text.splitlines()}
    # one line per figure: its label in words, then the figure
    for line in ["Handle (wagers against a bank) 400.00", "Commission from winning players 7.00",
                 "Commission from player bankers 1.00", "House result (the six above) 8.00",
                 "Hold % (house result / handle) 2.00", "Rounds settled 2"]:
        assert line in lines, line
    assert f"{dutch_seed.table.name} (EUR)" in text
    for field_name in ("rounds co banked", "closed false", "false", "hold percent",
                       "house_result"):
        assert field_name not in text, field_name
    assert "win / drop" in text                         # which hold it is, said
    assert "Europe/Amsterdam" in text


def test_a_one_hour_day_has_no_chart_and_a_day_over_hours_has_its_result_by_hour(dutch_seed):
    from rounds.models import Round

    assert _document("table_day", dutch_seed).charts == []
    warm_up = Round.objects.get(pk=dutch_seed.warm_up["id"])
    assert warm_up.settled_at is not None
    played_rounds_rewritten(Round.objects.filter(pk=warm_up.pk),
                            settled_at=warm_up.settled_at - timedelta(hours=2))

    (chart,) = _document("table_day", dutch_seed).charts

    (values,) = chart.series.values()
    assert len(values) == 3                    # every hour from the first to the last
    assert sum(values.values()) == Decimal("8.00") == Decimal(
        _csv(_document("table_day", dutch_seed))[0]["house_result"])
    assert all(label.endswith(":00") for label in values)


def test_a_floor_of_two_tables_compares_their_hold(dutch_seed, dealer, make_table,
                                                   seat_player):
    other = make_table(name="Table B")
    seat_player(other, 1, funds=10_000)
    dealer.house_round(other, {1: "30.00"}, {"1": "loss"})

    charts = _document("floor_day", dutch_seed).charts

    (hold,) = [c for c in charts if c.file_stem == "hold-by-table"]
    assert "house result / handle" in hold.title
    assert hold.series == {"EUR": {dutch_seed.table.name: Decimal("2.00"),
                                   "Table B": Decimal("100.00")}}


@needs_poppler
def test_the_statement_pdf_shows_its_times_on_the_casinos_clock(dutch_seed, tmp_path):
    from ledger.models import Entry

    entry = Entry.objects.get(ref=f"round:{dutch_seed.round_id}")
    document = _document("player_statement", dutch_seed)

    pdf = FORMATS["pdf"].render(document)

    text = _pdf_text(pdf, tmp_path)
    assert timezone.localtime(entry.created_at).strftime("%Y-%m-%d %H:%M:%S") in text
    assert "+01:00" not in text and "T0" not in text   # no ISO stamps
    assert "Posted at" in text and "Balance after" in text and "round settlement" in text
    assert _all_pages_png(pdf, "statement", tmp_path)


def test_the_service_reads_an_empty_moment_as_now_and_refuses_one_without_offset(db):
    from casino.shared.errors import ValidationFailed
    from reports.files.kinds import report_parameters

    before = timezone.now()
    for empty in ({}, {"as_of": ""}, {"as_of": None}):
        moment = report_parameters(kind="trial_balance", raw=empty)["as_of"]
        assert before <= moment <= timezone.now()
    with pytest.raises(ValidationFailed):
        report_parameters(kind="trial_balance", raw={"as_of": "2026-01-01T10:00:00"})
    # a kind without a default still needs its parameters
    with pytest.raises(ValidationFailed):
        report_parameters(kind="floor_day", raw={"gaming_day": ""})


@needs_poppler
def test_a_floor_wider_than_the_page_goes_on_in_a_second_sheet_with_its_labels(tmp_path):
    from reports.files.kinds import TABLE_DAY_COLUMNS, _day_section

    def row(name: str, handle: str) -> list:
        figures: dict[str, Any] = dict.fromkeys(TABLE_DAY_COLUMNS, Decimal("0.00"))
        figures.update(gaming_day=date(2026, 12, 1), table=name, handle=Decimal(handle),
                       closed=False, currency="EUR", hold_percent=None)
        return [figures[c] for c in TABLE_DAY_COLUMNS]

    rows = [row(f"Table {n}", f"{n}000.00") for n in range(1, 15)] + [row("Total", "105000.00")]
    document = Document(
        kind="floor_day", title="Floor day", casino="C", period="p", made_at=timezone.now(),
        made_by="x", chain_seq=0, chain_hash="0" * 64,
        sections=[_day_section("Tables and total", rows)])

    text = _pdf_text(FORMATS["pdf"].render(document), tmp_path)

    # a person reads the figures with the thousands separated, as the casino writes them
    for n in range(1, 15):
        assert f"Table {n} (EUR)" in text and f"{n},000.00" in text
    assert "Total (EUR)" in text and "105,000.00" in text
    assert text.count("Handle (wagers against a bank)") >= 2    # the labels again
    lines = [line for line in text.splitlines() if "Handle (wagers" in line]
    assert all(len(line.split()) <= 4 + 8 for line in lines)   # never a 15-column strip
