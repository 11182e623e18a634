"""`manage.py gaming_day_close [--day YYYY-MM-DD]`: close a gaming day (default: the one
before the current), storing its figures and the ledger's chain head."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino.shared.errors import DomainError
from casino.shared.gaming_day import gaming_day_of
from casino.shared.refusals import refusals_traced
from reports.closing import gaming_day_close


class Command(BaseCommand):
    help = "Close a gaming day: its figures are stored with the chain head and never change."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--day", type=date.fromisoformat, default=None,
                            help="gaming day as YYYY-MM-DD (default: the previous one)")

    def handle(self, *args: Any, day: date | None, **options: Any) -> None:
        day = day or gaming_day_of() - timedelta(days=1)
        try:
            # A refusal is traced as the API's and the console's are (casino.shared.refusals).
            with refusals_traced(action="gaming_day_close", ref=f"gaming_day:{day}",
                                 path="manage.py gaming_day_close"):
                closed = gaming_day_close(gaming_day=day, by=None)
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        tables = closed.tables.filter(table__isnull=False).count()
        self.stdout.write(f"closed gaming day {closed.gaming_day}: {tables} table(s); chain "
                          f"head {closed.chain_seq}:{closed.chain_hash} (check it later with "
                          f"ledger_verify --expect {closed.chain_seq}:{closed.chain_hash})")
