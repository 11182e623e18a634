"""Django set up for a bench that calls the WSGI application in its own process
(profile_settle.py, round_trips.py, round_cpu.py): production-like settings, traffic to
127.0.0.1 only. Called before anything imports a model."""

from __future__ import annotations

import os
import secrets

import django


def setup_production_like(*, pool: bool) -> None:
    """DEBUG off (which would record every query), plain HTTP on the loopback, a fresh
    secret; ``pool``: psycopg's pool as a gunicorn worker has it, or one plain connection."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    os.environ["DJANGO_DEBUG"] = "false"
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    os.environ["DATABASE_POOL"] = "true" if pool else "false"
    os.environ["DJANGO_ALLOWED_HOSTS"] = "127.0.0.1"
    os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "false"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    django.setup()
