"""Django's PostgreSQL backend whose psycopg pool checks connections with casino.shared.pool.

Django builds the pool itself and passes it psycopg's plain check (with
CONN_HEALTH_CHECKS) or none, with no way to name another; this wrapper builds the same
pool with ``casino.shared.pool.connection_check`` instead, and stamps each connection's
return to the pool, which that check goes by. Everything else is Django's.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.backends.base.base import NO_DB_ALIAS
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

from casino.shared.pool import connection_check, connection_returned


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self) -> Any:
        # As Django 5.2's DatabaseWrapper.pool, but for the check.
        options = self.settings_dict["OPTIONS"].get("pool")
        if self.alias == NO_DB_ALIAS or not options:
            return None
        # Django's own attributes, which django-stubs does not declare.
        pools: dict[str, ConnectionPool] = self._connection_pools  # type: ignore[attr-defined]
        if self.alias not in pools:
            if self.settings_dict.get("CONN_MAX_AGE", 0) != 0:
                raise ImproperlyConfigured("Pooling doesn't support persistent connections.")
            connect_kwargs = self.get_connection_params()
            connect_kwargs["autocommit"] = True  # Django sets its own mode later on
            pool = ConnectionPool(
                kwargs=connect_kwargs,
                open=False,
                configure=self._configure_connection,  # type: ignore[attr-defined]
                check=connection_check,
                **({} if options is True else options),
            )
            # Threads racing at startup each build one; the first one stored wins.
            pools.setdefault(self.alias, pool)
        return pools[self.alias]

    def _close(self) -> None:
        # Not the pool's ``reset`` callback: with one, psycopg returns connections from a
        # worker thread, later, rather than at once.
        if self.connection is not None and self.pool is not None:
            connection_returned(self.connection)
        super()._close()  # type: ignore[misc]
