"""`manage.py create_staff USERNAME --role ROLE [--password PW]`: a staff user and a token."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino import roles
from casino.services import staff_create


class Command(BaseCommand):
    help = "Create a staff user in one role and print an API token for them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=roles.ROLES)
        parser.add_argument(
            "--password",
            help="Password for the admin site; without it the user can use only the token.",
        )

    def handle(self, *args: Any, username: str, role: str, password: str | None,
               **options: Any) -> None:
        try:
            _, token = staff_create(username=username, role=role, password=password)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"Created {role} {username!r}."))
        self.stdout.write(f"API token (shown once): {token}")
