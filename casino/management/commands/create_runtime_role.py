"""`manage.py create_runtime_role NAME [--password PW]`: the role the service connects as.

Run as the tables' owner (DATABASE_OWNER_URL, else DATABASE_URL) or a superuser. Creates the
login role, or brings an existing one back in line (no superuser, owns nothing), grants it
exactly what the service uses (casino.shared.db_roles.runtime_privileges) and prints the
DATABASE_URL the service should use. Safe to run again, e.g. at every deployment.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, DatabaseError, transaction

from casino.shared.db_roles import owner_connection, runtime_role_create, runtime_url


class Command(BaseCommand):
    help = ("Create or update the database login role the service runs as, with only the "
            "privileges it needs; prints its DATABASE_URL.")
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the role's name, e.g. casino_app")
        parser.add_argument("--password", default=None,
                            help="its password (kept if omitted for an existing role)")

    def handle(self, *args: Any, **options: Any) -> None:
        name, password = options["name"], options["password"]
        with owner_connection(DEFAULT_DB_ALIAS):
            try:
                with transaction.atomic():
                    runtime_role_create(name=name, password=password)
            except ValueError as exc:
                raise CommandError(str(exc)) from exc
            except DatabaseError as exc:
                raise CommandError(
                    f"{str(exc).strip()} (run this as the tables' owner with CREATEROLE, or as "
                    "a superuser: DATABASE_OWNER_URL, else DATABASE_URL)") from exc
        url = runtime_url(name=name, password=password)
        self.stderr.write(f"Role {name!r} is ready; the service's DATABASE_URL follows on stdout.")
        self.stdout.write(url)
