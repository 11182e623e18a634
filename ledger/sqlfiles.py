"""The ledger's SQL in files: its functions' and triggers' current definitions, and each
migration's SQL with its way back written out.

- ``ledger/sql/<function>.sql``: what the database holds now, one file per function: the
  function as ``pg_get_functiondef`` prints it, then each trigger that calls it as
  ``pg_get_triggerdef`` prints it. A test compares every file with the migrated database
  (tests/ledger/test_sql_files.py), so the files are where to read the ledger's rules.
- ``ledger/migrations/sql/<migration>.pg.sql``: the SQL of one migration, as pairs of
  ``--- forward:`` and ``--- reverse:`` blocks (one RunSQL each, in order), as
  django-hordak keeps its ``.pg.sql`` files. Each block is text, never built from another
  migration's: editing an older migration's file cannot change a later one's way back.

A change to a function: write its new definition in a new migration's ``.pg.sql`` file, the
old one (from ``ledger/sql/``) as its reverse, migrate, then bring ``ledger/sql/`` up to
date (``python manage.py ledger_sql --write`` prints or writes it from the database).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.db import migrations

HERE = Path(__file__).resolve().parent
CURRENT = HERE / "sql"
MIGRATIONS = HERE / "migrations" / "sql"
_BLOCK = re.compile(r"^--- (forward|reverse):[ \t]*$", re.MULTILINE)


def migration_operations(name: str, directory: Path | None = None) -> list[Any]:
    """The RunSQL operations of ``<directory>/<name>.pg.sql``, in its order: the ledger's
    ``ledger/migrations/sql`` by default; another app's migration names its own folder."""
    text = ((directory or MIGRATIONS) / f"{name}.pg.sql").read_text()
    parts = _BLOCK.split(text)
    # parts: [preamble, kind, body, kind, body, ...]
    blocks = list(zip(parts[1::2], parts[2::2], strict=True))
    kinds = [kind for kind, _ in blocks]
    if not blocks or kinds != ["forward", "reverse"] * (len(blocks) // 2):
        raise ValueError(f"{name}.pg.sql: expected pairs of --- forward: / --- reverse: "
                         f"blocks, found {kinds}")
    return [migrations.RunSQL(forward.strip(), reverse.strip())
            for (_, forward), (_, reverse) in zip(blocks[0::2], blocks[1::2], strict=True)]


def function_files() -> dict[str, Path]:
    """Every ledger function's file, by the function's name."""
    return {path.stem: path for path in sorted(CURRENT.glob("*.sql"))}


# The ledger's functions and the triggers that call them, in the schema Django uses.
FUNCTIONS_SQL = """
SELECT p.oid, p.proname FROM pg_proc p
 WHERE p.pronamespace = current_schema()::regnamespace AND p.proname LIKE 'ledger\\_%%'
 ORDER BY p.proname"""
TRIGGERS_SQL = """
SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t
 WHERE t.tgfoid = %s AND NOT t.tgisinternal ORDER BY t.tgname"""


def database_definitions(cursor: Any) -> dict[str, str]:
    """Each ledger function's definition as the database holds it, in its file's form."""
    cursor.execute(FUNCTIONS_SQL)
    found = {}
    for oid, name in cursor.fetchall():
        cursor.execute("SELECT pg_get_functiondef(%s)", [oid])
        parts = [cursor.fetchone()[0].rstrip("\n") + ";"]
        cursor.execute(TRIGGERS_SQL, [oid])
        parts += [f"{trigger};" for (trigger,) in cursor.fetchall()]
        found[name] = "\n\n".join(parts) + "\n"
    return found
