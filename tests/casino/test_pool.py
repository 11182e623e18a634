"""Finding 4: after the database drops every connection, the pool hands out no dead one."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection
from psycopg_pool import ConnectionPool
from rest_framework.test import APIClient

from casino import roles
from casino.services import staff_create
from casino.shared import pool as pool_check
from casino.shared.pool import CHECK_IDLE_AFTER, connection_returned, connection_usable
from tests.players import make_player

pytestmark = pytest.mark.django_db(transaction=True)


def terminate_every_other_backend() -> int:
    """What a restart or failover does to the service's connections, from outside it."""
    params = connection.get_connection_params()
    params.pop("pool", None)
    params.pop("cursor_factory", None)
    params.pop("context", None)
    params.pop("prepare_threshold", None)
    with psycopg.connect(**params, autocommit=True) as admin:
        # (in the select list, which runs only for the rows WHERE kept: never this one)
        pids = [pid for pid, done in admin.execute(
            "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchall()
            if done]
        # pg_terminate_backend only signals: wait until the backends are gone, as after a
        # restart, or a check could still reach one that is about to go.
        deadline = time.monotonic() + 10
        while admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)",
                            [pids]).fetchone() != (0,):
            assert time.monotonic() < deadline, "the backends did not stop"
            time.sleep(0.05)
    return len(pids)


def test_the_service_answers_after_every_backend_is_terminated():
    # given a pool holding as many idle connections as a busy process leaves behind (with
    # psycopg's check alone, finding the dead ones one by one, with its backoff of 1, 2,
    # 4... seconds between them, outlasted the pool's timeout)
    pool = getattr(connection, "pool", None)  # the PostgreSQL wrapper's, not the base's
    assert pool is not None, "the tests must run with the pool, as production does"
    boss, token = staff_create(username="pool-boss", role=roles.PIT_BOSS)
    player = make_player(name="Pooled", currency="EUR", by=boss)
    connection.close()  # the test's own connection goes back to the pool too
    held = [pool.getconn() for _ in range(8)]
    for conn in held:
        pool.putconn(conn)
    assert pool.get_stats()["pool_available"] >= 8

    # when the database drops them all
    assert terminate_every_other_backend() >= 8

    # then every request is answered, none with a 5xx
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    started = time.monotonic()
    answers = [client.get("/api/v1/health")]
    answers += [client.get(f"/api/v1/players/{player.pk}") for _ in range(3)]
    answers += [client.get("/api/v1/players"), client.get("/api/v1/health")]
    assert [a.status_code for a in answers] == [200] * 6, [a.content for a in answers]
    assert answers[0].json()["database"] == "ok"
    assert time.monotonic() - started < 5


def test_connections_back_from_a_request_a_moment_ago_are_not_handed_out_dead():
    # given idle connections each stamped as just back from a request (as the backend's
    # close stamps them), which the pool hands out after a look at the socket, no query
    pool = getattr(connection, "pool", None)
    assert pool is not None, "the tests must run with the pool, as production does"
    boss, token = staff_create(username="pool-boss", role=roles.PIT_BOSS)
    player = make_player(name="Pooled", currency="EUR", by=boss)
    connection.close()
    held = [pool.getconn() for _ in range(8)]
    for conn in held:
        connection_returned(conn)
        pool.putconn(conn)

    # when the database drops them all, at once (well within CHECK_IDLE_AFTER)
    assert terminate_every_other_backend() >= 8

    # then every request is still answered, none with a 5xx
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    started = time.monotonic()
    answers = [client.get(f"/api/v1/players/{player.pk}") for _ in range(4)]
    answers.append(client.get("/api/v1/health"))
    assert [a.status_code for a in answers] == [200] * 5, [a.content for a in answers]
    assert time.monotonic() - started < CHECK_IDLE_AFTER


def test_a_connection_back_a_moment_ago_is_handed_out_without_a_query(monkeypatch):
    # given a live connection just back from a request
    pool = getattr(connection, "pool", None)
    assert pool is not None, "the tests must run with the pool, as production does"
    connection.close()
    conn = pool.getconn()
    connection_returned(conn)
    queried = []
    psycopg_check = ConnectionPool.check_connection

    def check(c: psycopg.Connection) -> None:
        queried.append(c)
        psycopg_check(c)

    monkeypatch.setattr(ConnectionPool, "check_connection", staticmethod(check))
    try:
        # when the backend checks it, then it asks the server nothing
        assert connection_usable(conn)
        assert queried == []
        # and once idle past CHECK_IDLE_AFTER, it is asked a query again
        pool_check._returned_at[conn] = time.monotonic() - CHECK_IDLE_AFTER - 1
        assert connection_usable(conn)
        assert queried == [conn]
    finally:
        pool.putconn(conn)
