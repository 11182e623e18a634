"""The connection's settings at work: a statement run again on a connection is prepared on
the server (Django's ``server_side_binding`` with psycopg's ``prepare_threshold``)."""

import pytest
from django.db import connection

from casino.models import Player

pytestmark = pytest.mark.django_db


def test_django_prepares_a_statement_run_again_on_its_connection():
    # given the settings' server-side binding and prepare threshold (casino.settings)
    options = connection.settings_dict["OPTIONS"]
    assert options["server_side_binding"] is True
    players = [Player.objects.create(name=f"P{n}") for n in range(6)]

    def runs_of_the_prepared_read() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT coalesce(sum(generic_plans + custom_plans), 0)"
                           " FROM pg_prepared_statements WHERE statement LIKE %s"
                           " AND statement LIKE %s",
                           ['%FROM "casino_player"%', '%"casino_player"."id" = $1%'])
            return cursor.fetchone()[0]

    # when the ORM's read of a player by key runs once per player
    found = [Player.objects.filter(pk=p.pk).first() for p in players]
    assert [p and p.name for p in found] == [f"P{n}" for n in range(6)]

    # then from the threshold on, the server ran the one prepared statement
    # (psycopg: run that many times unprepared, prepared at the next run)
    assert runs_of_the_prepared_read() == len(players) - options["prepare_threshold"]
