import threading
import time
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import DataError, IntegrityError, connections, transaction
from django.db.models import F

from casino.models import Player
from casino.shared.db import (
    SqlRead,
    columns,
    insert_row,
    insert_rows,
    read_together,
    update_rows,
    write_rows,
)
from rounds.models import Table, TableSettingsChange
from tests.round_trips import round_trips

pytestmark = pytest.mark.django_db


def test_update_rows_writes_each_objects_own_values_in_one_statement(django_assert_num_queries):
    tables = [Table.objects.create(name=f"T{n}") for n in range(3)]
    tables[0].min_bet, tables[0].house_way = 500, "bands"
    tables[1].min_bet, tables[1].house_way = 300, "foxwoods"
    tables[2].min_bet, tables[2].house_way = 100, "x" * 30

    with django_assert_num_queries(1):
        assert update_rows(tables, ["min_bet", "house_way"]) == 3

    assert list(Table.objects.order_by("id").values_list("min_bet", "house_way")) == [
        (500, "bands"), (300, "foxwoods"), (100, "x" * 30)]


def test_update_rows_writes_nulls_and_leaves_other_rows_alone():
    keep = Player.objects.create(name="Keep")
    change = Player.objects.create(name="Change")
    change.name = "Changed"
    change.created_by = None

    update_rows([change], ["name", "created_by"])

    assert list(Player.objects.order_by("id").values_list("name", flat=True)) == [
        "Keep", "Changed"]
    keep.refresh_from_db()
    assert keep.name == "Keep"


def test_update_rows_of_nothing_runs_no_query(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert update_rows([], ["name"]) == 0


# --- SqlRead: a hot read written as SQL, its rows made instances by Model.from_db -----------

def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


PLAYER_WITH_CREATOR = SqlRead(
    Player, f'SELECT {columns(Player, "p")}, {columns(User, "u")}, u.username '
    f'FROM "{Player._meta.db_table}" p LEFT JOIN "{User._meta.db_table}" u '
    "ON u.id = p.created_by_id WHERE p.id = %s",
    related=[("created_by", User)], extra=["by_name"])


def test_a_sql_read_gives_the_orms_instances_for_each_parameter(django_assert_num_queries):
    anna = User.objects.create(username="anna")
    players = [Player.objects.create(name=f"P{n}", created_by=anna if n else None)
               for n in range(3)]

    for player in players:
        with django_assert_num_queries(1):
            [found] = PLAYER_WITH_CREATOR.all(player.pk)
        orm = (Player.objects.select_related("created_by")
               .annotate(by_name=F("created_by__username")).get(pk=player.pk))
        assert _fields(found) == _fields(orm)
        assert found.by_name == orm.by_name  # type: ignore[attr-defined]
        # The joined row came with it (None where the LEFT JOIN found none): no query more.
        with django_assert_num_queries(0):
            assert (found.created_by and found.created_by.username) == \
                (orm.created_by and orm.created_by.username)
        assert found._state.db == "default" and not found._state.adding
    assert PLAYER_WITH_CREATOR.first(-1) is None
    # No row has a key beyond the column's range, and the server is not troubled by one.
    assert PLAYER_WITH_CREATOR.all(2**70) == [] and PLAYER_WITH_CREATOR.all(-(2**70)) == []


def test_django_prepares_a_statement_run_again_on_its_connection():
    # given the settings' server-side binding and prepare threshold (casino.settings)
    from django.db import connection

    options = connection.settings_dict["OPTIONS"]
    assert options["server_side_binding"] is True
    players = [Player.objects.create(name=f"P{n}") for n in range(6)]
    by_id = SqlRead(Player, f'SELECT {columns(Player, "p")} FROM "{Player._meta.db_table}" p '
                    "WHERE p.id = %s")

    def runs_of_the_prepared_statement() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT coalesce(sum(generic_plans + custom_plans), 0)"
                           " FROM pg_prepared_statements WHERE statement = %s",
                           [by_id.sql.replace("%s", "$1")])
            return cursor.fetchone()[0]

    # when the read runs once per player
    found = [by_id.first(p.pk) for p in players]
    assert [p and p.name for p in found] == [f"P{n}" for n in range(6)]

    # then from the threshold on, the server ran the one prepared statement
    # (psycopg: run that many times unprepared, prepared at the next run)
    assert runs_of_the_prepared_statement() == len(players) - options["prepare_threshold"]


def test_a_sql_read_converts_columns_as_the_orm_does():
    user = User.objects.create(username="pit")
    table = Table.objects.create(name="T")
    TableSettingsChange.objects.create(table=table, changed_by=user,
                                       changes={"min_bet": [100, 500], "note": "x"})
    changes = SqlRead(TableSettingsChange,
                      f'SELECT {columns(TableSettingsChange, "c")} '
                      f'FROM "{TableSettingsChange._meta.db_table}" c WHERE c.table_id = %s')

    [change] = changes.all(table.pk)

    assert change.changes == {"min_bet": [100, 500], "note": "x"}  # JSON decoded
    assert change.changed_at == TableSettingsChange.objects.get().changed_at
    tables = SqlRead(Table, f'SELECT {columns(Table, "t")} FROM "{Table._meta.db_table}" t '
                     "WHERE t.id = %s")
    [found] = tables.all(table.pk)
    assert _fields(found) == _fields(Table.objects.get(pk=table.pk))  # an array too


@pytest.mark.django_db(transaction=True)
def test_a_sql_read_that_locks_needs_a_transaction_as_the_orms_does():
    table = Table.objects.create(name="T")
    locked = SqlRead(Table, f'SELECT {columns(Table, "t")} FROM "{Table._meta.db_table}" t '
                     "WHERE t.id = %s FOR UPDATE", locks=True)
    with transaction.atomic():
        assert locked.first(table.pk) == table
    with pytest.raises(transaction.TransactionManagementError):
        locked.all(table.pk)


def test_insert_row_writes_what_save_writes_and_gives_the_id(django_assert_num_queries):
    anna = User.objects.create(username="anna")
    table = Table.objects.create(name="T")
    saved = TableSettingsChange(table=table, changed_by=anna, changes={"a": [1, 2]})
    saved.save()

    with django_assert_num_queries(1):
        inserted = insert_row(TableSettingsChange(table=table, changed_by=anna,
                                                  changes={"a": [1, 2]}))

    assert inserted.pk == saved.pk + 1 and not inserted._state.adding
    rows = list(TableSettingsChange.objects.order_by("id").values("table", "changed_by",
                                                                  "changes"))
    assert rows[0] == rows[1] == {"table": table.pk, "changed_by": anna.pk,
                                  "changes": {"a": [1, 2]}}
    # auto_now_add stamped it, as save() does.
    assert TableSettingsChange.objects.get(pk=inserted.pk).changed_at >= saved.changed_at


def test_write_rows_writes_every_update_and_the_insert_in_one_statement(
        django_assert_num_queries):
    anna = User.objects.create(username="anna")
    tables = [Table.objects.create(name=f"T{n}") for n in range(3)]
    player = Player.objects.create(name="Before")
    tables[0].min_bet, tables[2].min_bet = 300, 700
    player.name = "After"

    with django_assert_num_queries(1):
        inserted = write_rows(
            updates=[(tables[::2], ["min_bet"]), ([], ["name"]), ([player], ["name"])],
            insert=TableSettingsChange(table=tables[1], changed_by=anna, changes={"n": 1}))

    assert list(Table.objects.order_by("id").values_list("min_bet", flat=True)) == [
        300, Table._meta.get_field("min_bet").default, 700]
    assert Player.objects.get(pk=player.pk).name == "After"
    row = TableSettingsChange.objects.get(pk=inserted.pk)
    assert (row.table_id, row.changed_by_id, row.changes) == (tables[1].pk, anna.pk, {"n": 1})
    assert not inserted._state.adding


def test_write_rows_writes_nothing_when_one_part_is_refused():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    anna = User.objects.create(username="anna")
    tables = [Table.objects.create(name=f"T{n}") for n in range(2)]
    player = Player.objects.create(name="Before")
    player.name = "After"
    tables[1].min_bet = 0  # the table's limits must be positive

    with CaptureQueriesContext(connection) as sent, pytest.raises(
            IntegrityError, match="table_limits_positive"), transaction.atomic():
        write_rows(updates=[([player], ["name"]), (tables[1:], ["min_bet"])],
                   insert=TableSettingsChange(table=tables[0], changed_by=anna, changes={}))

    # one statement (between the savepoint and its rollback) carried all three parts
    (statement,) = [q["sql"] for q in sent.captured_queries if "SAVEPOINT" not in q["sql"]]
    assert statement.startswith("WITH w0 AS (UPDATE") and "INSERT INTO" in statement
    assert Player.objects.get(pk=player.pk).name == "Before"
    assert not TableSettingsChange.objects.exists()


def test_write_rows_refuses_to_update_one_row_twice(django_assert_num_queries):
    anna = User.objects.create(username="anna")
    table = Table.objects.create(name="T")
    twice = Table.objects.get(pk=table.pk)
    table.min_bet, twice.name = 300, "Renamed"

    with django_assert_num_queries(0), pytest.raises(ValueError, match="each row once"):
        write_rows(updates=[([table], ["min_bet"]), ([twice], ["name"])],
                   insert=TableSettingsChange(table=table, changed_by=anna, changes={}))


def test_the_hot_paths_writes_are_prepared_statements_too():
    from django.db import connection

    anna = User.objects.create(username="anna")
    tables = [Table.objects.create(name=f"T{n}") for n in range(2)]
    threshold = connection.settings_dict["OPTIONS"]["prepare_threshold"]
    for _ in range(threshold + 1):  # psycopg prepares a statement at its run past the threshold
        insert_row(TableSettingsChange(table=tables[0], changed_by=anna, changes={}))
        tables[0].min_bet = tables[1].min_bet = 700
        update_rows(tables[:1], ["min_bet"])
        update_rows(tables, ["min_bet"])

    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    table = Table._meta.db_table
    assert any(s.startswith(f'INSERT INTO "{TableSettingsChange._meta.db_table}"')
               for s in prepared)
    assert any(s.startswith(f'UPDATE "{table}" SET') for s in prepared)
    assert any(s.startswith(f'UPDATE "{table}" AS t SET') for s in prepared)
    assert list(Table.objects.values_list("min_bet", flat=True)) == [700, 700]


# --- read_together: several SqlReads, one round trip ----------------------------------------

PLAYER_BY_ID = SqlRead(Player, f'SELECT {columns(Player, "p")} FROM "{Player._meta.db_table}" p '
                       "WHERE p.id = %s")
TABLES_BY_NAME = SqlRead(Table, f'SELECT {columns(Table, "t")} FROM "{Table._meta.db_table}" t '
                         "WHERE t.name LIKE %s ORDER BY t.id")


def test_read_together_answers_each_read_as_it_would_alone(django_assert_num_queries):
    players = [Player.objects.create(name=f"P{n}") for n in range(2)]
    tables = [Table.objects.create(name=f"Read {n}") for n in range(3)]
    alone: list[list[Any]] = [PLAYER_BY_ID.all(players[1].pk), TABLES_BY_NAME.all("Read %"),
             PLAYER_BY_ID.all(-1)]

    with django_assert_num_queries(3):  # three statements, in one round trip (below)
        together = read_together((PLAYER_BY_ID, (players[1].pk,)), (TABLES_BY_NAME, ("Read %",)),
                                 (PLAYER_BY_ID, (-1,)))

    assert [[_fields(o) for o in rows] for rows in together] == \
        [[_fields(o) for o in rows] for rows in alone]
    assert [t.pk for t in together[1]] == [t.pk for t in tables]
    assert together[2] == []


def test_read_together_sends_every_statement_before_it_reads_the_first_answer(tmp_path):
    # given a trace of what the connection sends (F) and receives (B), libpq's own
    from django.db import connection
    from psycopg import pq

    player = Player.objects.create(name="Traced")
    trace = tmp_path / "trace.txt"
    with connection.cursor() as cursor, trace.open("w") as out:
        pgconn = cursor.connection.pgconn
        pgconn.trace(out.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            # when three reads go together
            read_together((PLAYER_BY_ID, (player.pk,)), (TABLES_BY_NAME, ("%",)),
                          (PLAYER_BY_ID, (player.pk,)))
        finally:
            pgconn.untrace()

    # then the three executions went out before the first row came back: one round trip
    lines = trace.read_text().splitlines()
    sent = [i for i, line in enumerate(lines) if line.split("\t")[0] == "F"
            and "Execute" in line]
    received = [i for i, line in enumerate(lines) if line.split("\t")[0] == "B"
                and "DataRow" in line]
    assert len(sent) == 3 and received, "\n".join(lines)
    assert max(sent) < min(received), "\n".join(lines)


def test_an_error_in_a_read_together_is_djangos_and_leaves_the_rest_unread():
    broken = SqlRead(Player, f'SELECT {columns(Player, "p")} FROM "{Player._meta.db_table}" p '
                     "WHERE p.id = 1 / %s")
    with pytest.raises(DataError), transaction.atomic():
        read_together((PLAYER_BY_ID, (1,)), (broken, (0,)), (PLAYER_BY_ID, (1,)))
    # the connection is usable after the failed block
    assert PLAYER_BY_ID.all(-1) == []


@pytest.mark.django_db(transaction=True)
def test_a_read_sent_after_a_lock_sees_what_the_locks_holder_committed():
    # given a player whose row another transaction holds locked while it renames them
    player = Player.objects.create(name="Before")
    locked = SqlRead(Player, f'SELECT {columns(Player, "p")} FROM "{Player._meta.db_table}" p '
                     "WHERE p.id = %s FOR UPDATE", locks=True)
    holding, done = threading.Event(), threading.Event()

    def holder() -> None:
        try:
            with transaction.atomic():
                locked.first(player.pk)
                Player.objects.filter(pk=player.pk).update(name="After")
                holding.set()
                time.sleep(0.3)
        finally:
            connections.close_all()
            done.set()

    thread = threading.Thread(target=holder)
    thread.start()
    assert holding.wait(5)

    # when the lock and a plain read of the row go together
    with transaction.atomic():
        [[first], [then]] = read_together((locked, (player.pk,)), (PLAYER_BY_ID, (player.pk,)))

    # then the read ran after the lock was granted, and saw the holder's commit
    thread.join(5)
    assert done.is_set()
    assert first.name == then.name == "After"


def test_insert_rows_writes_each_as_insert_row_does_in_one_round_trip(django_assert_num_queries):
    anna = User.objects.create(username="anna")
    table = Table.objects.create(name="T")
    change = TableSettingsChange(table=table, changed_by=anna, changes={"a": [1, 2]})
    player = Player.objects.create(name="Before")
    new_player = Player(name="New", created_by=anna)

    with django_assert_num_queries(2), round_trips() as trips:
        insert_rows(change, new_player)

    assert trips.count == 1, trips
    assert not change._state.adding and not new_player._state.adding
    assert TableSettingsChange.objects.get(pk=change.pk).changes == {"a": [1, 2]}
    assert Player.objects.get(pk=new_player.pk).name == "New"
    assert new_player.pk == player.pk + 1


@pytest.mark.django_db(transaction=True)
def test_writes_sent_together_outside_a_transaction_fail_as_djangos_and_leave_nothing():
    # given no transaction, and a second row whose foreign key (deferred) names nothing
    anna = User.objects.create(username="anna")
    ghost = TableSettingsChange(table_id=987_654, changed_by=anna, changes={})

    # when both go together, then the error is Django's, and neither row was written
    with pytest.raises(IntegrityError):
        insert_rows(Player(name="Kept?"), ghost)
    assert not Player.objects.filter(name="Kept?").exists()
    # and the connection goes on
    assert PLAYER_BY_ID.all(-1) == []
    insert_rows(Player(name="After"), TableSettingsChange(
        table=Table.objects.create(name="T"), changed_by=anna, changes={}))
    assert Player.objects.filter(name="After").exists()
