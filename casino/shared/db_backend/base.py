"""Django's PostgreSQL backend, its pool answering a dead connection with a live one at once.

Django's own pool (``OPTIONS["pool"]``) checks a connection with psycopg's check when
``CONN_HEALTH_CHECKS`` is on, and psycopg then waits 1, 2, 4... seconds between one dead
connection and the next (its backoff for a server that is down). After a restart or a
failover of PostgreSQL every idle connection in the pool is dead, so with a handful of them
a request waited the pool's whole timeout and failed (and /health said 503).

This subclass (Django's documented way to change a backend's behaviour) overrides two public
methods and uses the pool only through psycopg_pool's public API: a connection the pool
hands out is checked here (``casino.shared.pool.connection_usable``); on the first dead one
the pool checks every idle connection at once (``ConnectionPool.check``), discarding the
dead and opening new ones, and the next connection it hands out is live. So the settings
leave ``CONN_HEALTH_CHECKS`` off: the check is this one.
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base

from casino.shared.pool import connection_returned, connection_usable

# Connections tried before the last one is handed out as it is: after a failover the first is
# dead, the pool's check() then clears the rest, and another thread may still return one.
TRIES = 3


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        pool = self.pool  # type: ignore[attr-defined]  # Django's; django-stubs lacks it
        for _ in range(TRIES):
            connection = super().get_new_connection(conn_params)
            if pool is None or connection_usable(connection):
                return connection
            # Broken now (its check failed): putconn discards it and opens a replacement.
            pool.putconn(connection)
            pool.check()
        return super().get_new_connection(conn_params)

    def close(self) -> None:
        # Stamped on its way back, so that its next check may be a look at its socket alone.
        if self.connection is not None and self.pool is not None:  # type: ignore[attr-defined]
            connection_returned(self.connection)
        super().close()
