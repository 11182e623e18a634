"""Deployment checks (`manage.py check --deploy`): the database role, the static files; and,
at every start, settings still set under an older name."""

from __future__ import annotations

from typing import Any

import psycopg
from django.conf import settings
from django.contrib.staticfiles.storage import ManifestStaticFilesStorage
from django.core.checks import CheckMessage, Error, Warning, register
from django.core.files.storage import storages

RUNTIME_ROLE_HINT = ("Connect the service as a role that owns nothing: `manage.py "
                     "create_runtime_role NAME` prints its DATABASE_URL; keep the owner's in "
                     "DATABASE_OWNER_URL for migrations.")


def static_manifest_problem() -> str | None:
    """Why the service cannot serve its pages' static files, in words; None when it can.

    With DEBUG off, static files are served from what ``collectstatic`` wrote, by their
    hashed names (whitenoise's manifest storage): without its manifest every page that
    names a stylesheet, the login page included, fails with a server error."""
    storage = storages["staticfiles"]
    if not isinstance(storage, ManifestStaticFilesStorage) or storage.read_manifest():
        return None
    return (f"The static files have not been collected into {settings.STATIC_ROOT}: with "
            "DJANGO_DEBUG off every page would answer 500. Run `manage.py collectstatic "
            "--noinput` first (`make serve` and the Docker image do).")


@register("casino_settings")
def check_deprecated_settings(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """Warn while an environment variable is set under a name the service has replaced
    (settings.DEPRECATED_SETTINGS): it is still read, until the next release drops it."""
    found: dict[str, str] = getattr(settings, "DEPRECATED_SETTINGS", {})
    return [Warning(f"{old} is deprecated: set {new} instead (the README says what it means "
                    f"now). {old} is read only while {new} is not set, and will stop being "
                    "read.", id="casino.W003") for old, new in sorted(found.items())]


@register("casino_static", deploy=True)
def check_static_manifest(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    problem = static_manifest_problem()
    return [Error(problem, id="casino.E001")] if problem else []


@register("security", "database_role", deploy=True)
def check_database_role(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """Warn when the service connects as a superuser or as the owner of its tables: either
    could disable the ledger's triggers, truncate it or rewrite its chain."""
    db = settings.DATABASES["default"]
    try:
        # Straight to the server, past the pool, briefly: a check must not hang a deploy.
        with psycopg.connect(dbname=db["NAME"], user=db.get("USER") or None,
                             password=db.get("PASSWORD") or None, host=db.get("HOST") or None,
                             port=db.get("PORT") or None, connect_timeout=5) as conn, \
                conn.cursor() as cursor:
            return database_role_warnings(cursor)
    except psycopg.Error:
        return []  # no database to ask (a build step); the service's /health will say so


def database_role_warnings(cursor: Any) -> list[CheckMessage]:
    """The warnings for the role ``cursor`` runs as (current_user)."""
    cursor.execute(
        "SELECT r.rolname, r.rolsuper, EXISTS (SELECT 1 FROM pg_class c"
        " WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')"
        " AND pg_has_role(current_user, c.relowner, 'USAGE'))"
        " FROM pg_roles r WHERE r.rolname = current_user")
    row = cursor.fetchone()
    if row is None:
        return []
    name, superuser, owner = row
    if superuser:
        return [Warning(f"The service connects to PostgreSQL as the superuser {name!r}.",
                        hint=RUNTIME_ROLE_HINT, id="casino.W001")]
    if owner:
        return [Warning(f"The service connects to PostgreSQL as {name!r}, which owns (or "
                        "inherits the ownership of) its tables.",
                        hint=RUNTIME_ROLE_HINT, id="casino.W002")]
    return []
