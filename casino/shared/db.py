"""Database statements the ORM writes slowly on hot paths."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections, models, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.postgresql.psycopg_any import register_tzloader
from django.db.backends.utils import CursorWrapper
from django.db.models import QuerySet
from django.db.models.query import (  # type: ignore[attr-defined]
    ModelIterable,
    ValuesListIterable,
    get_related_populators,
)
from psycopg.pq import Format
from psycopg.types.numeric import Int2, Int4, Int8

M = TypeVar("M", bound=models.Model)


class _PreparedCursor(psycopg.Cursor):
    """Parameters bound by the server, and each statement prepared at its first use.

    For the few statements every request or movement runs, always with the same text:
    prepared once per connection, PostgreSQL neither parses nor plans them again (after its
    first five runs it keeps a generic plan when that is no dearer). Django's own cursors
    bind client-side and never prepare."""

    def execute(self, query, params=None, *, prepare=None, binary=None):  # type: ignore[override]
        return super().execute(query, params, prepare=True, binary=binary)

    def _maybe_prepare_gen(self, pgq, *, prepare=None, binary=None):  # type: ignore[override]
        # Django's query log reads the statement from _query, which psycopg sets only when
        # it does not prepare.
        self._query = pgq
        return super()._maybe_prepare_gen(pgq, prepare=prepare, binary=binary)


_TIMESTAMPTZ_OID = psycopg.adapters.types["timestamptz"].oid


def prepared_cursor(conn: BaseDatabaseWrapper = connection) -> CursorWrapper:
    """A cursor whose statements are prepared on the server, in Django's wrapper as
    ``conn.cursor()`` gives its own: database errors wrapped, execute_wrappers and the query
    log applied. Its parameters keep the type psycopg gives them (an int2 for a small int,
    unknown for None): a statement is prepared once per set of types, so the SQL casts
    where a type must not vary."""
    conn.ensure_connection()
    raw = _PreparedCursor(conn.connection)
    # As Django's create_cursor: timestamps in the connection's zone.
    tzloader = raw.adapters.get_loader(_TIMESTAMPTZ_OID, Format.TEXT)
    if conn.timezone != getattr(tzloader, "timezone", None):
        register_tzloader(conn.timezone, raw)
    return conn._prepare_cursor(raw)  # type: ignore[attr-defined]


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
    with prepared_cursor() as cursor:
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
    sql, insert_fields = _INSERTS[model]
    conn = connections[alias]
    params += [f.get_db_prep_save(f.pre_save(insert, True), conn) for f in insert_fields]
    if parts:
        sql = f"WITH {', '.join(parts)} {sql}"
    with prepared_cursor(conn) as cursor:
        cursor.execute(sql, params)
        insert.pk = cursor.fetchone()[0]
    insert._state.adding = False
    insert._state.db = conn.alias
    return insert


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


class Compiled(Generic[M]):
    """A hot path's SELECT, compiled by the ORM once per process and run again with other
    parameters, each compared with ``=``; its rows become model instances as the ORM makes
    them (the same columns, converters, ``select_related`` rows and annotations; not the
    parent a related manager's queryset sets on each row, nor ``first()``'s ordering by
    key: give the queryset its order). ``CompiledRows`` does the same for a plain
    ``values_list()`` queryset and gives its rows.

    Building and compiling a queryset costs Django more than PostgreSQL takes to answer it:
    about 0.4 ms of Python for a handful of rows found by a key that the server returns in
    0.1 ms (docs/benchmarks.md). A request that reads a round in four queries paid that four
    times, and every step of a round answers with the round. ``build`` makes the queryset
    from its parameters; it is called at the first run, twice, with markers, and every
    marker must come out among the compiled statement's parameters (so a parameter the ORM
    would have folded into the SQL text, or dropped, is refused rather than ignored).
    The statement runs prepared (``prepared_cursor``): PostgreSQL parses it once per
    connection instead of at every request (a settle request alone went from about 21.7 to
    18.8 ms, medians of five interleaved runs of bench/profile_settle.py).
    """

    def __init__(self, build: Callable[..., QuerySet[M, Any]], *,
                 params: Sequence[type] = (int,)) -> None:
        """``params``: the type of each of ``build``'s parameters (``int`` or ``str``)."""
        if any(kind not in (int, str) for kind in params):
            raise TypeError("a compiled query's parameters are integers or strings")
        self._build = build
        self._kinds = tuple(params)
        self._plan: _Plan | None = None

    def _markers(self, base: int) -> list[Any]:
        # Small positive integers (the ORM refuses a value outside a column's range, even a
        # smallint's), strings with a NUL (which PostgreSQL's text never holds).
        return [base + i if kind is int else f"\x00compiled parameter {base + i}"
                for i, kind in enumerate(self._kinds)]

    def _compile(self) -> _Plan:
        # Compiled twice with two sets of markers: a parameter is a position whose value is
        # each set's marker; every other value must be the same in both (a constant of the
        # query, even one equal to a marker), and so must the SQL.
        first, second = self._markers(30_001), self._markers(30_101)
        queryset = self._build(*first)
        compiler = queryset.query.get_compiler(using=DEFAULT_DB_ALIAS)
        sql, params = compiler.as_sql()
        sql_again, params_again = self._build(*second).query.get_compiler(
            using=DEFAULT_DB_ALIAS).as_sql()
        slots: list[int | None] = []
        for a, b in zip(params, params_again, strict=False):
            slot = next((i for i, (m, n) in enumerate(zip(first, second, strict=True))
                         if _same(a, m) and _same(b, n)), None)
            if slot is None and a != b:
                slot = -1
            slots.append(slot)
        if (sql != sql_again or len(params) != len(params_again) or -1 in slots
                or {s for s in slots if s is not None} != set(range(len(first)))):
            raise ValueError(f"{queryset.model.__name__}: every parameter must reach the SQL "
                             "as a parameter of its own")
        # The ORM sends a smallint's or an integer's value wrapped in psycopg's Int2/Int4, so
        # the server compares it as that type: the wrapper is kept for the new value.
        wrappers = [type(p) if s is not None and type(p) in _INT_RANGES else None
                    for p, s in zip(params, slots, strict=True)]
        self._check_shape(queryset)
        self._check_lookups(queryset.query.where, first)
        instances = queryset._iterable_class is ModelIterable
        select = compiler.select
        klass_info = compiler.klass_info if instances else None
        fields = klass_info["select_fields"] if klass_info else [0]
        return _Plan(
            model=queryset.model, sql=sql, params=list(params), slots=slots, wrappers=wrappers,
            start=fields[0], end=fields[-1] + 1,
            init_list=[f[0].target.attname for f in select[fields[0]:fields[-1] + 1]]
            if klass_info else [],
            klass_info=klass_info or {}, select=select,
            annotations=dict(compiler.annotation_col_map or {}),
            converters=list(compiler.get_converters([s[0] for s in select]).items()),
            for_update=queryset.query.select_for_update,
        )

    @staticmethod
    def _check_lookups(node: Any, markers: list[Any]) -> None:
        """Parameters are compared for equality only: for an integer out of its column's
        range the ORM answers no row for ``=`` but every row for ``<`` or ``>``, and only
        the first is what ``_rows`` does without asking the server."""
        for child in getattr(node, "children", ()):
            Compiled._check_lookups(child, markers)
        rhs = getattr(node, "rhs", None)
        if hasattr(node, "lookup_name") and any(_same(rhs, m) for m in markers) \
                and node.lookup_name != "exact":
            raise ValueError(f"a compiled query's parameters are compared with =, "
                             f"not {node.lookup_name}")

    def _check_shape(self, queryset: QuerySet[Any, Any]) -> None:
        if queryset._iterable_class is not ModelIterable:
            raise ValueError("Compiled reads model instances; CompiledRows reads values_list()")

    def _rows(self, args: tuple[object, ...]) -> tuple[_Plan, str, list[list[Any]]]:
        if len(args) != len(self._kinds):
            raise TypeError(f"{len(self._kinds)} parameter(s) expected, {len(args)} given")
        # No conversion as the ORM's get_prep_value does ("12" for 12, None for IS NULL):
        # a value of another type is the caller's mistake, said at once. A subclass (a
        # TextChoices member) goes as its plain value.
        checked = []
        for arg, kind in zip(args, self._kinds, strict=True):
            if not isinstance(arg, kind) or isinstance(arg, bool):
                raise TypeError(f"a compiled query's parameter is of type {kind.__name__}, "
                                f"not {arg!r}")
            checked.append(arg if type(arg) is kind else kind(arg))
        args = tuple(checked)
        plan = self._plan
        if plan is None:
            plan = self._plan = self._compile()
        db = (router.db_for_write(plan.model) if plan.for_update
              else router.db_for_read(plan.model)) or DEFAULT_DB_ALIAS
        conn = connections[db]
        if plan.for_update and conn.get_autocommit():
            # What the ORM checks when it compiles a locking query: a lock outside a
            # transaction would be released at once.
            raise transaction.TransactionManagementError(
                "select_for_update cannot be used outside of a transaction.")
        params: list[Any] = []
        for p, s, wrap in zip(plan.params, plan.slots, plan.wrappers, strict=True):
            if s is None:
                params.append(p)
            elif wrap is None:
                params.append(args[s])
            else:
                low, high = _INT_RANGES[wrap]
                value = args[s]
                if not low <= value <= high:  # type: ignore[operator]
                    # The ORM answers no row for a value out of the column's range (and
                    # the server would refuse the value): so does this, asking nothing.
                    return plan, db, []
                params.append(wrap(value))
        with prepared_cursor(conn) as cursor:
            cursor.execute(plan.sql, params)
            fetched = cursor.fetchall()
        rows = []
        for raw in fetched:
            row = list(raw)
            for pos, (convs, expression) in plan.converters:
                value = row[pos]
                for convert in convs:
                    value = convert(value, expression, conn)
                row[pos] = value
            rows.append(row)
        return plan, db, rows

    def all(self, *args: object) -> list[M]:
        plan, db, rows = self._rows(args)
        populators = get_related_populators(plan.klass_info, plan.select, db)
        found = []
        for row in rows:
            obj = plan.model.from_db(db, plan.init_list, row[plan.start:plan.end])
            for populator in populators:
                populator.populate(row, obj)
            for name, pos in plan.annotations.items():
                setattr(obj, name, row[pos])
            found.append(obj)
        return found

    def first(self, *args: object) -> M | None:
        found = self.all(*args)
        return found[0] if found else None


class CompiledRows(Compiled[Any]):
    """``Compiled`` for a ``values_list()`` queryset: its rows, as tuples."""

    def _check_shape(self, queryset: QuerySet[Any, Any]) -> None:
        if queryset._iterable_class is not ValuesListIterable:
            raise ValueError("CompiledRows reads values_list() (not flat, not named); "
                             "Compiled reads instances")
        if queryset.query.annotation_select or queryset.query.extra_select:
            raise ValueError("CompiledRows reads plain columns: values_list() orders "
                             "annotations its own way")

    def all(self, *args: object) -> list[tuple[Any, ...]]:  # type: ignore[override]
        return [tuple(row) for row in self._rows(args)[2]]

    def first(self, *args: object) -> tuple[Any, ...] | None:  # type: ignore[override]
        found = self.all(*args)
        return found[0] if found else None


_INT_RANGES: dict[type, tuple[int, int]] = {
    Int2: (-(2**15), 2**15 - 1), Int4: (-(2**31), 2**31 - 1), Int8: (-(2**63), 2**63 - 1)}


def _same(value: Any, marker: Any) -> bool:
    """Whether a compiled parameter is this marker (an integer may come wrapped: Int2...)."""
    if isinstance(marker, int):
        return isinstance(value, int) and not isinstance(value, bool) and int(value) == marker
    return type(value) is str and value == marker


@dataclass(frozen=True)
class _Plan:
    model: Any
    sql: str
    params: list[Any]
    slots: list[int | None]
    wrappers: list[type | None]
    start: int
    end: int
    init_list: list[str]
    klass_info: dict[str, Any]
    select: Any
    annotations: dict[str, int]
    converters: list[Any]
    for_update: bool


def prefetched(instance: models.Model, name: str, rows: list[Any]) -> None:
    """Give ``instance.<name>.all()`` these rows, as ``prefetch_related`` does for a reverse
    foreign key (each row knows its parent too), for rows a ``Compiled`` query read."""
    related = getattr(instance, name)
    queryset = related.all()
    queryset._result_cache = rows
    queryset._prefetch_done = True
    for row in rows:
        related.field.set_cached_value(row, instance)
    cache = instance.__dict__.setdefault("_prefetched_objects_cache", {})
    cache[related.field.remote_field.cache_name] = queryset
