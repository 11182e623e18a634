"""`manage.py ledger_sql [--write]`: the ledger's functions and triggers as the database
holds them, in ledger/sql/'s form (ledger.sqlfiles): printed, or written to those files."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import connection

from ledger.sqlfiles import CURRENT, database_definitions, function_files


class Command(BaseCommand):
    help = "Print (or --write) the ledger's SQL functions and triggers from the database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--write", action="store_true",
                            help="write ledger/sql/<function>.sql, removing stale files")

    def handle(self, *args: Any, **options: Any) -> None:
        with connection.cursor() as cursor:
            found = database_definitions(cursor)
        if not options["write"]:
            for text in found.values():
                self.stdout.write(text)
            return
        for name, path in function_files().items():
            if name not in found:
                path.unlink()
        for name, text in found.items():
            (CURRENT / f"{name}.sql").write_text(text)
        self.stderr.write(f"{len(found)} files in {CURRENT}")
