"""A scratch database for benchmarks: created on the server the project uses (DATABASE_URL,
or the embedded server under .data/pg), migrated, and dropped afterwards, so a benchmark
never touches the development database. Import after ``django.setup()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote

import psycopg
from django.conf import settings
from django.core.management import call_command
from django.db import connection, connections


def _admin_sql(statement: str) -> None:
    """CREATE/DROP DATABASE run from the server's maintenance database ``postgres``, in
    autocommit (neither may run inside a transaction), on a connection of its own to the
    server Django uses: the scratch database may not exist yet, or be the one to drop."""
    with psycopg.connect(database_url(), dbname="postgres", autocommit=True) as admin:
        admin.execute(statement)


def _use_database(name: str) -> None:
    connections.close_all()
    settings.DATABASES["default"]["NAME"] = name
    connection.settings_dict["NAME"] = name


@contextmanager
def scratch_database(name: str) -> Iterator[str]:
    """Create ``name``, point Django at it and migrate it; drop it on the way out, whatever
    happened (WITH (FORCE) ends connections a crashed subprocess may have left)."""
    original = settings.DATABASES["default"]["NAME"]
    _admin_sql(f'CREATE DATABASE "{name}"')
    try:
        _use_database(name)
        call_command("migrate", verbosity=0)
        yield name
    finally:
        _use_database(original)
        _admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_url() -> str:
    """DATABASE_URL of the database Django uses now, for a subprocess (gunicorn)."""
    db = settings.DATABASES["default"]
    user = quote(db.get("USER") or "postgres", safe="")
    password = f":{quote(db['PASSWORD'], safe='')}" if db.get("PASSWORD") else ""
    host = quote(db.get("HOST") or "localhost", safe="")  # a socket directory is a path
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{user}{password}@{host}{port}/{quote(db['NAME'], safe='')}"
