"""`make serve`, the production-like start without Docker, as the README gives it: DEBUG off,
static files collected first, gunicorn, connected as the runtime role."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from django.db import connection

from casino.shared.db_roles import runtime_url

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:  # noqa: S310 (our own server)
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_make_serve_answers_its_login_page_with_debug_off(django_db_setup, django_db_blocker,
                                                          tmp_path):
    # given this test's database, and a runtime role of this test's own
    db = connection.settings_dict
    role = f"casino_serve_{os.getpid()}"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env.update(DATABASE_URL=runtime_url(name=db["USER"], password=db["PASSWORD"] or None),
               DJANGO_STATIC_ROOT=str(tmp_path / "static"), DATABASE_POOL="true")

    # when a newcomer starts the service the production-like way
    make = shutil.which("make") or "make"
    server = subprocess.Popen(
        [make, "--no-print-directory", "serve", "HOST=127.0.0.1", f"PORT={port}",
         f"RUNTIME_ROLE={role}", "SERVE_WORKERS=1"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        status, page = 0, ""
        while time.monotonic() < deadline and server.poll() is None:
            try:
                status, page = get(f"http://127.0.0.1:{port}/login/")
                break
            except OSError:
                time.sleep(0.5)

        # then the login page answers, with its stylesheet under its collected, hashed name
        assert status == 200, page or "the server did not answer"
        assert "Sign in" in page or "password" in page.lower()
        stylesheet = re.search(r'href="(/static/[^"]+\.[0-9a-f]{12}\.css)"', page)
        assert stylesheet, page
        assert get(f"http://127.0.0.1:{port}{stylesheet[1]}")[0] == 200
        # the favicon too, linked and at the root where browsers ask for it on every page
        icon = re.search(r'<link rel="icon" href="(/static/[^"]+\.[0-9a-f]{12}\.svg)"', page)
        assert icon, page
        for path in (icon[1], "/favicon.ico"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
                assert answer.status == 200 and answer.read(), path
        # and the service reaches its database as the runtime role
        health, body = get(f"http://127.0.0.1:{port}/api/v1/health")
        assert health == 200, body
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute("SELECT DISTINCT usename FROM pg_stat_activity"
                           " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                           " AND application_name <> 'pg_dump'")
            connected = {name for (name,) in cursor.fetchall()}
        assert role in connected, connected
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        output = server.communicate(timeout=30)[0]
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(f'DROP OWNED BY "{role}"')
            cursor.execute(f'DROP ROLE "{role}"')
    # the process said which role it connects as
    assert f"as the role {role}" in output
