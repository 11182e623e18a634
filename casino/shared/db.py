"""One snapshot for a report's reads, and where reports read from."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections, models, router, transaction

M = TypeVar("M", bound=models.Model)


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


def columns(model: type[models.Model], alias: str) -> str:
    """The select list of ``model``'s columns, as ``SqlRead`` makes its instances of them."""
    return ", ".join(f'{alias}."{f.column}"' for f in model._meta.concrete_fields)


class SqlRead(Generic[M]):
    """A hot path's SELECT written as SQL, its rows made into instances by ``Model.from_db``.

    Building and compiling a queryset costs Django more than PostgreSQL takes to answer it:
    about 0.4 ms of Python for a handful of rows found by a key that the server returns in
    0.1 ms (docs/benchmarks.md), and every step of a round answers with the whole round. So
    the few reads every request or step makes are written out once, as SQL, and run through
    Django's cursor (errors wrapped, the query log kept; with ``server_side_binding`` psycopg
    prepares them on the server after their first runs on a connection).

    ``sql`` selects, in this order: ``columns(model, ...)``; for each ``(name, model)`` of
    ``related``, that model's ``columns`` (all NULL when a LEFT JOIN found no row: the
    attribute is then None), set as ``instance.<name>`` as ``select_related`` would; then one
    column for each name of ``extra``, set as a plain attribute. Values are made what the
    ORM makes of them by each field's ``from_db_value``. ``locks``: the SQL locks rows
    (``FOR UPDATE``), so it runs on the database writes go to, inside a transaction.
    """

    def __init__(self, model: type[M], sql: str, *,
                 related: Sequence[tuple[str, type[models.Model]]] = (),
                 extra: Sequence[str] = (), locks: bool = False) -> None:
        self.model = model
        self.sql = sql
        self.locks = locks
        self.extra = tuple(extra)
        parts: list[tuple[str, type[models.Model]]] = [("", model), *related]
        self._parts = [_Part(name, part) for name, part in parts]

    def all(self, *params: Any) -> list[M]:
        return read_together((self, params))[0]

    def alias(self) -> str:
        alias = (router.db_for_write(self.model) if self.locks
                 else router.db_for_read(self.model)) or DEFAULT_DB_ALIAS
        if self.locks and connections[alias].get_autocommit():
            # What the ORM says of select_for_update() outside a transaction: the lock would
            # be released at once.
            raise transaction.TransactionManagementError(
                "select_for_update cannot be used outside of a transaction.")
        return alias

    def first(self, *params: Any) -> M | None:
        found = self.all(*params)
        return found[0] if found else None

    def _instance(self, row: Sequence[Any], alias: str, conn: Any) -> M:
        made: list[models.Model | None] = []
        at = 0
        for part in self._parts:
            values = list(row[at:at + part.width])
            at += part.width
            if values[part.pk_at] is None:
                made.append(None)  # a LEFT JOIN that found no row
                continue
            for i, convert in part.converters:
                values[i] = convert(values[i], None, conn)
            made.append(part.model.from_db(alias, part.attnames, values))
        obj = made[0]
        assert obj is not None
        for part, related in zip(self._parts[1:], made[1:], strict=True):
            setattr(obj, part.name, related)
        for name, value in zip(self.extra, row[at:], strict=True):
            setattr(obj, name, value)
        return obj  # type: ignore[return-value]


class SqlRows:
    """A hot path's SELECT whose rows are wanted as they come, tuples, not instances: for
    a few columns of several rows (the ids of a settlement's accounts), where making each
    row an instance (and parsing each timestamp in Python) would cost more than the read.
    ``model`` routes it as a read of that model. Sent alone (``all``) or with others
    (``read_together``)."""

    def __init__(self, model: type[models.Model], sql: str) -> None:
        self.model = model
        self.sql = sql

    def all(self, *params: Any) -> list[tuple[Any, ...]]:
        return read_together((self, params))[0]

    def alias(self) -> str:
        return router.db_for_read(self.model) or DEFAULT_DB_ALIAS

    def _instance(self, row: Sequence[Any], alias: str, conn: Any) -> tuple[Any, ...]:
        return tuple(row)


Read = SqlRead[Any] | SqlRows


def read_together(*reads: tuple[Read, Sequence[Any]]) -> list[list[Any]]:
    """The rows of several ``SqlRead``s (each with its parameters), sent to the server
    together and answered in one round trip: psycopg's pipeline mode sends every statement
    before it reads the first answer. PostgreSQL still runs them one after the other, in
    the order given, each with a snapshot of its own (READ COMMITTED): a read placed after
    a ``FOR UPDATE`` runs once the lock is granted and sees what its last holder committed,
    exactly as if it had been sent after the lock's answer. Every read goes to one
    database."""
    aliases = {read.alias() for read, _ in reads}
    if len(aliases) != 1:
        raise ValueError("read_together reads from one database")
    alias = aliases.pop()
    conn = connections[alias]
    answers = _together(conn, [(read.sql, params) for read, params in reads])
    return [[read._instance(row, alias, conn) for row in rows]
            for (read, _), rows in zip(reads, answers, strict=True)]


def _together(conn: Any, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Any]]:
    """Each statement's rows, every statement sent before the first answer is read (one
    statement: as any other query). Through Django's cursors, so errors come wrapped as
    Django's and the query log and execute wrappers see every statement."""
    if len(statements) == 1:
        ((sql, params),) = statements
        with conn.cursor() as cursor:
            cursor.execute(sql, params)
            return [cursor.fetchall()]
    with contextlib.ExitStack() as stack:
        cursors = [stack.enter_context(conn.cursor()) for _ in statements]
        # Cursor.connection and Connection.pipeline(): psycopg's public API. A failed
        # statement fails those after it; the first error is raised by its fetch.
        stack.enter_context(cursors[0].connection.pipeline())
        for cursor, (sql, params) in zip(cursors, statements, strict=True):
            cursor.execute(sql, params)
        return [cursor.fetchall() for cursor in cursors]


class _Part:
    """One model's columns in a SqlRead's rows, worked out once: every row needs the same."""

    def __init__(self, name: str, model: type[models.Model]) -> None:
        fields = list(model._meta.concrete_fields)
        self.name = name
        self.model = model
        self.width = len(fields)
        self.attnames = [f.attname for f in fields]
        # Where the key is: None there means a LEFT JOIN found no row.
        self.pk_at = fields.index(model._meta.pk)
        self.converters = [(i, f.from_db_value) for i, f in enumerate(fields)
                           if hasattr(f, "from_db_value")]
