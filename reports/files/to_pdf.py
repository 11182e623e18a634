"""PDF with reportlab's platypus: a title block (the casino, the report, its period, when
and by whom it was made, the zone its times are in, the chain head it was read at, the
database it was read from), then each section as a sheet of labelled figures (a table's
day, a single row) or a table that breaks across pages repeating its header row, headers
in words (readable.py), then the charts."""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

from django.utils import timezone
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import (
    Image,
    LongTable,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
)
from reportlab.platypus.flowables import Flowable

from casino.shared.templatetags.casino_time import casino_time_text
from casino.shared.templatetags.words import sealed_through_text
from reports.files.charts import chart_png
from reports.files.document import Document, Section
from reports.files.readable import Grid, grid

PAGE = landscape(A4)
MARGIN = 12 * mm


HEADER = ParagraphStyle("report-header", fontName="Helvetica-Bold", fontSize=6.5,
                        leading=7.5, textColor=colors.white)


# Left and right padding of a cell (reportlab's default for tables).
_PADDING = 2 * 6


def _column_widths(titles: list[str], body: list[list[str]], width: float) -> list[float]:
    """Each column at least as wide as its longest word of the header and its longest
    cell, so neither breaks inside a word ("commiss/ion"); the page's width left over is
    shared in proportion. When that does not fit, the narrow columns (the figures) keep
    what they need and the widest (long texts such as memos) share what is left equally."""
    need = []
    for col, title in enumerate(titles):
        words = [stringWidth(w, "Helvetica-Bold", HEADER.fontSize) for w in title.split()]
        cells = [stringWidth(row[col], "Helvetica-Bold", 7) for row in body]
        need.append(max([0.0, *words, *cells]) + _PADDING)
    total = sum(need)
    if not need or total <= 0:
        return [width / max(len(titles), 1)] * len(titles)
    if total < width:
        return [w + (width - total) * w / total for w in need]
    widths, left = [0.0] * len(need), width
    for placed, col in enumerate(sorted(range(len(need)), key=need.__getitem__)):
        widths[col] = min(need[col], left / (len(need) - placed))
        left -= widths[col]
    return widths


def _sheet_parts(shown: Grid, width: float) -> list[tuple[Grid, list[float]]]:
    """A sheet's columns at a readable width each, the labels' column as wide as its
    longest label; a floor with more tables than fit across the page goes on in further
    sheets below, each with the labels again (the total in the last)."""
    label_width = max(stringWidth(row[0], "Helvetica", 8) for row in shown.rows) + _PADDING
    figure_width = max([stringWidth(t, "Helvetica-Bold", HEADER.fontSize)
                        for t in shown.header[1:]]
                       + [stringWidth(v, "Helvetica", 8) for row in shown.rows
                          for v in row[1:]]) + _PADDING + 8
    figure_width = max(figure_width, 28 * mm)
    count = len(shown.header) - 1
    per_part = max(1, int((width - label_width) // figure_width))
    parts = []
    for first in range(0, count, per_part):
        cols = range(1 + first, 1 + min(count, first + per_part))
        part = Grid(header=["", *(shown.header[c] for c in cols)],
                    rows=[[row[0], *(row[c] for c in cols)] for row in shown.rows],
                    figures=[False, *(shown.figures[c] for c in cols)],
                    total_columns={n + 1 for n, c in enumerate(cols)
                                   if c in shown.total_columns}, sheet=True)
        parts.append((part, [label_width, *[figure_width] * len(cols)]))
    return parts


def _tables(section: Section, width: float) -> list[Flowable]:
    shown = grid(section)
    if not shown.rows:
        return [Paragraph("Nothing in this period.", getSampleStyleSheet()["Italic"])]
    if not shown.sheet:
        return [_table(shown, _column_widths(shown.header, shown.rows, width))]
    out: list[Flowable] = []
    for n, (part, widths) in enumerate(_sheet_parts(shown, width)):
        out += [Spacer(1, 3 * mm)] if n else []
        out.append(_table(part, widths))
    return out


def _table(shown: Grid, widths: list[float]) -> LongTable:
    # Header cells wrap (Paragraphs), between words.
    header = [Paragraph(escape(t), HEADER) for t in shown.header]
    body = shown.rows
    table = LongTable([header, *body], repeatRows=1, colWidths=widths, hAlign="LEFT")
    size = 8 if shown.sheet else 7
    style = [
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 6.5),
        ("FONT", (0, 1), (-1, -1), "Helvetica", size),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#1f3b2d")),
        ("TEXTCOLOR", (0, 0), (-1, 0), colors.white),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#9aa5a0")),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
    ]
    # Figures line up on the decimal point: numbers right-aligned.
    for col, figure in enumerate(shown.figures):
        if figure:
            style.append(("ALIGN", (col, 0), (col, -1), "RIGHT"))
    for n in shown.total_rows:
        style.append(("FONT", (0, n + 1), (-1, n + 1), "Helvetica-Bold", size))
        style.append(("BACKGROUND", (0, n + 1), (-1, n + 1), colors.HexColor("#e8efe9")))
    for col in shown.total_columns:
        style.append(("FONT", (col, 1), (col, -1), "Helvetica-Bold", size))
        style.append(("BACKGROUND", (col, 1), (col, -1), colors.HexColor("#e8efe9")))
    if shown.sheet:
        style.append(("FONT", (0, 1), (0, -1), "Helvetica", size))
        style.append(("TEXTCOLOR", (0, 1), (0, -1), colors.HexColor("#333333")))
    table.setStyle(style)
    return table


def render_pdf(document: Document) -> bytes:
    styles = getSampleStyleSheet()
    out = io.BytesIO()
    pdf = SimpleDocTemplate(
        out, pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN,
        bottomMargin=MARGIN, title=document.title, author=document.made_by,
        subject=f"{document.casino}: {document.period}")
    width = PAGE[0] - 2 * MARGIN
    zone = document.time_zone or timezone.get_current_timezone_name()
    story: list[Flowable] = [
        Paragraph(escape(document.casino), styles["Heading3"]),
        Paragraph(escape(document.title), styles["Title"]),
        Paragraph(f"<b>Period:</b> {escape(document.period)}", styles["Normal"]),
        Paragraph(f"<b>Made:</b> {casino_time_text(document.made_at)} by "
                  f"{escape(document.made_by)}", styles["Normal"]),
        Paragraph(f"<b>Times</b> are the casino's ({escape(zone)}).",
                  styles["Normal"]),
        Paragraph(f"<b>Ledger sealed through:</b> {sealed_through_text(document.chain_seq)}"
                  + (f", hash <font face='Courier' size='7'>{document.chain_hash}</font>"
                     if document.chain_seq else ""),
                  styles["Normal"]),
        Paragraph(f"<b>Database:</b> {escape(document.read_from.sentence)}",
                  styles["Normal"]),
    ]
    for note in document.notes:
        story.append(Paragraph(escape(note), styles["Italic"]))
    for section in document.sections:
        story += [Spacer(1, 5 * mm), Paragraph(escape(section.title), styles["Heading2"]),
                  *_tables(section, width)]
    for chart in document.charts:
        png = chart_png(chart)
        story += [Spacer(1, 5 * mm),
                  Image(io.BytesIO(png), width=width * 0.8, height=width * 0.8 * 0.4)]

    def footer(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 7)
        canvas.drawString(MARGIN, 6 * mm, f"{document.title} · {document.period}")
        canvas.drawRightString(PAGE[0] - MARGIN, 6 * mm, f"page {doc.page}")
        canvas.restoreState()

    pdf.build(story, onFirstPage=footer, onLaterPages=footer)
    return out.getvalue()
