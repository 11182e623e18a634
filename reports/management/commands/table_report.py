"""`manage.py table_report --table ID [--day YYYY-MM-DD]`: a table's figures for a gaming day."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino.shared.db import read_in_snapshot
from casino.shared.errors import DomainError
from casino.shared.gaming_day import gaming_day_of
from reports.files.document import spec_row
from reports.files.kinds import TABLE_DAY
from reports.files.readable import shown
from reports.play import table_day_report


class Command(BaseCommand):
    help = "Print a table's figures for one gaming day (rules section 10)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--table", type=int, required=True, help="the table's id")
        parser.add_argument("--day", type=date.fromisoformat, default=None,
                            help="gaming day as YYYY-MM-DD (default: the current one)")

    def handle(self, *args: Any, table: int, day: date | None, **options: Any) -> None:
        try:
            report, source = read_in_snapshot(
                lambda: table_day_report(table_id=table, gaming_day=day or gaming_day_of()))
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        # The table-day file's columns, in its words (reports.files.kinds.TABLE_DAY).
        width = max(len(c.label) for c in TABLE_DAY) + 2
        for column, cell in zip(TABLE_DAY, spec_row(TABLE_DAY, report, report.currency),
                                strict=True):
            text = shown(cell, column.name)
            if column.type == "money" and cell is not None:
                text = f"{text:>14} {report.currency}"
            self.stdout.write(f"{column.label:<{width}}{text}")
        self.stdout.write(f"{'Database':<{width}}{source.sentence}")
