"""A report laid out for its files: a title block, sections of rows, charts.

Cells hold typed values; money is already a ``Decimal`` of the currency's minor digits
(``Decimal("160.00")``), a percentage a ``Decimal``, an absent figure ``None``.
Columns are named twice: a field name for the machine-read files (CSV, JSON) and words for
the ones a person reads (PDF, the HTML page).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal

Cell = str | int | Decimal | date | datetime | bool | None


@dataclass(frozen=True)
class Section:
    title: str
    columns: list[str]
    rows: list[list[Cell]]
    # Each column's header in words ("Hold % (house result / handle)"); a column not
    # named here is shown by its field name with spaces.
    labels: dict[str, str] = field(default_factory=dict)
    # Read as a sheet (one line per figure, one column per row) rather than a strip of
    # columns: a table's day, the floor's tables. ``key`` names the column whose value
    # heads each row's column; columns in ``omit`` are said elsewhere (title, period).
    sheet: bool = False
    key: str = ""
    omit: tuple[str, ...] = ()

    def records(self) -> list[dict[str, Cell]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]

    def label(self, column: str) -> str:
        return self.labels.get(column) or column.replace("_", " ")


@dataclass(frozen=True)
class Chart:
    """Bars (one per label and series, ``{"series": {"label": value}}``), or a line through
    the labels in the order given (``style="line"``)."""

    title: str
    y_label: str
    series: dict[str, dict[str, Decimal]]
    file_stem: str
    style: str = "bars"
    x_label: str = ""


@dataclass(frozen=True)
class Document:
    kind: str
    title: str
    casino: str
    period: str
    made_at: datetime
    made_by: str
    chain_seq: int
    chain_hash: str
    # The first section is the CSV's (one header row); the PDF and JSON carry them all.
    sections: list[Section]
    charts: list[Chart] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)
    # The casino's zone, in which every time of the PDF and the page is shown.
    time_zone: str = ""

    @property
    def file_stem(self) -> str:
        return f"{self.kind}-{self.period.replace(' ', '').replace('..', '_')}"
