"""A report laid out for its files: a title block, sections of rows, charts.

Cells hold typed values; money is already a ``Decimal`` of the currency's minor digits
(``Decimal("160.00")``), a percentage a ``Decimal``, an absent figure ``None``.
Each report kind declares its columns once, as a spec of ``Column``s: a field name for the
machine-read files (CSV, JSON) and the API, words for the ones a person reads (PDF, the HTML
page), and what the column holds, which says how every format shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from casino.shared.db import PRIMARY, ReadFrom
from casino.shared.money import format_minor

Cell = str | int | Decimal | date | datetime | bool | None

# What a column may hold: an amount in minor units of the row's currency (shown "160.00"),
# a ratio of two other figures (a Decimal), a count or id, text, a gaming day, a moment,
# a yes/no.
COLUMN_TYPES = ("money", "ratio", "int", "text", "date", "moment", "flag")


@dataclass(frozen=True)
class Column:
    name: str           # the field name in CSV, JSON and the API
    label: str          # the header in words; a ratio's says what it divides
    type: str           # one of COLUMN_TYPES
    # A ratio's division, by the figures' names: "house_result / handle".
    divides: str = ""
    # The row's attribute, when it is not ``name`` (the table's name shown as "table").
    source: str = ""
    # May be empty: a figure not known yet (the drop before its count), or one a row has
    # none of (the band on the floor's total).
    nullable: bool = False

    def __post_init__(self) -> None:
        assert self.type in COLUMN_TYPES, self.type
        # A ratio is read wrongly unless the reader knows what it divides (docs/rules.md).
        assert (self.type == "ratio") == bool(self.divides), self.name

    def cell(self, row: Any, currency: str = "") -> Cell:
        """This column's cell of a row of typed figures (minor units become decimals)."""
        value = getattr(row, self.source or self.name)
        if self.type == "money" and value is not None:
            return Decimal(format_minor(value, currency))
        return value


Spec = tuple[Column, ...]


def spec_row(spec: Spec, row: Any, currency: str = "") -> list[Cell]:
    """A row of typed figures as the spec's cells, in the spec's order."""
    return [column.cell(row, currency) for column in spec]


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
    # heads each row's column. Columns in ``omit`` are said elsewhere (title, period):
    # the PDF and the page leave them out, the CSV and the JSON keep every column.
    sheet: bool = False
    key: str = ""
    omit: tuple[str, ...] = ()
    # The columns as declared (name, label, type); empty for a section laid out by hand.
    spec: Spec = ()

    @classmethod
    def of(cls, title: str, spec: Sequence[Column], rows: list[list[Cell]],
           **layout: Any) -> Section:
        """A section whose columns, labels and types are the kind's one spec."""
        return cls(title, [c.name for c in spec], rows,
                   labels={c.name: c.label for c in spec}, spec=tuple(spec), **layout)

    def is_figure(self, column: str) -> bool | None:
        """Whether the column holds figures (aligned right), as its spec says; None when
        the section has no spec."""
        for c in self.spec:
            if c.name == column:
                return c.type in ("money", "ratio", "int")
        return None

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
    # Where the figures were read: the primary, or a replica and how far behind it was
    # (casino.shared.db.read_from, measured in the figures' own snapshot).
    read_from: ReadFrom = PRIMARY

    @property
    def file_stem(self) -> str:
        return f"{self.kind}-{self.period.replace(' ', '').replace('..', '_')}"
