"""A player sits at one table at a time (rounds.services.tables.seat_take, and
``seat_one_per_player`` in PostgreSQL): each door refuses a second seat in words, the
database refuses it around the ORM, two pit bosses seating one player at two tables at
once seat them once, and the migration that brings the rule names who breaks it."""

from __future__ import annotations

import threading
from importlib import import_module

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, connections, transaction
from django.test import Client

from casino import roles
from casino.models import Player
from casino.services import player_create, staff_create
from rounds import services
from rounds.errors import PlayerSeatedElsewhere
from rounds.models import Seat, SeatChange, Table
from tests.rounds.conftest import Dealer

pytestmark = pytest.mark.django_db


def sql(statement: str, params: list | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])


@pytest.fixture
def two_tables(make_table) -> tuple[Table, Table]:
    return make_table(name="Demo table 1"), make_table(name="Demo table 2")


@pytest.fixture
def anna_at_table_1(two_tables, seat_player) -> Player:
    return seat_player(two_tables[0], 2, name="Anna")


def where_anna_sits(anna: Player) -> list[tuple[str, int]]:
    return [(s.table.name, s.number) for s in Seat.objects.filter(player=anna)
            .select_related("table")]


# --- the service, and each door --------------------------------------------------------------

def test_a_player_seated_at_one_table_is_refused_a_seat_at_another(two_tables, anna_at_table_1,
                                                                   pit_boss):
    changes = SeatChange.objects.count()

    with pytest.raises(PlayerSeatedElsewhere) as refused:
        services.seat_take(table_id=two_tables[1].pk, number=4, player_id=anna_at_table_1.pk,
                           by=pit_boss)

    assert refused.value.code == "player_seated_elsewhere"
    assert refused.value.message == ("Anna already sits at Demo table 1, seat 2: they leave "
                                     "that seat first")
    assert refused.value.detail == {"player": anna_at_table_1.pk, "table": two_tables[0].pk,
                                    "table_name": "Demo table 1", "seat": 2}
    assert where_anna_sits(anna_at_table_1) == [("Demo table 1", 2)]
    assert SeatChange.objects.count() == changes


def test_once_the_player_leaves_the_other_table_they_are_seated(two_tables, anna_at_table_1,
                                                                pit_boss):
    services.seat_leave(table_id=two_tables[0].pk, number=2, by=pit_boss)

    services.seat_take(table_id=two_tables[1].pk, number=4, player_id=anna_at_table_1.pk,
                       by=pit_boss)

    assert where_anna_sits(anna_at_table_1) == [("Demo table 2", 4)]


def test_a_namesake_at_either_table_is_told_apart_by_number(two_tables, anna_at_table_1,
                                                            seat_player, pit_boss):
    seat_player(two_tables[1], 1, name="Anna")

    with pytest.raises(PlayerSeatedElsewhere, match=rf"^Anna #{anna_at_table_1.pk} already "
                                                    "sits at Demo table 1, seat 2"):
        services.seat_take(table_id=two_tables[1].pk, number=4, player_id=anna_at_table_1.pk,
                           by=pit_boss)


def test_the_api_answers_409_in_words(two_tables, anna_at_table_1, pit_boss_client):
    answer = Dealer(pit_boss_client).call("put", f"/api/v1/tables/{two_tables[1].pk}/seats/4",
                                          {"player": anna_at_table_1.pk}, expect=409)

    assert answer["error"] == {
        "code": "player_seated_elsewhere",
        "message": "Anna already sits at Demo table 1, seat 2: they leave that seat first",
        "detail": {"player": anna_at_table_1.pk, "table": two_tables[0].pk,
                   "table_name": "Demo table 1", "seat": 2}}
    assert where_anna_sits(anna_at_table_1) == [("Demo table 1", 2)]


def test_the_pit_bosss_table_screen_shows_the_refusal_in_words(two_tables, anna_at_table_1):
    boss, _ = staff_create(username="petra", role=roles.PIT_BOSS)
    console = Client()
    console.force_login(boss)

    page = console.post(f"/tables/{two_tables[1].pk}/seats/",
                        {"number": 4, "player": anna_at_table_1.pk}, follow=True)

    assert page.status_code == 200
    text = page.content.decode()
    assert "Anna already sits at Demo table 1, seat 2: they leave that seat first." in text
    assert "player_seated_elsewhere" not in text and "seat_one_per_player" not in text
    assert where_anna_sits(anna_at_table_1) == [("Demo table 1", 2)]


def test_the_admin_has_no_door_that_seats_a_player(two_tables, anna_at_table_1, admin_client):
    # Seats are read-only in the admin (players take and leave seats through the services):
    # the table's page shows who sits where and offers no form to change it.
    page = admin_client.get(f"/admin/rounds/table/{two_tables[1].pk}/change/")
    assert page.status_code == 200
    assert "seats-0-player" not in page.content.decode()
    assert admin_client.get("/admin/rounds/seat/").status_code == 404
    on_table_1 = admin_client.get(f"/admin/rounds/table/{two_tables[0].pk}/change/")
    assert "Anna" in on_table_1.content.decode()


# --- the database, around the ORM ------------------------------------------------------------

def seat_row(table: Table, number: int) -> int:
    return Seat.objects.get(table=table, number=number).pk


@pytest.mark.parametrize("role", ["owner", "runtime"])
def test_the_database_refuses_a_second_seat_by_update_and_by_insert(
        two_tables, anna_at_table_1, runtime_role, role):
    bare_table = Table.objects.create(name="Bare", created_by=User.objects.first())
    if role == "runtime":
        sql(f"SET LOCAL ROLE {runtime_role}")
    other = seat_row(two_tables[1], 4)

    with pytest.raises(IntegrityError, match="seat_one_per_player"), transaction.atomic():
        sql("UPDATE rounds_seat SET player_id = %s WHERE id = %s", [anna_at_table_1.pk, other])
    with pytest.raises(IntegrityError, match="seat_one_per_player"), transaction.atomic():
        # a table written around the services, without its six seats yet
        sql("INSERT INTO rounds_seat (table_id, number, player_id)"
            " SELECT id, 1, %s FROM rounds_table WHERE id = %s",
            [anna_at_table_1.pk, bare_table.pk])

    assert where_anna_sits(anna_at_table_1) == [("Demo table 1", 2)]


def test_the_orm_is_refused_a_second_seat_too(two_tables, anna_at_table_1):
    with pytest.raises(IntegrityError, match="seat_one_per_player"), transaction.atomic():
        Seat.objects.filter(table=two_tables[1], number=4).update(player=anna_at_table_1)


# --- two pit bosses at once ------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_one_player_seated_at_two_tables_at_once_sits_at_one():
    # given Anna, and two pit bosses about to seat her, one at each of two tables
    boss_1, _ = staff_create(username="boss-1", role=roles.PIT_BOSS)
    boss_2, _ = staff_create(username="boss-2", role=roles.PIT_BOSS)
    tables = [services.table_create(by=boss_1, name=f"Race {n}") for n in (1, 2)]
    anna = player_create(name="Anna", currency="EUR", by=boss_1)
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def seat(table: Table, boss: User) -> None:
        try:
            start.wait(timeout=30)
            services.seat_take(table_id=table.pk, number=3, player_id=anna.pk, by=boss)
            outcomes.append("seated")
        except PlayerSeatedElsewhere as refused:
            outcomes.append(refused.code)
        except BaseException as other:  # a constraint's IntegrityError, a deadlock
            outcomes.append(repr(other))
        finally:
            connections.close_all()

    for _ in range(5):
        Seat.objects.filter(player=anna).update(player=None, since=None)
        outcomes.clear()
        threads = [threading.Thread(target=seat, args=(t, b))
                   for t, b in zip(tables, (boss_1, boss_2), strict=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        # then exactly one seats her; the other is refused in words, not by the constraint
        assert sorted(outcomes) == ["player_seated_elsewhere", "seated"]
        assert Seat.objects.filter(player=anna).count() == 1


# --- the migration names who breaks the rule, and unseats nobody -----------------------------

BEFORE = [("rounds", "0017_drop_variance_explained_later")]


@pytest.mark.django_db(transaction=True)
def test_the_migration_stops_and_names_players_seated_twice(executor):
    # given the rule before it: Anna at two tables, Bram at one
    executor.migrate(BEFORE)
    executor.loader.build_graph()
    # the other apps as they are: only the rounds' 0018 is undone
    old = executor.loader.project_state([*BEFORE, ("casino", "0011_player_kind_licence")]).apps
    by = old.get_model("auth", "User").objects.create(username="boss")
    OldTable, OldSeat = old.get_model("rounds", "Table"), old.get_model("rounds", "Seat")
    Person = old.get_model("casino", "Player")
    one = OldTable.objects.create(name="Demo table 1", created_by=by)
    two = OldTable.objects.create(name="Demo table 2", created_by=by)
    anna = Person.objects.create(name="Anna", currency="EUR")
    bram = Person.objects.create(name="Bram", currency="EUR")
    OldSeat.objects.create(table=one, number=2, player=anna)
    OldSeat.objects.create(table=two, number=5, player=anna)
    OldSeat.objects.create(table=two, number=1, player=bram)

    # when the migration runs, then it stops and says who sits where
    executor.loader.build_graph()
    migration = import_module("rounds.migrations.0021_floor_guards")
    with pytest.raises(migration.PlayersSeatedTwice) as stopped:
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert (f"these players sit at more than one: Anna #{anna.pk} sits at Demo table 1, "
            "seat 2 and at Demo table 2, seat 5. Nobody was unseated") in str(stopped.value)
    assert "Bram" not in str(stopped.value)
    assert sorted(OldSeat.objects.filter(player=anna).values_list("number", flat=True)) \
        == [2, 5]

    # when a pit boss frees one of her seats, then it migrates
    OldSeat.objects.filter(table=two, number=5).update(player=None)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert list(Seat.objects.filter(player_id=anna.pk).values_list("number", flat=True)) == [2]
    assert Seat.objects.get(table_id=two.pk, number=1).player_id == bram.pk
