"""Database statements the ORM writes slowly on hot paths."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence

from django.db import DEFAULT_DB_ALIAS, connection, connections, models, transaction


def update_rows(objs: Sequence[models.Model], fields: Sequence[str]) -> int:
    """Write ``fields`` of every object in ONE ``UPDATE ... FROM unnest(...)`` statement.

    The same single statement as ``QuerySet.bulk_update``, without its ``CASE WHEN`` per
    row and field, which costs more to build in Python than the database takes to run it
    (it was most of a round's settlement time). Values go as typed arrays, one per column.
    """
    if not objs:
        return 0
    meta = objs[0]._meta
    pk = meta.pk
    columns: list[models.Field] = []
    for name in fields:
        field = meta.get_field(name)
        if not isinstance(field, models.Field) or not field.concrete:
            raise ValueError(f"{meta.label}.{name} is not a column")
        columns.append(field)
    sets = ", ".join(f'"{c.column}" = v."{c.column}"' for c in columns)
    arrays = ", ".join(
        f'unnest(%s::{c.db_type(connection)}[]) AS "{c.column}"' for c in [pk, *columns])
    sql = (f'UPDATE "{meta.db_table}" AS t SET {sets} FROM (SELECT {arrays}) AS v '  # noqa: S608
           f'WHERE t."{pk.column}" = v."{pk.column}"')
    params = [[o.pk for o in objs]] + [
        [c.get_db_prep_save(getattr(o, c.attname), connection) for o in objs] for c in columns]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


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
