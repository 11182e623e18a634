"""A section as a person reads it (the PDF and the HTML page): headers in words, times in
the casino's zone, and a table's day or a single row as a sheet of labelled figures
rather than a strip of columns. Only formats what the Document holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal

from casino.shared.money import decimal_show
from casino.shared.templatetags.casino_time import NOT_YET, casino_time_text
from reports.files.document import Cell, Section

# What a movement or account kind is called in a row (the field's value is a code).
_WORDS = {"opening": "Opening balance", "closing": "Closing balance", "total": "Total"}


def shown(value: Cell, column: str = "") -> str:
    """A cell for a person: ``1,160.00``, ``2 Dec 2026``, a time in the casino's zone, yes/no,
    a dash for nothing; a movement's kind in words (``round settlement``)."""
    if value is None:
        return NOT_YET
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime):
        return casino_time_text(value)
    if isinstance(value, date):
        return f"{value.day} {value:%b %Y}"
    if isinstance(value, Decimal):
        # A sum of money or a ratio, for a person: as the casino writes figures
        # (12,379.50 or 12.379,50); CSV and JSON keep the machine's 12379.50.
        return decimal_show(value)
    if isinstance(value, int):
        return str(value)   # a count or a number: rounds played, a player's #
    if value in _WORDS:
        return _WORDS[value]
    return value.replace("_", " ") if column == "kind" else value


@dataclass(frozen=True)
class Grid:
    """Text in rows under a header; which columns hold figures (aligned right) and which
    rows or columns are totals (set in bold)."""

    header: list[str]
    rows: list[list[str]]
    figures: list[bool]
    total_rows: set[int] = field(default_factory=set)       # 0 = the first body row
    total_columns: set[int] = field(default_factory=set)
    sheet: bool = False


def _is_figure(section: Section, col: int) -> bool:
    declared = section.is_figure(section.columns[col])
    if declared is not None:
        return declared and bool(section.rows)
    return bool(section.rows) and all(isinstance(row[col], int | Decimal) or row[col] is None
                                      for row in section.rows) and not all(
        isinstance(row[col], bool) for row in section.rows)


def _is_total(row: list[Cell]) -> bool:
    return any(isinstance(v, str) and v.lower() in {"total", "opening", "closing"}
               for v in row[:4])


def grid(section: Section) -> Grid:
    """The section as a strip (a row per record) or, for a sheet or a single record, as a
    line per figure with a column per record (label, figure)."""
    if section.rows and (section.sheet or len(section.rows) == 1):
        return _sheet(section)
    kept = [n for n, c in enumerate(section.columns) if c not in section.omit]
    return Grid(header=[section.label(section.columns[n]) for n in kept],
                rows=[[shown(row[n], section.columns[n]) for n in kept]
                      for row in section.rows],
                figures=[_is_figure(section, n) for n in kept],
                total_rows={n for n, row in enumerate(section.rows) if _is_total(row)})


def _sheet(section: Section) -> Grid:
    records = section.records()
    key = section.key if section.key in section.columns else ""
    heads = []
    for record in records:
        head = shown(record[key]) if key else "Figure"
        if "currency" in record and "currency" not in section.omit:
            head += f" ({record['currency']})"
        heads.append(head)
    skip = {key, "currency", *section.omit} if key else {"currency", *section.omit}
    if not key and len(records) == 1 and "currency" in section.columns:
        heads = [f"Figure ({records[0]['currency']})"]
    rows = [[section.label(column), *(shown(record[column], column) for record in records)]
            for column in section.columns if column not in skip]
    return Grid(header=["", *heads], rows=rows, figures=[False, *[True] * len(records)],
                total_columns={n + 1 for n, record in enumerate(records)
                               if _is_total(list(record.values()))}, sheet=True)
