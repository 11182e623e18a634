"""`manage.py ledger_verify`: recheck the whole ledger; exit non-zero on any discrepancy.

Checks the hash chain, that every entry has two or more lines summing to zero per currency,
that every account's cached posted and held equal the sum of its lines and of its open holds
(and that no non-negative account is below zero), and that captured holds match their entry.
Prints OK, or each discrepancy naming the entry, account or hold. When every link of the
chain checks out it then prints the chain's head as ``head: SEQ:HASH``; otherwise no head
(an entry written beside the chain would pose as one) but the last good link and the first
bad one. Keep the head line somewhere the database's owner cannot reach (the gaming day's
close prints it too): ``ledger_verify --expect SEQ:HASH`` later proves the chain still runs
from the genesis through that head, so a chain rewritten together with its head row,
triggers off, is caught.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ledger.verify import Anchor, ledger_verify

_ANCHOR = re.compile(r"(\d{1,18}):([0-9a-f]{64})")


def parse_anchor(text: str) -> Anchor:
    match = _ANCHOR.fullmatch(text.strip().lower())
    if match is None:
        raise CommandError(f"--expect takes SEQ:HASH as ledger_verify prints it "
                           f"(a number, a colon, 64 hex digits), not {text!r}.")
    return Anchor(seq=int(match[1]), hash=match[2])


class Command(BaseCommand):
    help = "Recheck the ledger's hash chain, balances and holds; non-zero exit on discrepancy."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--expect", metavar="SEQ:HASH", default=None,
                            help="a head printed earlier that the chain must still pass through")

    def handle(self, *args: Any, **options: Any) -> None:
        anchor = parse_anchor(options["expect"]) if options["expect"] is not None else None
        report = ledger_verify(progress=lambda line: self.stderr.write(line), anchor=anchor)
        for problem in report.problems:
            self.stdout.write(self.style.ERROR(problem))
        summary = (f"{report.entries} entries, {report.accounts} accounts, "
                   f"{report.holds} holds checked")
        if anchor is not None and report.ok:
            summary += f"; the chain passes through the anchored head at seq {anchor.seq}"
        if report.chain_ok:
            chain_lines = [f"head: {report.head_seq}:{report.head_hash}"]
        else:
            chain_lines = [f"last good link: {report.last_good}",
                           f"first bad link: {report.first_bad}",
                           "no head printed: the chain does not check out"]
        if not report.ok:
            for line in chain_lines:
                self.stdout.write(line)
            raise CommandError(f"{len(report.problems)} discrepancies ({summary}).")
        self.stdout.write(self.style.SUCCESS(f"OK: {summary}."))
        for line in chain_lines:
            self.stdout.write(line)
