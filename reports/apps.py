from typing import ClassVar

from django.apps import AppConfig

from casino.shared.db_roles import APPEND_ONLY, Privileges


class ReportsConfig(AppConfig):
    """Every report of the casino: the play's days, the bankers, the ratings, the cage's
    cash reports and the ledger's statements and trial balance, and their files. Reads
    rounds, ledger and casino; none of them reads it (tests/test_layering.py)."""

    name = "reports"
    verbose_name = "Reports"

    # What the service's database role may do to the reports' tables (casino.shared.db_roles;
    # every table not named: read, insert, update, never delete). Their tables keep the
    # names they were created with under rounds (reports/migrations/0001).
    runtime_privileges: ClassVar[dict[str, Privileges]] = {
        # A closed gaming day's figures never change (rounds/migrations/0008).
        "rounds_closedday": APPEND_ONLY,
        "rounds_closedtableday": APPEND_ONLY,
    }
