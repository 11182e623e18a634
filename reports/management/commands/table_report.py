"""`manage.py table_report --table ID [--day YYYY-MM-DD]`: a table's figures for a gaming day."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino.shared.errors import DomainError
from casino.shared.gaming_day import gaming_day_of
from casino.shared.money import format_minor
from reports.play import table_day_report


class Command(BaseCommand):
    help = "Print a table's figures for one gaming day (rules section 10)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--table", type=int, required=True, help="the table's id")
        parser.add_argument("--day", type=date.fromisoformat, default=None,
                            help="gaming day as YYYY-MM-DD (default: the current one)")

    def handle(self, *args: Any, table: int, day: date | None, **options: Any) -> None:
        try:
            report = table_day_report(table_id=table, gaming_day=day or gaming_day_of())
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        cur = report.currency

        def money(amount: int) -> str:
            return f"{format_minor(amount, cur):>14} {cur}"

        hold = "-" if report.hold_percent is None else f"{report.hold_percent} %"
        for label, value in [
            ("table", f"{report.table_name} (#{report.table_id})"),
            ("gaming day", report.gaming_day.isoformat()),
            ("rounds settled", f"{report.rounds_settled} ({report.rounds_house_banked} "
                               f"house-banked, {report.rounds_player_banked} player-banked)"),
            ("rounds reversed", report.rounds_reversed),
            ("rounds voided", report.rounds_voided),
            ("handle", money(report.handle)),
            ("house stakes", money(report.house_stakes)),
            ("win, house-banked play", money(report.house_win_house_banked)),
            ("win, house stakes", money(report.house_win_house_stakes)),
            ("commission, players", money(report.commission_players)),
            ("commission, bankers", money(report.commission_bankers)),
            ("house result", money(report.house_result)),
            ("hold", hold),
            ("drop recorded", money(report.drop_recorded)),
            ("drop counted", "not counted" if report.drop is None else money(report.drop)),
            ("drop variance", "-" if report.drop_variance is None
             else money(report.drop_variance)),
            ("win", money(report.win)),
            ("win / drop", "-" if report.win_to_drop is None else str(report.win_to_drop)),
        ]:
            self.stdout.write(f"{label:<24}{value}")
