"""The settings as production would load them, run in a child process with a clean env."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

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


def test_production_settings_pass_the_deployment_checks_without_warnings():
    done = run_manage(
        "check", "--deploy", "--fail-level", "WARNING",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(60),
        DJANGO_ALLOWED_HOSTS="pit.example",
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


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
