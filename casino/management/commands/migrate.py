"""`manage.py migrate`, always as the tables' owner (DATABASE_OWNER_URL; see
casino/shared/db_roles.py).

The service's own role (DATABASE_URL) owns nothing and may not change the schema, so the
migrations connect with the owner's credentials; afterwards the runtime roles get their
grants again (casino.shared.db_roles.runtime_roles_regrant, on post_migrate).
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands.migrate import Command as DjangoMigrate

from casino.shared.db_roles import owner_connection


class Command(DjangoMigrate):
    def handle(self, *args: Any, **options: Any) -> None:
        with owner_connection(options["database"]):
            super().handle(*args, **options)
