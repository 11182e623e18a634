"""One snapshot for a report's reads, and where reports read from."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from django.db import DEFAULT_DB_ALIAS, connections, transaction


@contextlib.contextmanager
def read_snapshot(using: str | None = None) -> Iterator[str]:
    """One consistent, read-only view of the database for a report's every query.

    On its own it opens a ``REPEATABLE READ READ ONLY`` transaction, so rows committed
    while a report runs cannot make its figures disagree with one another (a day's total
    with its lines, a trial balance with its chain head). Inside a caller's transaction (a
    test's, or a report made inside a service) it reads what that transaction sees: the
    isolation level can only be set by a transaction's first statement. Yields the
    database alias the report reads from (``reports`` when a replica is configured).
    """
    alias = using or report_database()
    conn = connections[alias]
    own = not conn.in_atomic_block
    # Inside, every read the ORM routes goes to this alias (casino.shared.db_router), so the
    # selectors the report calls read the same snapshot without naming a database.
    token = REPORT_READS.set(alias)
    try:
        with transaction.atomic(using=alias):
            if own:
                with conn.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield alias
    finally:
        REPORT_READS.reset(token)


# The alias a report being read reads from (None: not inside read_snapshot).
REPORT_READS: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "report_reads", default=None)


def report_database() -> str:
    """The alias reports read from: ``reports`` when DATABASE_REPORTS_URL configured one."""
    return "reports" if "reports" in connections.databases else DEFAULT_DB_ALIAS
