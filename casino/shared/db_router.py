"""Reports read from a replica when one is configured (DATABASE_REPORTS_URL).

Only reads made inside ``casino.shared.db.read_snapshot`` go there: a report's every query runs
in that one snapshot, on one connection. Everything else, and every write, stays on the
default database, as does a report read inside a transaction there (a service storing
what it reads); with no replica configured the router says nothing and Django uses the
default database as always.
"""

from __future__ import annotations

from typing import Any

from casino.shared.db import REPORT_READS


class ReportsRouter:
    def db_for_read(self, model: Any, **hints: Any) -> str | None:
        alias = REPORT_READS.get()
        return alias if alias and alias != "default" else None

    def db_for_write(self, model: Any, **hints: Any) -> str | None:
        return "default"

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        # The replica holds the same rows: objects read from either may be related.
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return db != "reports"
