"""Database statements the ORM writes slowly on hot paths."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections, models, router, transaction

M = TypeVar("M", bound=models.Model)


def update_rows(objs: Sequence[models.Model], fields: Sequence[str]) -> int:
    """Write ``fields`` of every object in ONE ``UPDATE ... FROM unnest(...)`` statement
    (of one object: ``UPDATE ... WHERE pk = ...``).

    The same single statement as ``QuerySet.bulk_update``, without its ``CASE WHEN`` per
    row and field, which costs more to build in Python than the database takes to run it
    (it was most of a round's settlement time). Values go as typed arrays, one per column.
    """
    if not objs:
        return 0
    sql, params = _update_statement(objs, fields)
    alias = router.db_for_write(type(objs[0])) or DEFAULT_DB_ALIAS
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


# (model, fields, one row or many) -> the statement's text and its columns: built once.
_UPDATES: dict[tuple[type[models.Model], tuple[str, ...], bool],
               tuple[str, list[models.Field]]] = {}


def _update_statement(objs: Sequence[models.Model], fields: Sequence[str]) -> tuple[str, list]:
    meta = objs[0]._meta
    pk = meta.pk
    one = len(objs) == 1
    fields = tuple(fields)
    shape = (type(objs[0]), fields, one)
    if shape not in _UPDATES:
        columns: list[models.Field] = []
        for name in fields:
            field = meta.get_field(name)
            if not isinstance(field, models.Field) or not field.concrete:
                raise ValueError(f"{meta.label}.{name} is not a column")
            columns.append(field)
        if one:
            # One row: a plain UPDATE by its key, which PostgreSQL plans faster than the
            # join with the arrays (0.4 against 0.7 ms for a round's twelve settled columns).
            sets = ", ".join(f'"{c.column}" = %s' for c in columns)
            sql = f'UPDATE "{meta.db_table}" SET {sets} WHERE "{pk.column}" = %s'  # noqa: S608
        else:
            sets = ", ".join(f'"{c.column}" = v."{c.column}"' for c in columns)
            arrays = ", ".join(
                f'unnest(%s::{c.db_type(connection)}[]) AS "{c.column}"' for c in [pk, *columns])
            sql = (f'UPDATE "{meta.db_table}" AS t SET {sets} '  # noqa: S608
                   f'FROM (SELECT {arrays}) AS v WHERE t."{pk.column}" = v."{pk.column}"')
        _UPDATES[shape] = (sql, columns)
    sql, columns = _UPDATES[shape]
    # Every value as its field prepares it, keys too: psycopg prepares a statement once per
    # set of parameter types, and a bare int would go as int2, int4 or int8 by its size.
    if one:
        (obj,) = objs
        return sql, [*(c.get_db_prep_save(getattr(obj, c.attname), connection) for c in columns),
                     pk.get_db_prep_save(obj.pk, connection)]
    return sql, [[pk.get_db_prep_save(o.pk, connection) for o in objs]] + [
        [c.get_db_prep_save(getattr(o, c.attname), connection) for o in objs] for c in columns]


_INSERTS: dict[type[models.Model], tuple[str, list[models.Field]]] = {}


def insert_row(obj: M) -> M:
    """INSERT one new row of ``obj`` and give it its id, as ``save()`` on a new object does
    (each field's ``pre_save``, so ``auto_now_add`` stamps it; the values prepared by their
    fields), with the statement built once per model instead of compiled at every call.
    No ``pre_save``/``post_save`` signal is sent: for rows no receiver listens to (a round's
    events and wagers), written on every step of a round."""
    return write_rows(updates=(), insert=obj)


def _insert_statement(obj: models.Model, conn: Any) -> tuple[str, list[Any]]:
    """The INSERT of ``obj``'s row returning its key, built once per model, and its values
    as each field prepares them (``pre_save`` first, so ``auto_now_add`` stamps it)."""
    model = type(obj)
    if model not in _INSERTS:
        meta = model._meta
        written = [f for f in meta.concrete_fields if not f.primary_key]
        if not isinstance(meta.pk, models.AutoField | models.BigAutoField) or any(
                f.db_default is not models.NOT_PROVIDED or f.generated for f in written):
            raise ValueError(f"insert_row writes {meta.label}'s columns as save() does only "
                             "for a key the database numbers and no database default")
        columns = ", ".join(f'"{f.column}"' for f in written)
        placeholders = ", ".join(["%s"] * len(written))
        _INSERTS[model] = (f'INSERT INTO "{meta.db_table}" ({columns}) '  # noqa: S608
                           f'VALUES ({placeholders}) RETURNING "{meta.pk.column}"', written)
    sql, fields = _INSERTS[model]
    return sql, [f.get_db_prep_save(f.pre_save(obj, True), conn) for f in fields]


def insert_rows(*objs: models.Model,
                then: Sequence[tuple[Read, Sequence[Any]]] = ()) -> list[list[Any]]:
    """``insert_row`` of each object, the INSERTs sent together (read_together's pipeline):
    one round trip. Each gets its id. Every model goes to one database. The reads ``then``
    (as read_together's) are sent after the INSERTs, in their round trip, and see them;
    returns their rows, a list per read."""
    aliases = {router.db_for_write(type(obj)) or DEFAULT_DB_ALIAS for obj in objs}
    if len(aliases) != 1:
        raise ValueError("insert_rows writes to one database")
    alias = aliases.pop()
    if any(read.alias() != alias for read, _ in then):
        raise ValueError("insert_rows reads from the database it writes to")
    conn = connections[alias]
    with _one_transaction(conn, len(objs) + len(then)):
        answers = _together(conn, [*(_insert_statement(obj, conn) for obj in objs),
                                   *((read.sql, params) for read, params in then)])
    for obj, rows in zip(objs, answers[:len(objs)], strict=True):
        obj.pk = rows[0][0]
        obj._state.adding = False
        obj._state.db = conn.alias
    return [[read._instance(row, alias, conn) for row in rows]
            for (read, _), rows in zip(then, answers[len(objs):], strict=True)]


def write_rows(*, updates: Sequence[tuple[Sequence[models.Model], Sequence[str]]],
               insert: M) -> M:
    """``update_rows`` of each (objects, fields) pair and ``insert_row`` of ``insert``, as
    ONE statement: the updates as data-modifying ``WITH`` queries, the INSERT as the main
    query.

    For the end of a step that writes several tables at once (a settlement's hands, its
    round and its event): one round trip instead of one per table. PostgreSQL runs every
    part exactly once, in an order of its own (the WITH queries nothing reads finish after
    the INSERT), all from the statement's one snapshot: no part sees what another writes,
    so none may depend on another, and two parts may not update one row (PostgreSQL would
    silently keep one of the two; refused here). The foreign keys are checked at the end of
    the statement, when every part is written. Every model goes to one database."""
    write_rows_then_read(updates=updates, insert=insert, then=())
    return insert


def write_rows_then_read(*, updates: Sequence[tuple[Sequence[models.Model], Sequence[str]]],
                         insert: models.Model,
                         then: Sequence[tuple[Read, Sequence[Any]]]) -> list[list[Any]]:
    """``write_rows``, and the reads ``then`` (as read_together's) sent with its statement, in
    its round trip: they run after it, in the same transaction, and see what it wrote.
    Returns their rows, a list per read."""
    model = type(insert)
    alias = router.db_for_write(model) or DEFAULT_DB_ALIAS
    parts: list[str] = []
    params: list = []
    updated: set[tuple[str, Any]] = set()
    for objs, fields in updates:
        if not objs:
            continue
        if (router.db_for_write(type(objs[0])) or DEFAULT_DB_ALIAS) != alias:
            raise ValueError("write_rows writes to one database only")
        rows = {(o._meta.db_table, o.pk) for o in objs}
        if len(rows) < len(objs) or rows & updated:
            raise ValueError("write_rows updates each row once")
        updated |= rows
        sql, values = _update_statement(objs, fields)
        parts.append(f"w{len(parts)} AS ({sql})")
        params += values
    conn = connections[alias]
    sql, values = _insert_statement(insert, conn)
    params += values
    if parts:
        sql = f"WITH {', '.join(parts)} {sql}"
    if any(read.alias() != alias for read, _ in then):
        raise ValueError("write_rows reads from the database it writes to")
    with _one_transaction(conn, 1 + len(then)):
        answers = _together(conn, [(sql, params), *((read.sql, p) for read, p in then)])
    insert.pk = answers[0][0][0]
    insert._state.adding = False
    insert._state.db = conn.alias
    return [[read._instance(row, alias, conn) for row in rows]
            for (read, _), rows in zip(then, answers[1:], strict=True)]


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


def _one_transaction(conn: Any, statements: int) -> contextlib.AbstractContextManager[Any]:
    """Writes sent together run in a transaction of Django's: outside one, the pipeline's
    statements would commit at its end, and an error only the commit finds (a deferred
    foreign key) would come from leaving the pipeline, not from a statement's answer:
    unwrapped, and with the connection left in pipeline mode."""
    if statements > 1 and conn.get_autocommit():
        return transaction.atomic(using=conn.alias)
    return contextlib.nullcontext()


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
