"""An embedded PostgreSQL server for machines that have none.

When ``DATABASE_URL`` is not set, the service (and the test suite) runs against a
PostgreSQL server started from the ``pgserver`` package, with its data under
``.data/pg`` in the checkout. The server keeps running after the process that started it
exits, so the next command reuses it instead of paying the start-up again.

This is a development convenience only: production always sets ``DATABASE_URL``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

DATABASE_NAME = "casino"


def _server(data_dir: Path) -> Any:
    with warnings.catch_warnings():
        # pgserver keeps its lock file in the user's runtime dir and warns when the
        # environment names none; the fallback it picks is fine for a development server.
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import pgserver  # imported lazily: production never needs it

    data_dir.mkdir(parents=True, exist_ok=True)
    # cleanup_mode=None: leave the server running for the next command (see module doc).
    return pgserver.get_server(data_dir, cleanup_mode=None)


def database_settings(data_dir: Path) -> dict[str, Any]:
    """Start (or reuse) the embedded server and return Django's settings for it."""
    server = _server(data_dir)
    socket_dir = str(server.get_postmaster_info().socket_dir)
    # DATABASE_NAME is a constant of this module, never user input.
    exists = server.psql(
        f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';"  # noqa: S608
    ).strip()
    if "(1 row)" not in exists:
        server.psql(f"CREATE DATABASE {DATABASE_NAME};")
    print(
        f"DATABASE_URL is not set: using the embedded PostgreSQL server in {data_dir} "
        f"(socket {socket_dir}).",
        file=sys.stderr,
    )
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": DATABASE_NAME,
        "USER": "postgres",
        "PASSWORD": "",
        "HOST": socket_dir,
        "PORT": "",
    }


if __name__ == "__main__":
    # `python -m casino.embedded_db` starts the server ahead of parallel test workers.
    database_settings(Path(__file__).resolve().parent.parent / ".data" / "pg")
