"""Database statements the ORM writes slowly on hot paths."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections, models, router, transaction
from django.db.models import QuerySet
from django.db.models.query import (  # type: ignore[attr-defined]
    ModelIterable,
    ValuesListIterable,
    get_related_populators,
)

M = TypeVar("M", bound=models.Model)


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


class Compiled(Generic[M]):
    """A hot path's SELECT, compiled by the ORM once per process and run again with other
    parameters; its rows become model instances exactly as the ORM makes them (the same
    columns, converters, ``select_related`` rows and annotations). ``CompiledRows`` does
    the same for a ``values_list()`` queryset and gives its rows.

    Building and compiling a queryset costs Django more than PostgreSQL takes to answer it:
    about 0.4 ms of Python for a handful of rows found by a key that the server returns in
    0.1 ms (docs/benchmarks.md). A request that reads a round in four queries paid that four
    times, and every step of a round answers with the round. ``build`` makes the queryset
    from its parameters; it is called once, with markers, and every marker must come out
    among the compiled statement's parameters (so a parameter the ORM would have folded
    into the SQL text, or dropped, is refused at the first call rather than ignored).
    """

    def __init__(self, build: Callable[..., QuerySet[M, Any]], *,
                 params: Sequence[type] = (int,)) -> None:
        """``params``: the type of each of ``build``'s parameters (``int`` or ``str``)."""
        if any(kind not in (int, str) for kind in params):
            raise TypeError("a compiled query's parameters are integers or strings")
        self._build = build
        self._kinds = tuple(params)
        self._plan: _Plan | None = None

    def _markers(self) -> list[Any]:
        # Values no key takes, one per parameter: large negative integers, strings with a NUL
        # (which PostgreSQL's text never holds).
        return [-(2**62) - i if kind is int else f"\x00compiled parameter {i}"
                for i, kind in enumerate(self._kinds)]

    def _compile(self) -> _Plan:
        markers = self._markers()
        queryset = self._build(*markers)
        compiler = queryset.query.get_compiler(using=DEFAULT_DB_ALIAS)
        sql, params = compiler.as_sql()
        slots = [next((i for i, m in enumerate(markers) if type(p) is type(m) and p == m), None)
                 for p in params]
        if {s for s in slots if s is not None} != set(range(len(markers))):
            raise ValueError(f"{queryset.model.__name__}: every parameter must reach the SQL "
                             "as a parameter of its own")
        self._check_shape(queryset._iterable_class)
        instances = queryset._iterable_class is ModelIterable
        select = compiler.select
        klass_info = compiler.klass_info if instances else None
        fields = klass_info["select_fields"] if klass_info else [0]
        return _Plan(
            model=queryset.model, sql=sql, params=list(params), slots=slots,
            start=fields[0], end=fields[-1] + 1,
            init_list=[f[0].target.attname for f in select[fields[0]:fields[-1] + 1]]
            if klass_info else [],
            klass_info=klass_info or {}, select=select,
            annotations=dict(compiler.annotation_col_map or {}),
            converters=list(compiler.get_converters([s[0] for s in select]).items()),
            for_update=queryset.query.select_for_update,
        )

    def _check_shape(self, iterable: type) -> None:
        if iterable is not ModelIterable:
            raise ValueError("Compiled reads model instances; CompiledRows reads values_list()")

    def _rows(self, args: tuple[object, ...]) -> tuple[_Plan, str, list[list[Any]]]:
        if len(args) != len(self._kinds):
            raise TypeError(f"{len(self._kinds)} parameter(s) expected, {len(args)} given")
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
        params = [p if s is None else args[s] for p, s in zip(plan.params, plan.slots, strict=True)]
        with conn.cursor() as cursor:
            cursor.execute(plan.sql, params)  # type: ignore[arg-type]
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

    def _check_shape(self, iterable: type) -> None:
        if iterable is not ValuesListIterable:
            raise ValueError("CompiledRows reads values_list() (not flat, not named); "
                             "Compiled reads instances")

    def all(self, *args: object) -> list[tuple[Any, ...]]:  # type: ignore[override]
        return [tuple(row) for row in self._rows(args)[2]]

    def first(self, *args: object) -> tuple[Any, ...] | None:  # type: ignore[override]
        found = self.all(*args)
        return found[0] if found else None


@dataclass(frozen=True)
class _Plan:
    model: Any
    sql: str
    params: list[Any]
    slots: list[int | None]
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
