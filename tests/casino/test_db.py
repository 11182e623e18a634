import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F

from casino.models import Player
from casino.shared.db import (
    Compiled,
    CompiledRows,
    insert_row,
    prefetched,
    update_rows,
    write_rows,
)
from rounds.models import Seat, Table, TableSettingsChange

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


# --- Compiled: a queryset compiled once, run again with other parameters --------------------

def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def test_a_compiled_query_gives_the_orms_instances_for_each_parameter(
        django_assert_num_queries):
    anna = User.objects.create(username="anna")
    players = [Player.objects.create(name=f"P{n}", created_by=anna if n else None)
               for n in range(3)]
    by_id = Compiled(lambda pk: Player.objects.select_related("created_by")
                     .annotate(by_name=F("created_by__username")).filter(pk=pk))

    for player in players:
        with django_assert_num_queries(1):
            [found] = by_id.all(player.pk)
        orm = (Player.objects.select_related("created_by")
               .annotate(by_name=F("created_by__username")).get(pk=player.pk))
        assert _fields(found) == _fields(orm)
        assert found.by_name == orm.by_name
        # The joined row came with it: reading it asks nothing more.
        with django_assert_num_queries(0):
            assert (found.created_by and found.created_by.username) == \
                (orm.created_by and orm.created_by.username)
        assert found._state.db == "default" and not found._state.adding
    assert by_id.first(-1) is None
    # No row has a key beyond the column's range; the ORM answers nothing for it too.
    assert by_id.all(2**70) == [] and by_id.all(-(2**70)) == []


def test_a_compiled_query_is_prepared_once_on_its_connection_and_run_again_from_there():
    from django.db import connection

    players = [Player.objects.create(name=f"P{n}") for n in range(3)]
    by_id = Compiled(lambda pk: Player.objects.filter(pk=pk))

    def runs_of_the_prepared_statement() -> list[int]:
        assert by_id._plan is not None
        with connection.cursor() as cursor:
            cursor.execute("SELECT generic_plans + custom_plans FROM pg_prepared_statements"
                           " WHERE statement = %s", [by_id._plan.sql.replace("%s", "$1")])
            return [row[0] for row in cursor.fetchall()]

    assert [p.name for p in by_id.all(players[0].pk)] == ["P0"]
    assert runs_of_the_prepared_statement() == [1]
    assert [p.name for p in by_id.all(players[1].pk)] == ["P1"]
    assert [p.name for p in by_id.all(players[2].pk)] == ["P2"]
    # The same one statement, planned by the server for each run, never parsed again.
    assert runs_of_the_prepared_statement() == [3]


def test_a_smallint_parameter_keeps_its_type_and_its_range():
    table = Table.objects.create(name="T")
    Seat.objects.get_or_create(table=table, number=3)
    seat = Compiled(lambda table_id, number: Seat.objects.filter(table_id=table_id,
                                                                 number=number),
                    params=(int, int))

    assert [s.number for s in seat.all(table.pk, 3)] == [3]
    # Beyond a smallint: no row, as the ORM answers, and nothing sent to the server.
    assert seat.all(table.pk, 99_999) == []


def test_a_constant_equal_to_a_marker_stays_a_constant():
    Table.objects.create(name="T", min_bet=30_001, max_bet=40_000)
    Table.objects.create(name="U", min_bet=30_001, max_bet=40_000)
    by_bet = Compiled(lambda name: Table.objects.filter(min_bet=30_001, name=name),
                      params=(str,))

    assert [t.name for t in by_bet.all("U")] == ["U"]
    assert by_bet.all("V") == []


def test_a_compiled_query_converts_columns_as_the_orm_does():
    user = User.objects.create(username="pit")
    table = Table.objects.create(name="T")
    TableSettingsChange.objects.create(table=table, changed_by=user,
                                       changes={"min_bet": [100, 500], "note": "x"})
    compiled = Compiled(lambda pk: TableSettingsChange.objects.filter(table_id=pk))

    [change] = compiled.all(table.pk)

    assert change.changes == {"min_bet": [100, 500], "note": "x"}  # JSON decoded
    assert change.changed_at == TableSettingsChange.objects.get().changed_at
    [found] = Compiled(lambda pk: Table.objects.filter(pk=pk)).all(table.pk)
    assert found.deal_modes == Table.objects.get(pk=table.pk).deal_modes  # an array


def test_a_compiled_query_compares_its_parameters_for_equality_with_their_own_type():
    Player.objects.create(name="A")
    # Out of range, "<" would match every row where "=" matches none: refused at once.
    with pytest.raises(ValueError, match="compared with ="):
        Compiled(lambda pk: Player.objects.filter(pk__lt=pk)).all(1)
    by_id = Compiled(lambda pk: Player.objects.filter(pk=pk))
    for wrong in ("1", 1.0, None, True):
        with pytest.raises(TypeError, match="of type int"):
            by_id.all(wrong)
    with pytest.raises(ValueError, match="plain columns"):
        CompiledRows(lambda pk: Player.objects.filter(pk=pk).annotate(
            by=F("created_by__username")).values_list("name", "by")).all(1)


def test_a_parameter_the_sql_does_not_carry_is_refused():
    # The marker never reaches the statement: running it would ignore the argument.
    ignored = Compiled(lambda pk: Player.objects.all())
    with pytest.raises(ValueError, match="every parameter"):
        ignored.all(1)
    with pytest.raises(TypeError):
        Compiled(lambda pk: Player.objects.filter(pk=pk)).all()


def test_compiled_rows_give_a_values_lists_rows_and_refuse_other_shapes():
    anna = User.objects.create(username="anna")
    Player.objects.create(name="A", created_by=anna)
    Player.objects.create(name="B")
    names = CompiledRows(lambda pk: Player.objects.filter(created_by=pk)
                         .values_list("name", "created_by__username"))

    assert names.all(anna.pk) == [("A", "anna")]
    assert names.all(anna.pk + 1) == []
    with pytest.raises(ValueError, match="values_list"):
        CompiledRows(lambda pk: Player.objects.filter(pk=pk)).all(1)
    with pytest.raises(ValueError, match="values_list"):
        CompiledRows(lambda pk: Player.objects.filter(pk=pk).values("name")).all(1)
    with pytest.raises(ValueError, match="instances"):
        Compiled(lambda pk: Player.objects.filter(pk=pk).values_list("name")).all(1)


@pytest.mark.django_db(transaction=True)
def test_a_compiled_lock_needs_a_transaction_as_the_orms_does():
    table = Table.objects.create(name="T")
    locked = Compiled(lambda pk: Table.objects.select_for_update().filter(pk=pk))
    with transaction.atomic():
        assert locked.first(table.pk) == table
    with pytest.raises(transaction.TransactionManagementError):
        locked.all(table.pk)


def test_prefetched_rows_answer_the_related_manager_without_a_query(
        django_assert_num_queries):
    user = User.objects.create(username="pit")
    table = Table.objects.create(name="T")
    changes = [TableSettingsChange.objects.create(table=table, changed_by=user,
                                                  changes={"n": n}) for n in range(2)]
    fresh = Table.objects.get(pk=table.pk)

    prefetched(fresh, "settings_changes",
               list(TableSettingsChange.objects.filter(table_id=table.pk)))

    with django_assert_num_queries(0):
        assert [c.changes for c in fresh.settings_changes.all()] == [{"n": 0}, {"n": 1}]
        assert all(c.table is fresh for c in fresh.settings_changes.all())
    assert [c.pk for c in fresh.settings_changes.all()] == [c.pk for c in changes]


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
