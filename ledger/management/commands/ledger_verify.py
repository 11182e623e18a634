"""`manage.py ledger_verify`: recheck the whole ledger; exit non-zero on any discrepancy.

Checks the hash chain, that every entry has two or more lines summing to zero per currency,
that every account's cached posted and held equal the sum of its lines and of its open holds
(and that no non-negative account is below zero), and that captured holds match their entry.
Prints OK, or each discrepancy naming the entry, account or hold.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from ledger.verify import ledger_verify


class Command(BaseCommand):
    help = "Recheck the ledger's hash chain, balances and holds; non-zero exit on discrepancy."

    def handle(self, *args: Any, **options: Any) -> None:
        report = ledger_verify(progress=lambda line: self.stderr.write(line))
        for problem in report.problems:
            self.stdout.write(self.style.ERROR(problem))
        summary = (f"{report.entries} entries, {report.accounts} accounts, "
                   f"{report.holds} holds checked")
        if not report.ok:
            raise CommandError(f"{len(report.problems)} discrepancies ({summary}).")
        self.stdout.write(self.style.SUCCESS(f"OK: {summary}."))
