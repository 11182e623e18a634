"""`manage.py runtime_role_url NAME [--password PW]`: the DATABASE_URL of an existing role.

For the processes that connect as the runtime role (`make run`, `serve`, `worker`, `beat`):
it changes nothing on the server, and refuses, in words, a role that create_runtime_role has
not made (`make runtime-role` makes it), so no process creates a server-wide role as a side
effect of starting.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS

from casino.shared.db_roles import runtime_roles, runtime_url


class Command(BaseCommand):
    help = "Print the DATABASE_URL of the runtime role create_runtime_role made."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the role's name, e.g. casino_app")
        parser.add_argument("--password", default=None, help="its password, if it has one")

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["name"]
        if name not in runtime_roles(using=DEFAULT_DB_ALIAS):
            raise CommandError(
                f"There is no runtime role {name!r} for this database: `make runtime-role` "
                f"(or `manage.py create_runtime_role {name}` as the tables' owner) creates it.")
        self.stdout.write(runtime_url(name=name, password=options["password"]))
