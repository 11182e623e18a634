from django.apps import AppConfig


class ReportsConfig(AppConfig):
    """Every report of the casino: the play's days, the bankers, the ratings, the cage's
    cash reports and the ledger's statements and trial balance, and their files. Reads
    rounds, ledger and casino; none of them reads it (tests/test_layering.py)."""

    name = "reports"
    verbose_name = "Reports"
