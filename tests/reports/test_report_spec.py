"""Every report kind is laid out from its one column spec, and every format shows the same
columns: the CSV's header, the JSON's columns, the page's and the PDF's labels, and for a
table's day the API's fields with the same values."""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from typing import Any

import pytest
from django.utils import timezone

from reports.files.document import Document, Section
from reports.files.formats import FORMATS
from reports.files.kinds import KINDS, TABLE_DAY, report_document
from reports.files.readable import grid
from reports.files.to_csv import cell_text
from tests.rounds.conftest import DutchSeed

pytestmark = pytest.mark.django_db


def _parameters(kind: str, seed: DutchSeed) -> dict[str, Any]:
    day = date.fromisoformat(seed.gaming_day)
    every = {"table": seed.table.pk, "gaming_day": day, "date_from": day, "date_to": day,
             "player": seed.players[3].pk, "as_of": timezone.now()}
    return {name: every[name] for name in KINDS[kind].parameters}


def _document(kind: str, seed: DutchSeed) -> Document:
    return report_document(kind=kind, parameters=_parameters(kind, seed),
                           made_by="audrey (auditor)", made_at=timezone.now())


@pytest.mark.slow  # seconds of fuzzing, sampling or waiting: make test runs it
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_renders_the_columns_of_its_one_spec_in_every_format(dutch_seed, kind):
    document = _document(kind, dutch_seed)

    for section in document.sections:
        # laid out from a spec, not from names and words written apart
        assert section.spec, f"{kind}: {section.title} has no column spec"
        assert section.columns == [c.name for c in section.spec]
        assert all(section.label(c.name) == c.label for c in section.spec)
        for c in section.spec:
            if c.type == "ratio":   # a ratio says what it divides, in its words
                numerator, denominator = (s.strip() for s in c.divides.split("/"))
                assert {numerator, denominator} <= {x.name for x in section.spec}
        for row in section.rows:
            assert len(row) == len(section.spec)

    first = document.sections[0]
    header = next(csv.reader(io.StringIO(FORMATS["csv"].render(document).decode())))
    assert header == first.columns
    body = json.loads(FORMATS["json"].render(document))
    assert [s["columns"] for s in body["sections"]] == [s.columns for s in document.sections]
    for s, section in zip(body["sections"], document.sections, strict=True):
        assert all(list(row) == section.columns for row in s["rows"])
    # the HTML page and the PDF show each section as grid() lays it out
    for section in document.sections:
        _assert_page_labels(section)
    assert FORMATS["pdf"].render(document).startswith(b"%PDF")


def _assert_page_labels(section: Section) -> None:
    shown = grid(section)
    # a column said in the title (omit) is left out of the page and the PDF
    labels = {c.label for c in section.spec if c.name not in section.omit}
    if not section.rows:
        return
    if shown.sheet:
        skip = {section.key, "currency", *section.omit}
        expected = [c.label for c in section.spec if c.name not in skip]
        assert [row[0] for row in shown.rows] == expected
    else:
        assert set(shown.header) == labels


@pytest.mark.parametrize("kind", ["table_day", "floor_day"])
def test_the_apis_table_day_has_every_column_of_the_files_with_the_same_values(
        dutch_seed, auditor_client, kind):
    document = _document(kind, dutch_seed)
    day = dutch_seed.gaming_day
    if kind == "table_day":
        rows = [auditor_client.get(
            f"/api/v1/tables/{dutch_seed.table.pk}/report?gaming_day={day}").json()]
    else:
        floor = auditor_client.get(f"/api/v1/floor/report?gaming_day={day}").json()
        rows = [*floor["tables"], *floor["totals"]]
        assert floor["read_from"]["said"] == document.read_from.sentence

    files = document.sections[0].records()
    assert len(rows) == len(files)
    for api, file in zip(rows, files, strict=True):
        assert {c.name for c in TABLE_DAY} <= set(api)
        for c in TABLE_DAY:
            if c.name == "table":   # the API names the table by its id and its name
                assert api["table_name"] == file["table"]
                continue
            value = api[c.name]
            said = "" if value is None else (
                ("true" if value else "false") if isinstance(value, bool) else str(value))
            assert said == cell_text(file[c.name]), c.name


def test_the_apis_ratings_are_the_rating_files_columns_with_the_same_values(
        dutch_seed, auditor_client):
    document = _document("rating", dutch_seed)

    rows = auditor_client.get(f"/api/v1/ratings?gaming_day={dutch_seed.gaming_day}").json()

    files = document.sections[0].records()
    assert rows and len(rows) == len(files)
    for api, file in zip(rows, files, strict=True):
        assert list(api) == document.sections[0].columns
        # a seated player's time runs on between the two reads
        assert 0 <= api.pop("time_seated_s") - int(cell_text(file.pop("time_seated_s"))) <= 5
        assert {k: "" if v is None else str(v) for k, v in api.items()} == {
            k: cell_text(v) for k, v in file.items()}
