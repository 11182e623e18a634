import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from casino.version import VERSION

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_health_answers_ok_without_authentication(api_client):
    response = api_client.get("/api/v1/health")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "version": VERSION}


@pytest.mark.slow  # seconds of fuzzing, sampling or waiting: make test runs it
def test_health_answers_503_naming_the_database_when_it_is_down():
    # given the service configured for a PostgreSQL port where nothing listens
    env = dict(
        os.environ,
        DATABASE_URL="postgres://postgres@127.0.0.1:9/casino?connect_timeout=2",
        DATABASE_POOL="false",
        DJANGO_DEBUG="true",
    )
    probe = (
        "import django, json; django.setup();"
        "from django.test import Client;"
        "r = Client().get('/api/v1/health');"
        "print(json.dumps({'status': r.status_code, 'body': r.json()}))"
    )

    # when
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60, check=True,
    )

    # then
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["status"] == 503
    assert answer["body"]["status"] == "unavailable"
    assert answer["body"]["database"].startswith("error: OperationalError")
    assert answer["body"]["version"] == VERSION
