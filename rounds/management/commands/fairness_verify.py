"""`manage.py fairness_verify ROUND`: recompute a self-service game's deal from its revealed
server seed (docs/fairness.md) and compare it with what the game recorded, line by line.
Exits non-zero when anything differs, or while the game is in play (its seed is secret)."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from casino.shared.errors import DomainError
from rounds.games import game_deal_verify


class Command(BaseCommand):
    help = "Recompute a settled self-service game's deal from its revealed seed."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("round", type=int, help="the game's id (its round id)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            checks = game_deal_verify(game_id=options["round"])
        except DomainError as exc:
            raise CommandError(str(exc)) from exc
        for check in checks:
            mark = "ok  " if check.ok else "DIFF"
            line = f"{mark} {check.what}: {check.recomputed}"
            if not check.ok:
                line += f" (recorded: {check.recorded})"
            self.stdout.write(line)
        wrong = [c for c in checks if not c.ok]
        if wrong:
            raise CommandError(f"game #{options['round']}: {len(wrong)} of {len(checks)} "
                               "checks differ from the recomputed deal")
        self.stdout.write(f"game #{options['round']}: the deal is the one its seeds give "
                          f"({len(checks)} checks)")
