"""The settings as production would load them, run in a child process with a clean env."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

# Each test starts Python afresh in a child process (seconds each): `make test` runs them,
# `make test-fast` leaves them out.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    base["DJANGO_SETTINGS_MODULE"] = "casino.settings"
    # An unreachable server is enough: these commands never connect.
    base["DATABASE_URL"] = "postgres://casino@127.0.0.1:9/casino"
    # Keep the checkout's .env (development values) out of the way.
    base["DJANGO_DEBUG"] = "false"
    base.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=base, capture_output=True,
        text=True, timeout=120,
    )


def test_production_settings_pass_the_deployment_checks_without_warnings(tmp_path):
    production = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
                  "DJANGO_ALLOWED_HOSTS": "pit.example", "DJANGO_STATIC_ROOT": str(tmp_path)}
    collected = run_manage("collectstatic", "--noinput", "--verbosity", "0", **production)
    assert collected.returncode == 0, collected.stderr

    done = run_manage("check", "--deploy", "--fail-level", "WARNING", **production)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_without_debug_missing_static_files_are_named_by_the_checks_and_at_startup(tmp_path):
    # given production settings whose static files were never collected
    production = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
                  "DJANGO_ALLOWED_HOSTS": "pit.example", "DJANGO_STATIC_ROOT": str(tmp_path)}

    # then the deployment checks say so in words
    done = run_manage("check", "--deploy", **production)
    assert done.returncode != 0
    assert "casino.E001" in done.stderr
    assert "static files have not been collected" in done.stderr
    assert "collectstatic" in done.stderr
    # and the server refuses to start rather than answer every page with a 500
    started = run_python("import casino.wsgi", **production)
    assert started.returncode != 0
    assert "static files have not been collected" in started.stderr


def test_a_server_process_starts_with_every_view_loaded_and_its_heap_frozen(tmp_path):
    # given production settings with their static files collected
    production = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
                  "DJANGO_ALLOWED_HOSTS": "pit.example", "DJANGO_STATIC_ROOT": str(tmp_path)}
    collected = run_manage("collectstatic", "--noinput", "--verbosity", "0", **production)
    assert collected.returncode == 0, collected.stderr

    # when the WSGI application is loaded, as each gunicorn worker does on starting
    started = run_python(
        "import gc, sys; import casino.wsgi; "
        "print(gc.get_freeze_count(), 'rounds.api.views' in sys.modules, "
        "'reports.api' in sys.modules)", **production)

    # then the first request finds the views loaded (no second of imports for it), and the
    # cycle collector ignores what was loaded: well over 100,000 objects are frozen
    assert started.returncode == 0, started.stderr
    frozen, views, reports = started.stdout.split()
    assert (views, reports) == ("True", "True")
    assert int(frozen) > 100_000


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    base.update(DJANGO_SETTINGS_MODULE="casino.settings", DJANGO_DEBUG="false",
                DATABASE_URL="postgres://casino@127.0.0.1:9/casino", **env)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=base,
                          capture_output=True, text=True, timeout=120)


def test_without_debug_a_missing_secret_key_stops_the_service():
    done = run_manage("check", DJANGO_SECRET_KEY="")

    assert done.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in done.stderr


def test_sqlite_is_refused():
    done = run_manage(
        "check", DJANGO_SECRET_KEY=secrets.token_urlsafe(60),
        DATABASE_URL="sqlite:///tmp/casino.shared.db",
    )

    assert done.returncode != 0
    assert "must point at a PostgreSQL server" in done.stderr


def test_a_socket_directory_in_database_url_is_decoded():
    done = run_manage(
        "shell", "-c",
        "from django.conf import settings; print(settings.DATABASES['default']['HOST'])",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(60),
        DATABASE_URL="postgres://postgres@%2Fvar%2Frun%2Fpostgresql/casino",
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "/var/run/postgresql"


def identity_line_read(**env: str) -> subprocess.CompletedProcess:
    return run_manage("shell", "-c", "from django.conf import settings; "
                      "print(settings.CASINO_ID_REQUIRED_FROM)",
                      DJANGO_SECRET_KEY=secrets.token_urlsafe(60), **env)


def test_the_identity_line_set_under_its_old_name_is_read_with_a_deprecation_warning():
    # given the line set as it was named while a day could reach it without an identity
    old = {"CASINO_ID_REQUIRED_ABOVE": "1500.00"}

    # then it is still read, and every start of the service says to rename it
    read = identity_line_read(**old)
    assert read.returncode == 0, read.stderr
    assert read.stdout.strip().splitlines()[-1] == "1500.00"
    checked = run_manage("check", DJANGO_SECRET_KEY=secrets.token_urlsafe(60), **old)
    assert "casino.W003" in checked.stderr
    assert "CASINO_ID_REQUIRED_ABOVE is deprecated: set CASINO_ID_REQUIRED_FROM" in \
        checked.stderr

    # the new name wins over the old; without either the line is 2,000.00
    both = identity_line_read(CASINO_ID_REQUIRED_FROM="2500.00", **old)
    assert both.stdout.strip().splitlines()[-1] == "2500.00"
    assert identity_line_read().stdout.strip().splitlines()[-1] == "2000.00"
    quiet = run_manage("check", DJANGO_SECRET_KEY=secrets.token_urlsafe(60),
                       CASINO_ID_REQUIRED_FROM="2500.00")
    assert "casino.W003" not in quiet.stdout + quiet.stderr


def test_a_buy_in_line_that_is_not_a_plain_decimal_stops_the_service():
    done = run_manage("check", DJANGO_SECRET_KEY=secrets.token_urlsafe(60),
                      CASINO_BUY_IN_APPROVAL_ABOVE="2,000")

    assert done.returncode != 0
    assert "CASINO_BUY_IN_APPROVAL_ABOVE must be a plain decimal such as 2000.00" in done.stderr
