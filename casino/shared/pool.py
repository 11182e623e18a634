"""How the service tells a pooled connection is alive before it uses it
(casino.shared.db_backend).

Imported by the database backend, so it imports nothing of Django.
"""

from __future__ import annotations

import select
import time
import weakref
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

# A connection back in the pool more recently than this is handed out after a look at its
# socket alone; one idle longer is asked a query as well. (Seconds.)
CHECK_IDLE_AFTER = 5.0

# When each connection last went back to the pool (the backend's close() stamps it).
_returned_at: weakref.WeakKeyDictionary[psycopg.Connection[Any], float] = (
    weakref.WeakKeyDictionary())


def connection_returned(conn: psycopg.Connection[Any]) -> None:
    """When the connection went back to the pool, for its next check."""
    _returned_at[conn] = time.monotonic()


def looks_alive(conn: psycopg.Connection[Any]) -> bool:
    """Whether a connection that came back lately can be handed out without a round trip.

    An idle connection has nothing to read. When the server ends it (a restart, a failover,
    pg_terminate_backend) it sends its last error and closes the socket, which is then
    readable: that one gets the full check. What a look at the socket cannot see is a server
    that vanished without a word (a crashed host): its connections are checked by a query
    once idle for CHECK_IDLE_AFTER, as every connection was before.
    """
    returned_at = _returned_at.get(conn)
    if returned_at is None or time.monotonic() - returned_at > CHECK_IDLE_AFTER:
        return False
    if conn.closed or conn.pgconn.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        return False
    try:
        readable, _, _ = select.select([conn.fileno()], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


def connection_usable(conn: psycopg.Connection[Any]) -> bool:
    """Whether the connection answers: a look at its socket when it came back a moment ago
    (``looks_alive``), else psycopg's own check, an empty query
    (``ConnectionPool.check_connection``)."""
    if looks_alive(conn):
        return True
    try:
        ConnectionPool.check_connection(conn)
    except psycopg.Error:
        return False
    return True
