"""The database pool's check of a connection before it hands it out (casino.settings).

Imported by the settings, so it imports nothing of Django.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool


def connection_check(conn: psycopg.Connection[Any]) -> None:
    """psycopg's check, which sweeps the whole pool on the first dead connection.

    After a restart or failover of PostgreSQL every idle connection in the pool is dead.
    psycopg's own check (``ConnectionPool.check_connection``) finds them one at a time,
    and the pool waits 1, 2, 4... seconds between retries (its backoff for a server that
    is down), so with a handful of idle connections a request waited its whole timeout
    and failed. On the first dead one, the pool checks every idle connection at once,
    discarding the dead and opening new ones, so the retry finds a live connection.
    """
    try:
        ConnectionPool.check_connection(conn)
    except psycopg.Error:
        # getconn() attaches the pool to the connection before it checks it.
        pool = getattr(conn, "_pool", None)
        if isinstance(pool, ConnectionPool):
            pool.check()
        raise
