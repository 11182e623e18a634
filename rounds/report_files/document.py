"""A report laid out for its files: a title block, sections of rows, charts.

Cells hold typed values; money is already a ``Decimal`` of the currency's minor digits
(``Decimal("160.00")``), a percentage a ``Decimal``, an absent figure ``None``.
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

    def records(self) -> list[dict[str, Cell]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


@dataclass(frozen=True)
class Chart:
    """A bar chart: one bar per label and series (``{"series": {"label": value}}``)."""

    title: str
    y_label: str
    series: dict[str, dict[str, Decimal]]
    file_stem: str


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

    @property
    def file_stem(self) -> str:
        return f"{self.kind}-{self.period.replace(' ', '').replace('..', '_')}"
