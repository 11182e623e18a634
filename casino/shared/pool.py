"""The database pool's check of a connection before it hands it out (casino.settings).

Imported by the settings, so it imports nothing of Django.
"""

from __future__ import annotations

import select
import time
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

# A connection back in the pool more recently than this is handed out after a look at its
# socket alone; one idle longer is asked a query as well. (Seconds.)
CHECK_IDLE_AFTER = 5.0
_RETURNED_AT = "_casino_returned_at"


def connection_returned(conn: psycopg.Connection[Any]) -> None:
    """When the connection went back to the pool, for its next check (casino.shared.db_backend)."""
    setattr(conn, _RETURNED_AT, time.monotonic())


def _looks_alive(conn: psycopg.Connection[Any]) -> bool:
    """Whether a connection that came back lately can be handed out without a round trip.

    An idle connection has nothing to read. When the server ends it (a restart, a failover,
    pg_terminate_backend) it sends its last error and closes the socket, which is then
    readable: that one gets the full check. What a look at the socket cannot see is a server
    that vanished without a word (a crashed host): its connections are checked by a query
    once idle for CHECK_IDLE_AFTER, as every connection was before.
    """
    returned_at = getattr(conn, _RETURNED_AT, None)
    if returned_at is None or time.monotonic() - returned_at > CHECK_IDLE_AFTER:
        return False
    if conn.closed or conn.pgconn.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        return False
    try:
        readable, _, _ = select.select([conn.fileno()], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


def connection_check(conn: psycopg.Connection[Any]) -> None:
    """psycopg's check, which sweeps the whole pool on the first dead connection.

    After a restart or failover of PostgreSQL every idle connection in the pool is dead.
    psycopg's own check (``ConnectionPool.check_connection``) finds them one at a time,
    and the pool waits 1, 2, 4... seconds between retries (its backoff for a server that
    is down), so with a handful of idle connections a request waited its whole timeout
    and failed. On the first dead one, the pool checks every idle connection at once,
    discarding the dead and opening new ones, so the retry finds a live connection.

    The query costs a round trip on every request; a connection back from its last request
    a moment ago is looked at without one (``_looks_alive``).
    """
    if _looks_alive(conn):
        return
    try:
        ConnectionPool.check_connection(conn)
    except psycopg.Error:
        # getconn() attaches the pool to the connection before it checks it.
        pool = getattr(conn, "_pool", None)
        if isinstance(pool, ConnectionPool):
            pool.check()
        raise
