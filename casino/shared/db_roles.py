"""Two database roles: the owner, who migrates, and the runtime role the service connects as.

The owner (``DATABASE_OWNER_URL``, by default ``DATABASE_URL``) creates and alters the
tables and owns them and their trigger functions. The service connects as a login role that
owns nothing and holds only the privileges its code uses (``runtime_privileges``: each app
declares its own tables' in its AppConfig), so what it may not do (disable a trigger,
truncate, edit or delete ledger rows, rewrite a round's story) it cannot do, whatever the
code above it gets wrong. ``manage.py
create_runtime_role`` makes that role; ``manage.py migrate`` always connects as the owner
(casino/management/commands/migrate.py) and re-applies the grants afterwards, so tables
that later migrations add are covered too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from psycopg import sql


@dataclass(frozen=True)
class Privileges:
    select: bool = True
    insert: bool = True
    # True: every column; a tuple: only those columns; False: none.
    update: bool | tuple[str, ...] = True
    delete: bool = False


READ_ONLY = Privileges(insert=False, update=False)
APPEND_ONLY = Privileges(update=False)


def runtime_privileges() -> dict[str, Privileges]:
    """What the service does to each table, as each installed app declares it for its own
    tables in its AppConfig (``runtime_privileges``, a mapping of table name to
    Privileges; the project's ``casino`` app declares the third-party tables it runs auth
    with); every other table gets the default (read, insert, update; never delete).
    TRUNCATE, REFERENCES and TRIGGER are granted on nothing, nor CREATE on the schema. A
    table declared by two apps is a mistake, refused rather than settled by app order."""
    from django.apps import apps

    found: dict[str, Privileges] = {}
    declared_by: dict[str, str] = {}
    for config in apps.get_app_configs():
        for table, privileges in getattr(config, "runtime_privileges", {}).items():
            if table in declared_by:
                raise ImproperlyConfigured(
                    f"The runtime privileges of {table} are declared by both "
                    f"{declared_by[table]} and {config.label}: one app declares a table.")
            found[table], declared_by[table] = privileges, config.label
    return found


def runtime_functions() -> tuple[str, ...]:
    """The functions the service calls, as each app declares its own in its AppConfig
    (``runtime_functions``): SECURITY INVOKER, so EXECUTE lets the role do through them only
    what its table privileges let it do anyway. EXECUTE is taken from PUBLIC when they are
    made; the owner's other functions (triggers) are granted nothing."""
    from django.apps import apps

    return tuple(name for config in apps.get_app_configs()
                 for name in getattr(config, "runtime_functions", ()))


def _tables_and_owner(cursor: Any) -> tuple[list[str], list[str], str]:
    cursor.execute(
        "SELECT c.relname, c.relkind, pg_get_userbyid(c.relowner) FROM pg_class c"
        " WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'S')"
        " ORDER BY c.relname")
    rows = cursor.fetchall()
    tables = [name for name, kind, _ in rows if kind != "S"]
    sequences = [name for name, kind, _ in rows if kind == "S"]
    cursor.execute("SELECT tableowner FROM pg_tables WHERE schemaname = current_schema()"
                   " AND tablename = 'django_migrations'")
    found = cursor.fetchone()
    owner = found[0] if found else cursor.connection.info.user
    return tables, sequences, owner


def runtime_grant(*, role: str, using: str = DEFAULT_DB_ALIAS) -> None:
    """Give ``role`` exactly runtime_privileges() on this schema's tables, and the defaults
    (read, insert, update) on tables the owner creates later. Idempotent, and in one
    transaction, so a service running meanwhile never sees a table between its REVOKE and
    its GRANT."""
    declared = runtime_privileges()
    with transaction.atomic(using=using), connections[using].cursor() as cursor:
        tables, sequences, owner = _tables_and_owner(cursor)
        r = sql.Identifier(role)
        cursor.execute("SELECT current_schema(), current_database()")
        schema, database = cursor.fetchone()
        schema_name = sql.Identifier(schema)
        run = cursor.execute
        run(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
            sql.Identifier(database), r))
        run(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(schema_name, r))
        run(sql.SQL("REVOKE CREATE ON SCHEMA {} FROM {}").format(schema_name, r))
        for table in tables:
            t = sql.Identifier(table)
            run(sql.SQL("REVOKE ALL ON TABLE {} FROM {}").format(t, r))
            p = declared.get(table, Privileges())
            grants = [name for name, on in (("SELECT", p.select), ("INSERT", p.insert),
                                            ("DELETE", p.delete)) if on]
            if p.update is True:
                grants.append("UPDATE")
            if grants:
                run(sql.SQL("GRANT {} ON TABLE {} TO {}").format(
                    sql.SQL(", ").join(sql.SQL(g) for g in grants), t, r))
            if isinstance(p.update, tuple):
                run(sql.SQL("GRANT UPDATE ({}) ON TABLE {} TO {}").format(
                    sql.SQL(", ").join(sql.Identifier(c) for c in p.update), t, r))
        for sequence in sequences:
            run(sql.SQL("GRANT USAGE, SELECT ON SEQUENCE {} TO {}").format(
                sql.Identifier(sequence), r))
        # Those that exist by now: a schema migrated only part of the way has fewer.
        run("SELECT p.oid::regprocedure::text FROM pg_proc p"
            " WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = ANY(%s)",
            [list(runtime_functions())])
        for (function,) in cursor.fetchall():
            # regprocedure's text is the function's name and argument types, quoted as needed.
            run(sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}").format(sql.SQL(function), r))
        # Tables of later migrations; migrate then re-applies runtime_privileges()
        # (runtime_roles_regrant), which also takes back what the defaults gave too much.
        run(sql.SQL("ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA {}"
                    " GRANT SELECT, INSERT, UPDATE ON TABLES TO {}").format(
            sql.Identifier(owner), schema_name, r))
        run(sql.SQL("ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA {}"
                    " GRANT USAGE, SELECT ON SEQUENCES TO {}").format(
            sql.Identifier(owner), schema_name, r))


def runtime_roles(*, using: str = DEFAULT_DB_ALIAS) -> list[str]:
    """The roles create_runtime_role set up for this schema: those whose default privileges
    on the owner's future tables here are exactly runtime_grant's (SELECT, INSERT, UPDATE),
    so a role given other defaults by someone else (a read-only reporting role) is left
    alone."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_userbyid(acl.grantee) FROM pg_default_acl d,"
            " aclexplode(d.defaclacl) acl"
            " WHERE d.defaclnamespace = current_schema()::regnamespace"
            " AND d.defaclobjtype = 'r' AND acl.grantee <> 0 AND acl.grantee <> d.defaclrole"
            " GROUP BY acl.grantee"
            " HAVING array_agg(acl.privilege_type::text ORDER BY acl.privilege_type)"
            " = ARRAY['INSERT', 'SELECT', 'UPDATE'] ORDER BY 1")
        return [row[0] for row in cursor.fetchall()]


def runtime_roles_regrant(sender: Any, using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> None:
    """post_migrate: the grants again, once per migrate, for the tables it may have added."""
    from django.apps import apps

    # Sent once per app with models (an app without any is sent none): act on the last.
    if sender.label != [a for a in apps.get_app_configs()
                        if a.models_module is not None][-1].label:
        return
    for role in runtime_roles(using=using):
        runtime_grant(role=role, using=using)


def runtime_role_create(*, name: str, password: str | None,
                        using: str = DEFAULT_DB_ALIAS) -> None:
    """Create (or bring back in line) a login role that owns nothing, with its grants."""
    with connections[using].cursor() as cursor:
        _, _, owner = _tables_and_owner(cursor)
        if name == owner:
            raise ValueError(f"{name!r} owns the tables; the runtime role must be another role")
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [name])
        found = cursor.fetchone()
        r = sql.Identifier(name)
        attributes: sql.Composable = sql.SQL("LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE"
                                             " NOREPLICATION NOBYPASSRLS")
        if password is not None:
            attributes = sql.SQL("{} PASSWORD {}").format(attributes, sql.Literal(password))
        verb = sql.SQL("ALTER ROLE" if found else "CREATE ROLE")
        cursor.execute(sql.SQL("{} {} {}").format(verb, r, attributes))
        cursor.execute("SELECT count(*) FROM pg_class WHERE relowner = %s::regrole"
                       " AND relnamespace = current_schema()::regnamespace", [name])
        if cursor.fetchone()[0]:
            raise ValueError(f"{name!r} owns objects in this database; it must own nothing")
    runtime_grant(role=name, using=using)


def runtime_url(*, name: str, password: str | None, using: str = DEFAULT_DB_ALIAS) -> str:
    """The DATABASE_URL of the same server and database, as ``name``."""
    params = connections[using].settings_dict
    auth = quote(name, safe="")
    if password:
        auth += ":" + quote(password, safe="")
    host = quote(params.get("HOST") or "", safe="")
    port = f":{params['PORT']}" if params.get("PORT") else ""
    return f"postgres://{auth}@{host}{port}/{quote(params['NAME'], safe='')}"


@contextlib.contextmanager
def owner_connection(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """Reconnect ``using`` with the owner's credentials (DATABASE_OWNER_URL) for a command
    that changes the schema or the grants, then put the service's credentials back."""
    owner = getattr(settings, "DATABASE_OWNER", None)
    conn = connections[using]
    if not owner:
        yield
        return
    saved = {key: conn.settings_dict.get(key) for key in owner}
    saved_options = dict(conn.settings_dict.get("OPTIONS") or {})
    conn.close()
    conn.close_pool()  # type: ignore[attr-defined]  # PostgreSQL's wrapper has it
    conn.settings_dict.update(owner)
    # A one-off command needs no pool (and the pool would keep the other credentials).
    conn.settings_dict["OPTIONS"] = {k: v for k, v in saved_options.items() if k != "pool"}
    try:
        yield
    finally:
        conn.close()
        conn.settings_dict.update(saved)
        conn.settings_dict["OPTIONS"] = saved_options
