"""The database roles: create_runtime_role, the grants it gives, migrate as the owner, and
the deployment check that the service does not connect as an owner or superuser."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.core.management import CommandError, call_command, get_commands
from django.db import connection

from casino.settings import database_from_url
from casino.shared.checks import check_database_role, database_role_warnings
from casino.shared.db_roles import runtime_roles

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def sql(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


def privileges(role: str, table: str) -> set[str]:
    kinds = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")
    return {k for k in kinds if sql("SELECT has_table_privilege(%s, %s, %s)",
                                    [role, table, k])[0][0]}


@pytest.fixture
def role_name() -> str:
    # Roles are global to the server: one name per test process (the test's transaction,
    # rolled back, takes the role away again).
    return f"casino_rt_{os.getpid()}"


def test_create_runtime_role_grants_what_the_service_uses_and_prints_its_url(role_name,
                                                                             capsys):
    call_command("create_runtime_role", role_name, password="p@ss word")

    out = capsys.readouterr().out.strip()
    db = connection.settings_dict
    # A socket directory (the embedded server's) is percent-encoded as the URL's host, as
    # libpq writes it: the settings decode it back (casino.settings.database_from_url).
    host = quote(db["HOST"], safe="") + (f":{db['PORT']}" if db["PORT"] else "")
    assert out == f"postgres://{role_name}:p%40ss%20word@{host}/{db['NAME']}"
    parsed = database_from_url("DATABASE_URL", out)
    assert (parsed["USER"], parsed["PASSWORD"], parsed["HOST"], str(parsed["PORT"] or ""),
            parsed["NAME"]) == (role_name, "p@ss word", db["HOST"], str(db["PORT"] or ""),
                                db["NAME"])
    assert sql("SELECT rolcanlogin, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles"
               " WHERE rolname = %s", [role_name]) == [(True, False, False, False)]
    assert privileges(role_name, "ledger_entry") == {"SELECT", "INSERT"}
    assert privileges(role_name, "ledger_line") == {"SELECT", "INSERT"}
    assert privileges(role_name, "rounds_roundevent") == {"SELECT", "INSERT"}
    assert privileges(role_name, "django_migrations") == {"SELECT"}
    assert privileges(role_name, "knox_authtoken") == {"SELECT", "INSERT", "UPDATE", "DELETE"}
    assert privileges(role_name, "rounds_round") == {"SELECT", "INSERT", "UPDATE"}
    assert sql("SELECT has_column_privilege(%s, 'ledger_account', 'posted', 'UPDATE'),"
               " has_column_privilege(%s, 'ledger_hold', 'amount', 'UPDATE'),"
               " has_column_privilege(%s, 'ledger_hold', 'status', 'UPDATE')",
               [role_name] * 3) == [(False, False, True)]
    assert role_name in runtime_roles()


def test_tables_of_later_migrations_are_covered_and_regranted(role_name):
    call_command("create_runtime_role", role_name)
    sql("CREATE TABLE rounds_later (id bigserial PRIMARY KEY)")

    assert privileges(role_name, "rounds_later") == {"SELECT", "INSERT", "UPDATE"}
    assert sql("SELECT has_sequence_privilege(%s, 'rounds_later_id_seq', 'USAGE')",
               [role_name]) == [(True,)]

    # what migrate does afterwards (post_migrate): the declared privileges again, on every table
    sql(f"GRANT TRUNCATE ON ledger_line TO {role_name}")
    from django.apps import apps

    from casino.shared.db_roles import runtime_roles_regrant
    # migrate sends post_migrate for each app with models; the grants follow the last one
    with_models = [a for a in apps.get_app_configs() if a.models_module is not None]
    runtime_roles_regrant(sender=with_models[0])      # not yet: other apps follow
    assert "TRUNCATE" in privileges(role_name, "ledger_line")
    runtime_roles_regrant(sender=with_models[-1])
    assert privileges(role_name, "ledger_line") == {"SELECT", "INSERT"}


def test_create_runtime_role_refuses_the_owner_of_the_tables():
    (owner,) = sql("SELECT tableowner FROM pg_tables WHERE tablename = 'django_migrations'"
                   " AND schemaname = current_schema()")[0]
    with pytest.raises(CommandError, match="owns the tables"):
        call_command("create_runtime_role", owner)


def test_the_deploy_check_warns_about_a_superuser_connection():
    # The tests connect as the server's superuser (CI's postgres).
    if not sql("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")[0][0]:
        pytest.skip("the test database connection is not a superuser")
    assert [w.id for w in check_database_role()] == ["casino.W001"]


def test_the_deploy_check_warns_about_an_owner_and_accepts_the_runtime_role(runtime_role,
                                                                           role_name):
    sql(f"CREATE ROLE {role_name} NOLOGIN")
    sql(f"ALTER TABLE casino_player OWNER TO {role_name}")
    sql(f"SET LOCAL ROLE {role_name}")
    with connection.cursor() as cursor:
        assert [w.id for w in database_role_warnings(cursor)] == ["casino.W002"]
        cursor.execute(f"SET LOCAL ROLE {runtime_role}")
        assert database_role_warnings(cursor) == []


def test_migrate_connects_as_the_owner_given_by_database_owner_url():
    assert get_commands()["migrate"] == "casino"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(DJANGO_SETTINGS_MODULE="casino.settings", DJANGO_DEBUG="true",
               DATABASE_URL="postgres://casino_app@127.0.0.1:9/casino",
               DATABASE_OWNER_URL="postgres://casino_owner:secret@127.0.0.1:9/casino")
    code = ("from django.db import connection\n"
            "from casino.shared.db_roles import owner_connection\n"
            "with owner_connection():\n"
            "    print(connection.settings_dict['USER'], connection.settings_dict['PASSWORD'])\n"
            "print(connection.settings_dict['USER'])\n")
    done = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", code], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["casino_owner", "secret", "casino_app"]


def test_an_owner_url_for_another_database_is_refused():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(DJANGO_SETTINGS_MODULE="casino.settings", DJANGO_DEBUG="true",
               DATABASE_URL="postgres://casino_app@127.0.0.1:9/casino",
               DATABASE_OWNER_URL="postgres://casino_owner@127.0.0.1:9/other")
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)

    assert done.returncode != 0
    assert "DATABASE_OWNER_URL must name the same database" in done.stderr


def test_a_role_given_other_default_privileges_is_not_taken_for_a_runtime_role(role_name):
    sql(f"CREATE ROLE {role_name} NOLOGIN")
    sql(f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {role_name}")

    assert role_name not in runtime_roles()


def test_create_runtime_role_without_the_right_to_create_roles_says_so(runtime_role):
    sql(f"SET LOCAL ROLE {runtime_role}")

    with pytest.raises(CommandError, match=r"(?s)permission denied.*CREATEROLE, or as a superuser"):
        call_command("create_runtime_role", "casino_never_made")


def test_runtime_role_url_prints_an_existing_roles_url_and_creates_none(role_name, capsys):
    # given no such role: it is refused in words that name the step that makes it
    with pytest.raises(CommandError, match=r"no runtime role .*make runtime-role"):
        call_command("runtime_role_url", role_name)
    assert sql("SELECT count(*) FROM pg_roles WHERE rolname = %s", [role_name]) == [(0,)]

    # when the role is made, then its URL is the one create_runtime_role printed
    call_command("create_runtime_role", role_name)
    made = capsys.readouterr().out.strip()
    call_command("runtime_role_url", role_name)
    assert capsys.readouterr().out.strip() == made


# --- each app declares its own tables' privileges (its AppConfig.runtime_privileges) ---------

PROJECT_APPS = {"casino", "ledger", "rounds", "reports"}


def test_each_app_declares_the_runtime_privileges_of_its_own_tables_only():
    from django.apps import apps

    tables_of = {config.label: {m._meta.db_table
                                for m in config.get_models(include_auto_created=True)}
                 for config in apps.get_app_configs()}
    project_tables = set().union(*(tables_of[label] for label in PROJECT_APPS))
    for config in apps.get_app_configs():
        declared = set(getattr(config, "runtime_privileges", {}))
        if config.label == "casino":
            # its own tables, and the third-party ones the project runs auth with
            assert not (declared - tables_of["casino"]) & project_tables
        elif config.label in PROJECT_APPS:
            assert declared <= tables_of[config.label], (config.label, declared)
        else:
            assert not declared, config.label


def test_every_declared_table_and_function_exists_in_the_database():
    from casino.shared.db_roles import runtime_functions, runtime_privileges

    tables = {name for (name,) in sql("SELECT tablename FROM pg_tables"
                                      " WHERE schemaname = current_schema()")}
    functions = {name for (name,) in sql("SELECT proname FROM pg_proc"
                                         " WHERE pronamespace = current_schema()::regnamespace")}
    # a declaration under a mistyped name would leave its table with the defaults
    assert set(runtime_privileges()) <= tables
    assert set(runtime_functions()) <= functions
    assert runtime_functions() == ("ledger_entry_post", "ledger_hold_place",
                                   "ledger_holds_release", "ledger_seal")


def test_a_table_declared_by_two_apps_is_refused(monkeypatch):
    from django.apps import apps
    from django.core.exceptions import ImproperlyConfigured

    from casino.shared.db_roles import READ_ONLY, runtime_privileges
    from rounds.apps import RoundsConfig

    rounds = apps.get_app_config("rounds")
    assert isinstance(rounds, RoundsConfig)
    monkeypatch.setattr(rounds, "runtime_privileges",
                        {**rounds.runtime_privileges, "ledger_entry": READ_ONLY})

    with pytest.raises(ImproperlyConfigured, match="ledger_entry are declared by both ledger "
                                                   "and rounds"):
        runtime_privileges()
