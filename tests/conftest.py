"""Fixtures shared by every test: API clients authenticated as each staff role, and the
database role the service runs as in production."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.models import QuerySet
from rest_framework.test import APIClient

from casino import roles
from casino.services import staff_create
from casino.shared.db_roles import runtime_grant

# Roles are global to the PostgreSQL server, shared by every test database on it (one per
# xdist worker); this one is created once and never altered, only granted per database.
RUNTIME_ROLE = "casino_test_runtime"


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing() -> Iterator[None]:
    """A fast password hasher for the whole run, as Django's testing docs advise: the
    production hasher (PBKDF2, a million iterations) spends a third of a second on each
    password made or checked, and the tests check what a password lets one do, not how
    slowly it is hashed. Every user a test signs in is made in the test's own process."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """The cache holds the login throttle's counts, and unlike the database it is not
    rolled back after a test: each test starts with none."""
    cache.clear()
    yield
    cache.clear()


def played_rounds_rewritten(rounds: QuerySet[Any], **changes: Any) -> int:
    """Set-up only: change played rounds (move them to another gaming day, settle them
    earlier) as the tables' owner, the finished-round guard (rounds/migrations/0018) off for
    this one statement and on again, in one transaction. Only the owner can; the service's
    role never can, and the guard's own tests show it."""
    with transaction.atomic(), connection.cursor() as cursor:
        # ALTER TABLE waits for no check the transaction deferred (its foreign keys'): they
        # run now, and every deferrable check is deferred again after (as all start).
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE rounds_round DISABLE TRIGGER rounds_round_finished")
        changed = rounds.update(**changes)
        cursor.execute("ALTER TABLE rounds_round ENABLE TRIGGER rounds_round_finished")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    return changed


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        # A test that migrates the schema back and forth (the executor fixture) takes tens
        # of seconds: `make test` runs it, `make test-fast` leaves it out.
        if "executor" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def executor() -> Iterator[MigrationExecutor]:
    """Django's migration executor, for a test that migrates back to see a migration run;
    whatever happened, the test database is left fully migrated for the next tests."""
    executor = MigrationExecutor(connection)
    try:
        yield executor
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
        ContentType.objects.clear_cache()


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def staff_client(db: None) -> Callable[[str], APIClient]:
    """A factory: staff_client("cage") -> an APIClient with a token of a new cage user."""
    made: dict[str, int] = {}

    def make(role: str) -> APIClient:
        made[role] = made.get(role, 0) + 1
        user, token = staff_create(username=f"{role}{made[role]}", role=role)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        client.user = user  # type: ignore[attr-defined]
        return client

    return make


@pytest.fixture
def dealer_client(staff_client: Callable[[str], APIClient]) -> APIClient:
    return staff_client(roles.DEALER)


@pytest.fixture
def pit_boss_client(staff_client: Callable[[str], APIClient]) -> APIClient:
    return staff_client(roles.PIT_BOSS)


@pytest.fixture
def cage_client(staff_client: Callable[[str], APIClient]) -> APIClient:
    return staff_client(roles.CAGE)


@pytest.fixture
def auditor_client(staff_client: Callable[[str], APIClient]) -> APIClient:
    return staff_client(roles.AUDITOR)


@pytest.fixture(autouse=True)
def _tasks_run_eagerly_unless_a_worker_is_asked_for(request: pytest.FixtureRequest,
                                                    ) -> Iterator[None]:
    """A task sent to the shared broker by a test without a worker would be taken by the
    worker of a Celery test in another xdist process, against that process's database: tasks
    run in the caller's process unless the test asks for ``celery_worker``."""
    from casino.celery import app

    if "celery_worker" in request.fixturenames:
        yield
        return
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = eager


@pytest.fixture
def celery_worker() -> Iterator[Any]:
    """A real Celery worker, in a thread, consuming the configured broker (Redis in CI).

    Without CELERY_BROKER_URL the settings run tasks eagerly in the caller, so the same test
    still runs every task. Tests using this fixture share one xdist group (``make test``
    distributes by group), so two workers never consume each other's tasks; a task that
    reads the database needs ``django_db(transaction=True)`` to see the test's rows.
    """
    from casino.celery import app

    if app.conf.task_always_eager:
        yield None
        return
    from celery.contrib.testing.worker import start_worker

    # A queue of this process's own: a task another test process sent to the shared broker
    # after its test had ended (a browser's request still in flight), or one a killed run
    # left behind, is never taken here, against this process's database.
    queue = f"tests-{os.getpid()}"
    default_queue = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30,
                          queues=[queue]):
            yield app
    finally:
        app.conf.task_default_queue = default_queue


@pytest.fixture(scope="session")
def runtime_role(django_db_setup: None, django_db_blocker: Any) -> str:
    """A role with exactly the production runtime role's grants on the test database.

    Tests take it with ``SET ROLE`` (as_runtime_role), which needs a superuser connection.
    """
    with django_db_blocker.unblock():
        with connection.cursor() as cursor:
            cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
            if not cursor.fetchone()[0]:
                pytest.skip("needs a superuser connection to SET ROLE to the runtime role")
            # Two workers may create it at once: the loser sees one of these two errors.
            cursor.execute(
                f"DO $$ BEGIN CREATE ROLE {RUNTIME_ROLE} NOLOGIN; EXCEPTION"
                " WHEN duplicate_object OR unique_violation THEN NULL; END $$")
        runtime_grant(role=RUNTIME_ROLE)
    return RUNTIME_ROLE


@pytest.fixture
def as_runtime_role(db: None, runtime_role: str) -> Iterator[str]:
    """The rest of the test's transaction runs with the service's runtime privileges."""
    with connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL ROLE {runtime_role}")
    yield runtime_role


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A STATIC_ROOT with collectstatic run into it, for a server started with DEBUG off
    (casino/wsgi.py refuses to start without it, as production must)."""
    import subprocess
    import sys
    from pathlib import Path

    root = tmp_path_factory.mktemp("static")
    env = {**os.environ, "DJANGO_DEBUG": "false", "DJANGO_STATIC_ROOT": str(root)}
    env.setdefault("DJANGO_SECRET_KEY", "collectstatic-only")
    done = subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput",
                           "--verbosity", "0"], cwd=Path(__file__).resolve().parents[1],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return str(root)


def newest_block():
    """The ledger's newest sealed block as a chain point (the genesis before any), read
    straight from the table: what a report or a closed day must carry."""
    from ledger import chain
    from ledger.models import Block
    from ledger.reports import ChainPoint

    last = Block.objects.order_by("-n").values_list("n", "hash").first()
    return ChainPoint(seq=last[0], hash=last[1]) if last else ChainPoint(0, chain.GENESIS)
