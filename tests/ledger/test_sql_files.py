"""The ledger's SQL in files (ledger.sqlfiles): the database holds exactly what ledger/sql/
says, each migration's way back is written out, and the ledger migrates back to 0009 and
forward again to the same functions and triggers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from casino.shared.db_roles import runtime_url
from ledger.sqlfiles import database_definitions, function_files, migration_operations

ROOT = Path(__file__).resolve().parents[2]
AT_0009 = ("ledger", "0009_post_in_one_call")


def test_every_ledger_function_and_its_triggers_are_as_their_file_says(db):
    with connection.cursor() as cursor:
        found = database_definitions(cursor)
    files = {name: path.read_text() for name, path in function_files().items()}

    assert sorted(found) == sorted(files), "a function without its file, or a stale file"
    for name, text in found.items():
        assert text == files[name], f"ledger/sql/{name}.sql differs from the database"


def test_a_migrations_sql_file_is_pairs_of_forward_and_reverse_blocks(tmp_path, monkeypatch):
    # given each migration's own file, the ledger's and the other apps' that keep theirs
    # the same way: every operation has its way back, as text
    files = sorted(ROOT.glob("*/migrations/sql/*.pg.sql"))
    assert {p.parts[-4] for p in files} >= {"ledger", "rounds", "casino"}
    for path in files:
        operations = migration_operations(path.name.removesuffix(".pg.sql"), path.parent)
        assert operations and all(op.reverse_sql for op in operations), path.name
    # and a file whose reverse is missing is refused rather than migrated one way only
    monkeypatch.setattr("ledger.sqlfiles.MIGRATIONS", tmp_path)
    (tmp_path / "9999_half.pg.sql").write_text("--- forward:\nSELECT 1;\n")
    with pytest.raises(ValueError, match="pairs"):
        migration_operations("9999_half")


def _definitions_of_a_fresh_database_at_0009() -> dict[str, str]:
    """A database of its own, migrated from nothing to ledger 0009 (a child process)."""
    db = connection.settings_dict
    name = f"{db['NAME']}_ledger_0009"
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        url = runtime_url(name=db["USER"], password=db["PASSWORD"] or None).rsplit("/", 1)[0]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
        env.update(DATABASE_URL=f"{url}/{name}", DATABASE_POOL="false", DJANGO_DEBUG="true")
        # The migrations alone, as the executor runs them (no post_migrate: the roles'
        # permissions belong to apps this partial migrate leaves out).
        migrate = ("import django; django.setup()\n"
                   "from django.db import connection\n"
                   "from django.db.migrations.executor import MigrationExecutor\n"
                   f"MigrationExecutor(connection).migrate([{AT_0009!r}])\n")
        done = subprocess.run([sys.executable, "-c", migrate], cwd=ROOT,
                              env={**env, "DJANGO_SETTINGS_MODULE": "casino.settings"},
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        with psycopg.connect(dbname=name, user=db["USER"], password=db["PASSWORD"] or None,
                             host=db["HOST"] or None, port=db["PORT"] or None) as conn, \
                conn.cursor() as cursor:
            return database_definitions(cursor)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_ledger_migrates_back_to_0009_and_forward_to_its_files(executor):
    # when the ledger's migrations after 0009 are taken back
    executor.migrate([AT_0009])
    with connection.cursor() as cursor:
        back = database_definitions(cursor)

    # then its functions and triggers are those a fresh migrate to 0009 makes
    fresh = _definitions_of_a_fresh_database_at_0009()
    assert sorted(back) == sorted(fresh)
    for name in fresh:
        assert back[name] == fresh[name], f"{name} on the way back differs from 0009's"

    # and migrated forward again, they are the files' once more
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    with connection.cursor() as cursor:
        again = database_definitions(cursor)
    assert again == {name: path.read_text() for name, path in function_files().items()}
