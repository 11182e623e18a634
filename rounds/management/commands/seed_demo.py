"""`manage.py seed_demo`: a small demo floor for development (idempotent).

A casino table and a card room, each with three players with funds, a proposition player
funded to bank in the card room, a self-service table and a player with her own login to
play it at /play/, and one staff user per role with a known password.
Running it again changes nothing. It refuses to run unless DJANGO_DEBUG is on (or --force),
because the demo passwords are printed and public.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from casino import roles
from casino.demo import DEMO_PASSWORDS, seed_game_player
from casino.services import staff_create
from rounds.demo import seed_floor


class Command(BaseCommand):
    help = ("Load the demo floor: a casino table and a card room with funded players, a "
            "proposition player, a staff user per role.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true",
                            help="Run even with DJANGO_DEBUG off (never in production).")

    def handle(self, *args: Any, force: bool, **options: Any) -> None:
        if not settings.DEBUG and not force:
            raise CommandError("seed_demo creates users with public passwords; "
                               "run it only with DJANGO_DEBUG=true (or --force).")
        User = get_user_model()
        with transaction.atomic():
            for username, (role, password) in DEMO_PASSWORDS.items():
                if User.objects.filter(username=username).exists():
                    continue
                staff_create(username=username, role=role, password=password,
                             superuser=(username == "admin"))
            summary = seed_floor(by=User.objects.get(username="pitboss"))
            summary.append(seed_game_player(by=User.objects.get(username="cage")))
        self.stdout.write(self.style.SUCCESS("Demo floor ready."))
        for line in summary:
            self.stdout.write(f"  {line}")
        self.stdout.write("Demo staff (username / password / role):")
        for username, (role, password) in DEMO_PASSWORDS.items():
            self.stdout.write(f"  {username:<10} {password:<20} {role}")
        assert set(roles.ROLES) <= {role for role, _ in DEMO_PASSWORDS.values()}
