"""`manage.py ledger_verify`: recheck the ledger; exit non-zero on any discrepancy.

Checks the sealed blocks (each one's entries and hash, and that it follows its predecessor),
that no entry has waited longer than LEDGER_SEAL_WITHIN_SECONDS to be sealed, that every
entry has two or more lines summing to zero per currency, that every account's cached
posted and held equal the sum of its lines and of its open holds (and that no non-negative
account is below zero), and that captured holds match their entry. It starts after the
newest signed checkpoint, and records a new one when all is well, so its cost grows with
what was posted since; ``--all`` rechecks everything from the genesis.

Prints OK, or each discrepancy naming the block, entry, account or hold. When every block
checks out it then prints the newest as ``head: N:HASH``; otherwise no head (a block
written beside the chain would pose as one) but the last good block and the first bad one.
Keep the head line somewhere the database's owner cannot reach (the gaming day's close
prints it too), best as the signed anchor printed beside it, ``N:HASH:SIGNATURE`` (an HMAC
with LEDGER_CHECKPOINT_KEY): ``ledger_verify --expect`` later proves the chain still runs
through that block, so blocks rewritten together, triggers off, are caught, and refuses a
signed anchor the key did not sign. A ``SEQ:HASH`` written
down before blocks names the same point (entry seq n is block n).
"""

from __future__ import annotations

import hmac
import re
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ledger.verify import Anchor, anchor_signature, ledger_verify

_ANCHOR = re.compile(r"(\d{1,18}):([0-9a-f]{64})(?::([0-9a-f]{64}))?")


def parse_anchor(text: str) -> Anchor:
    """``N:HASH``, or the signed ``N:HASH:SIGNATURE`` ledger_verify prints: a signature that
    is not the checkpoint key's is refused, so a forged anchor cannot pass for a kept one."""
    match = _ANCHOR.fullmatch(text.strip().lower())
    if match is None:
        raise CommandError(f"--expect takes N:HASH or N:HASH:SIGNATURE as ledger_verify prints "
                           f"it (a number, a colon, 64 hex digits, and perhaps a colon and 64 "
                           f"more), not {text!r}.")
    n, block_hash, signature = int(match[1]), match[2], match[3]
    if signature is not None and not hmac.compare_digest(
            signature, anchor_signature(n=n, hash=block_hash)):
        raise CommandError(f"The anchor {n}:{block_hash[:12]}... is not signed with this "
                           "ledger's checkpoint key: it is not one ledger_verify printed.")
    return Anchor(seq=n, hash=block_hash)


class Command(BaseCommand):
    help = "Recheck the ledger's hash chain, balances and holds; non-zero exit on discrepancy."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--expect", metavar="N:HASH[:SIGNATURE]", default=None,
                            help="a head printed earlier that the chain must still pass through")
        parser.add_argument("--all", action="store_true", dest="full",
                            help="recheck everything from the genesis, not only what came "
                                 "after the newest checkpoint")

    def handle(self, *args: Any, **options: Any) -> None:
        anchor = parse_anchor(options["expect"]) if options["expect"] is not None else None
        report = ledger_verify(progress=lambda line: self.stderr.write(line), anchor=anchor,
                               full=options["full"], record=True)
        for problem in report.problems:
            self.stdout.write(self.style.ERROR(problem))
        where = ("from the genesis" if report.started_after is None
                 else f"after the checkpoint at block {report.started_after}")
        summary = (f"{report.blocks} blocks ({report.entries} entries) {where}, "
                   f"{report.unsealed} entries waiting for the sealer, {report.accounts} "
                   f"accounts, {report.holds} holds checked")
        if anchor is not None and report.ok:
            summary += f"; the chain passes through the anchored block {anchor.seq}"
        if report.chain_ok:
            chain_lines = [f"head: {report.head_seq}:{report.head_hash}",
                           "signed anchor (keep it outside the database): "
                           f"{report.head_seq}:{report.head_hash}:"
                           f"{anchor_signature(n=report.head_seq, hash=report.head_hash)}"]
            if report.checkpoint is not None:
                chain_lines.append(f"checkpoint recorded at block {report.checkpoint}")
        else:
            chain_lines = [f"last good block: {report.last_good}",
                           f"first bad block: {report.first_bad}",
                           "no head printed: the chain does not check out"]
        if not report.ok:
            for line in chain_lines:
                self.stdout.write(line)
            raise CommandError(f"{len(report.problems)} discrepancies ({summary}).")
        self.stdout.write(self.style.SUCCESS(f"OK: {summary}."))
        for line in chain_lines:
            self.stdout.write(line)
