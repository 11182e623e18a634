"""`manage.py ledger_seal`: hash the entries that can be sealed into blocks, now.

What the beat task ``ledger.seal`` does every ``LEDGER_SEAL_EVERY_SECONDS``; with
``--every SECONDS`` it keeps doing it (a sealer without Celery, as ``make run`` starts one).
An entry is sealed once every transaction that began before its own has ended: a
transaction left open holds sealing back (``ledger_verify`` names entries left unsealed
longer than ``LEDGER_SEAL_WITHIN_SECONDS``), never the posting.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections

from ledger.services import entries_seal_all


class Command(BaseCommand):
    help = "Seal the ledger's entries into hashed blocks (once, or --every SECONDS)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--every", type=float, default=None, metavar="SECONDS",
                            help="keep sealing, every SECONDS, until stopped")

    def handle(self, *args: Any, **options: Any) -> None:
        every = options["every"]
        while True:
            done = entries_seal_all()
            if every is None or done.entries:
                self.stdout.write(f"sealed {done.entries} entries in {done.blocks} blocks; the "
                                  f"newest is block {done.last_block}")
            if every is None:
                return
            time.sleep(every)
            close_old_connections()
