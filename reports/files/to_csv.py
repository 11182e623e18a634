"""CSV: the document's first section, one header row, amounts as decimal strings."""

from __future__ import annotations

import csv
import io
from datetime import date, datetime
from decimal import Decimal

from django.utils import timezone

from casino.shared.spreadsheet import safe_cell
from reports.files.document import Cell, Document


def cell_text(value: Cell) -> str:
    """A cell as plain text: ``Decimal("160.00")`` -> ``"160.00"``, a time in ISO form in
    the casino's zone, ``None`` empty, a flag ``true``/``false``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return timezone.localtime(value).isoformat(timespec="seconds")
    if isinstance(value, date | Decimal | int):
        return str(value)
    return safe_cell(value)


def render_csv(document: Document) -> bytes:
    section = document.sections[0]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(section.columns)
    for row in section.rows:
        writer.writerow([cell_text(value) for value in row])
    return out.getvalue().encode("utf-8")
