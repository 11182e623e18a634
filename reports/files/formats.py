"""The file formats a report is written in: renderer, content type, file extension."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from reports.files.document import Document
from reports.files.to_csv import render_csv
from reports.files.to_json import render_json
from reports.files.to_pdf import render_pdf


@dataclass(frozen=True)
class Format:
    name: str
    content_type: str
    extension: str
    render: Callable[[Document], bytes]


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("csv", "text/csv; charset=utf-8", "csv", render_csv),
    Format("json", "application/json", "json", render_json),
    Format("pdf", "application/pdf", "pdf", render_pdf),
)}
