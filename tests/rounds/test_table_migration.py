"""Tables moved from casino to rounds (rounds/migrations/0011, casino/migrations/0008): the
rows, the FKs that point at them and the permissions the roles hold survive the move."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from reports.models import ClosedTableDay
from rounds.models import Round, Seat, SeatChange, Table, TableSettingsChange

BEFORE = ("rounds", "0010_seat_changes")
REFERRING = (ClosedTableDay, Round, Seat, SeatChange, TableSettingsChange)


def _names_on_the_table(table: str) -> set[str]:
    """The constraints and indexes on ``table`` or pointing at it, and its id sequence."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass"
                       " OR confrelid = %s::regclass"
                       " UNION SELECT indexname FROM pg_indexes WHERE tablename = %s"
                       " UNION SELECT pg_get_serial_sequence(%s, 'id')",
                       [table, table, table, table])
        return {name.removeprefix("public.") for (name,) in cursor.fetchall()}


def _relation_exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
        return bool(cursor.fetchone()[0])


def _fresh_names() -> set[str]:
    """The names Django gives when it creates rounds.Table and the FKs to it from scratch."""
    with connection.schema_editor() as schema_editor:
        # Its private naming helpers, the ones create_model and add_field use.
        editor: Any = schema_editor
        table = Table._meta.db_table
        fks = {str(editor._fk_constraint_name(model, model._meta.get_field("table"),
                                              "_fk_%(to_table)s_%(to_column)s")).strip('"')
               for model in REFERRING}
        created_by = Table._meta.get_field("created_by")
        fks.add(str(editor._fk_constraint_name(Table, created_by,
                                               "_fk_%(to_table)s_%(to_column)s")).strip('"'))
        return fks | {f"{table}_pkey", f"{table}_name_key", f"{table}_id_seq",
                      editor._create_index_name(table, ["name"], suffix="_like"),
                      editor._create_index_name(table, [created_by.column])}


def _floor_before_the_move(old: Any) -> dict[str, Any]:
    """A table with a seated player and a round, and a group that may run rounds, made
    with the models as they were before the move (casino.Table)."""
    user = old.get_model("auth", "User").objects.create(username="old-boss")
    table = old.get_model("casino", "Table").objects.create(
        name="Old table", min_bet=500, max_bet=20_000, deal_modes=["electronic"],
        created_by=user)
    player = old.get_model("casino", "Player").objects.create(name="Anna", currency="EUR")
    seat = old.get_model("rounds", "Seat").objects.create(table=table, number=3,
                                                          player=player)
    round_ = old.get_model("rounds", "Round").objects.create(
        table=table, number=1, gaming_day=date(2026, 11, 30), currency="EUR",
        rules={"min_bet": 500}, opened_by=user)
    Permission = old.get_model("auth", "Permission")
    run_rounds = Permission.objects.get(content_type__app_label="casino",
                                        codename="run_rounds")
    group = old.get_model("auth", "Group").objects.create(name="old dealers")
    group.permissions.add(run_rounds)
    dealer = old.get_model("auth", "User").objects.create(username="old-dealer")
    dealer.groups.add(group)
    return {"table": table.pk, "seat": seat.pk, "round": round_.pk, "group": group.pk,
            "dealer": dealer.pk, "user": user.pk, "player": player.pk}


def test_a_fresh_migrate_names_the_table_and_its_constraints_after_rounds(db):
    assert not _relation_exists("casino_table")
    assert _fresh_names() <= _names_on_the_table("rounds_table")
    assert not any("casino_table" in name for name in _names_on_the_table("rounds_table"))


@pytest.mark.django_db(transaction=True)
def test_the_move_keeps_the_tables_their_seats_rounds_and_the_groups_permissions(executor):
    # given a floor made before tables moved to rounds
    executor.migrate([BEFORE])
    executor.loader.build_graph()
    old = executor.loader.project_state([BEFORE, ("casino", "0007_table_created_by")]).apps
    made = _floor_before_the_move(old)
    assert _relation_exists("casino_table") and not _relation_exists("rounds_table")

    # when the move runs
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    ContentType.objects.clear_cache()

    # then every row is there, under rounds, with its FKs
    assert not _relation_exists("casino_table")
    table = Table.objects.get(pk=made["table"])
    assert (table.name, table.min_bet, table.max_bet, table.deal_modes,
            table.created_by_id) == ("Old table", 500, 20_000, ["electronic"], made["user"])
    seat = Seat.objects.get(pk=made["seat"])
    assert (seat.table, seat.number, seat.player_id) == (table, 3, made["player"])
    assert Round.objects.get(pk=made["round"]).table == table
    assert list(table.rounds.all()) == [Round.objects.get(pk=made["round"])]
    # ...a new table takes the next id (the sequence moved with the table)
    assert Table.objects.create(name="New table").pk > table.pk
    # ...and the group's permission is now the rounds app's
    group = Group.objects.get(pk=made["group"])
    assert [f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()] \
        == ["rounds.run_rounds"]
    dealer = User.objects.get(pk=made["dealer"])
    assert dealer.has_perm("rounds.run_rounds")
    assert not dealer.has_perm("casino.run_rounds")
    assert not ContentType.objects.filter(app_label="casino", model="table").exists()
    # ...and the constraints are named as a fresh create names them
    assert _fresh_names() <= _names_on_the_table("rounds_table")
    assert not any("casino_table" in name for name in _names_on_the_table("rounds_table"))


@pytest.mark.django_db(transaction=True)
def test_the_move_can_be_undone_with_the_rows_under_the_old_name(executor, django_user_model):
    # given a table made after the move
    by = django_user_model.objects.create(username="boss")
    table = Table.objects.create(name="Kept", created_by=by)

    # when the migrations are undone
    executor.migrate([BEFORE])
    ContentType.objects.clear_cache()

    # then the table is casino's again, under its old name and constraints
    assert _relation_exists("casino_table") and not _relation_exists("rounds_table")
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM casino_table WHERE id = %s", [table.pk])
        assert cursor.fetchone() == ("Kept",)
    assert {"casino_table_pkey", "casino_table_name_key", "casino_table_id_seq"} \
        <= _names_on_the_table("casino_table")
    assert not {name for name in _names_on_the_table("casino_table")
                if name.startswith("rounds_table_") or name.endswith("_fk_rounds_table_id")}
    assert ContentType.objects.filter(app_label="casino", model="table").exists()
