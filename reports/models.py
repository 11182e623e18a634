"""The reports' own records: report files asked for, and closed gaming days.

Design overview
- A ``Report`` is a request for a report file (a kind, a format and its parameters, by
  whom and when), made by a Celery worker after the request commits
  (reports.services). It records how far the worker got and then either the stored
  file, with the ledger's chain head the figures were read at, or why it failed; a
  failed report can be asked again (``attempts``). Nothing about a report moves money.
- A ``ClosedDay`` is a gaming day whose figures were stored once, at its close
  (reports.closing), with the ledger's chain head at that moment; ``ClosedTableDay``
  rows hold each table's figures of that day, and one total per currency (no table).
  PostgreSQL refuses UPDATE and DELETE of both (rounds/migrations/0008): a later reversal
  of one of the day's rounds is an adjustment on the day it was made.
- These models were first made by rounds' migrations and moved here in the state only
  (reports/migrations/0001, and rounds' ``reports_move_out`` migration): their tables
  keep the names they were created with (``db_table``), so the append-only triggers, the
  runtime role's grants (casino.shared.db_roles) and a service still running the older
  code during an upgrade all find them where they were. Their permissions are this app's
  (``reports.close_gaming_day``); ``rounds.run_reports`` stays on rounds.Round, as the
  floor's screens ask for it too.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Report(models.Model):
    """An auditor's or pit boss's request for a report file, made by a Celery worker.

    Nothing about a report moves money: the worker reads one snapshot and writes a file.
    The row records what was asked (kind, format, parameters), by whom and when, how far
    the worker got, and either the stored file with the chain head it was read at (and the
    database it was read from) or why it failed (a failed report can be asked again:
    ``attempts`` counts the tries).
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    kind = models.CharField(max_length=30)
    format = models.CharField(max_length=10)
    parameters = models.JSONField(default=dict, help_text="As asked, in plain text.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0, help_text="Percent done.")
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                     related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    file = models.FileField(upload_to="reports/%Y/%m/", blank=True)
    file_name = models.CharField(max_length=200, blank=True)
    content_type = models.CharField(max_length=60, blank=True)
    chain_seq = models.BigIntegerField(null=True, blank=True)
    chain_hash = models.CharField(max_length=64, blank=True)
    # Where the figures were read, in words: the primary, or a replica and how far behind
    # it was (casino.shared.db.ReadFrom). Said here for every format: the CSV has no room.
    read_from = models.CharField(max_length=300, blank=True)

    class Meta:
        db_table = "rounds_report"  # created by rounds/migrations/0006 (module docstring)
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(progress__lte=100),
                                   name="report_progress_percent"),
            models.CheckConstraint(condition=~Q(status="done") | ~Q(file=""),
                                   name="report_done_has_file"),
            models.CheckConstraint(condition=~Q(status="failed") | ~Q(error=""),
                                   name="report_failed_says_why"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.format} #{self.pk} ({self.status})"


class ClosedDay(models.Model):
    """A gaming day closed: its figures were stored and never change again.

    ``chain_seq``/``chain_hash`` are the ledger's chain head when the day was closed,
    which ``ledger_verify --expect SEQ:HASH`` can check later. PostgreSQL refuses UPDATE
    and DELETE of closed days and their figures (rounds/migrations/0008): a later reversal
    of one of the day's rounds is an adjustment on the day it was made.
    """

    gaming_day = models.DateField(unique=True)
    closed_at = models.DateTimeField()
    closed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                  on_delete=models.PROTECT, related_name="+",
                                  help_text="Empty when the scheduled close did it.")
    chain_seq = models.BigIntegerField()
    chain_hash = models.CharField(max_length=64)

    class Meta:
        db_table = "rounds_closedday"  # created by rounds/migrations/0007 (module docstring)
        ordering = ["-gaming_day"]
        permissions = [("close_gaming_day", "Can close a gaming day")]

    def __str__(self) -> str:
        return f"gaming day {self.gaming_day} (closed)"


class ClosedTableDay(models.Model):
    """One table's figures of a closed day (reports.play.DayFigures'), or, with no
    table, the floor's total in one currency."""

    closed_day = models.ForeignKey(ClosedDay, on_delete=models.PROTECT, related_name="tables")
    table = models.ForeignKey("rounds.Table", null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+")
    table_name = models.CharField(max_length=100)
    currency = models.CharField(max_length=3)
    rounds_settled = models.IntegerField()
    rounds_house_banked = models.IntegerField()
    rounds_player_banked = models.IntegerField()
    rounds_co_banked = models.IntegerField()
    rounds_reversed = models.IntegerField()
    rounds_voided = models.IntegerField()
    handle = models.BigIntegerField()
    house_stakes = models.BigIntegerField()
    house_win_house_banked = models.BigIntegerField()
    house_win_house_stakes = models.BigIntegerField()
    commission_players = models.BigIntegerField()
    commission_bankers = models.BigIntegerField()
    # Card room: the collection fees by kind (reports.play.DayFigures, which reads a closed
    # day's row through reports.play.closed_figures).
    collection_banker = models.BigIntegerField(default=0)
    collection_players = models.BigIntegerField(default=0)
    adjustments = models.BigIntegerField(
        default=0, help_text="House result moved back this day by reversals of rounds of "
                             "days closed before.")

    class Meta:
        db_table = "rounds_closedtableday"  # by rounds/migrations/0007 (module docstring)
        ordering = ["closed_day", "table_id"]
        constraints = [
            models.UniqueConstraint(fields=["closed_day", "table"],
                                    name="closed_table_day_unique_table"),
            models.UniqueConstraint(fields=["closed_day", "currency"],
                                    condition=Q(table__isnull=True),
                                    name="closed_table_day_one_total_per_currency"),
        ]

    def __str__(self) -> str:
        return f"{self.table_name} on {self.closed_day.gaming_day}"
