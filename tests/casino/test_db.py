import pytest

from casino.models import Player
from casino.shared.db import update_rows
from rounds.models import Table

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
