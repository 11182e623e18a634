"""Report files: asked for in a request, made by a Celery worker after commit.

Nothing here moves money. A request stores what was asked and queues the task once its
transaction commits (a worker must find the row); the task marks the report running,
lays out the kind's Document from one snapshot, renders the format, stores the file
through Django's default storage and records the chain head it was read at. A failure
is recorded with its reason, and a failed report can be asked again.
"""

from __future__ import annotations

import logging
import traceback
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from casino.roles import LABELS
from casino.shared.errors import (
    Conflict,
    DomainError,
    NotFound,
    PermissionRefused,
    ValidationFailed,
)
from reports.files.document import Document
from reports.files.formats import FORMATS
from reports.files.kinds import KINDS, report_document, report_parameters
from reports.models import Report

if TYPE_CHECKING:
    from django.contrib.auth.models import User

log = logging.getLogger(__name__)

# A report a worker has not taken after this long is most likely waiting for a worker that
# is not running (a worker takes a report within a second or two of its asking).
WORKER_WAIT = timedelta(seconds=30)


def report_permissions(kind: str) -> tuple[str, ...]:
    return KINDS[kind].permissions


def report_may_read(*, user: User, kind: str) -> bool:
    """Whether ``user`` may ask for, see and download a report of ``kind``."""
    return kind in KINDS and user.has_perms(report_permissions(kind))


def report_request(*, kind: str, format: str, parameters: dict[str, Any],
                   by: User) -> Report:
    """Check what is asked, store it, and queue its making once the request commits."""
    if format not in FORMATS:
        raise ValidationFailed(f"There is no report format {format!r}.", code="invalid",
                               detail={"fields": {"format": [f"one of {', '.join(FORMATS)}"]}})
    typed = report_parameters(kind=kind, raw=parameters)
    if not report_may_read(user=by, kind=kind):
        raise PermissionRefused(
            f"Your role may not read a {kind} report.",
            detail={"kind": kind, "needs": list(report_permissions(kind))})
    plain = {name: typed[name].isoformat() if hasattr(typed[name], "isoformat")
             else str(typed[name]) for name in KINDS[kind].parameters}
    report = Report.objects.create(kind=kind, format=format, parameters=plain,
                                   requested_by=by)
    _queue(report.pk)
    return report


def report_retry(*, report_id: int, by: User) -> Report:
    """Ask again for a failed report (the same kind, format and parameters)."""
    with transaction.atomic():
        report = Report.objects.select_for_update().filter(pk=report_id).first()
        if report is None or not report_may_read(user=by, kind=report.kind):
            raise NotFound(f"There is no report #{report_id}.",
                           detail={"report_id": report_id})
        if report.status != Report.Status.FAILED:
            raise Conflict(f"Report #{report_id} is {report.status}; only a failed report "
                           "can be asked again.",
                           detail={"report_id": report_id, "status": report.status})
        report.status, report.progress, report.error = Report.Status.QUEUED, 0, ""
        report.started_at = report.finished_at = None
        report.save(update_fields=["status", "progress", "error", "started_at",
                                   "finished_at"])
        _queue(report.pk)
    return report


def report_waiting_for_worker(*, report: Report, now: datetime) -> bool:
    """Whether ``report`` has been queued for longer than WORKER_WAIT with nothing done:
    no worker has taken it (none is running, or all are busy)."""
    return (report.status == Report.Status.QUEUED and report.progress == 0
            and now - report.requested_at > WORKER_WAIT)


def _made_by(by: User) -> str:
    role = next((LABELS[g] for g in by.groups.values_list("name", flat=True) if g in LABELS),
                "staff")
    return f"{by.get_username()} ({role})"


def report_read(*, report: Report, by: User) -> Document:
    """The report's Document laid out now, for ``by`` to read as a page: the same
    parameters and code as its file, from one snapshot (its chain head says at which)."""
    if not report_may_read(user=by, kind=report.kind):
        raise NotFound(f"There is no report #{report.pk}.", detail={"report_id": report.pk})
    return report_document(
        kind=report.kind, parameters=report_parameters(kind=report.kind,
                                                       raw=report.parameters),
        made_by=_made_by(by), made_at=timezone.now())


def statement_read(*, player_id: int, date_from: date | None, date_to: date | None,
                   by: User) -> Document:
    """A player's statement laid out now as the ``player_statement`` kind's Document, for
    ``by`` to download at the cage: the same column spec and code as the auditors' file,
    over gaming days that may be open at either end (None: from the first movement, up to
    now). The cage's own guard (ledger.view_entry) has let ``by`` in."""
    return report_document(
        kind="player_statement",
        parameters={"player": player_id, "date_from": date_from, "date_to": date_to},
        made_by=_made_by(by), made_at=timezone.now())


def _queue(report_id: int) -> None:
    from reports.tasks import report_make_task

    transaction.on_commit(lambda: report_make_task.delay(report_id))


def _progress(report_id: int, percent: int, **fields: Any) -> None:
    Report.objects.filter(pk=report_id).update(progress=percent, **fields)


def report_make(*, report_id: int) -> str:
    """Make the report's file; returns the status it ended in.

    Claims the report with one conditional UPDATE (queued -> running), so a task
    delivered twice (acks_late after a lost worker) makes the file once.
    """
    claimed = Report.objects.filter(pk=report_id, status=Report.Status.QUEUED).update(
        status=Report.Status.RUNNING, progress=5, started_at=timezone.now(),
        attempts=F("attempts") + 1)
    report = Report.objects.select_related("requested_by").filter(pk=report_id).first()
    if report is None:
        return "missing"
    if not claimed:
        return str(report.status)
    try:
        document = report_document(
            kind=report.kind, parameters=report_parameters(kind=report.kind,
                                                           raw=report.parameters),
            made_by=_made_by(report.requested_by), made_at=timezone.now())
        _progress(report_id, 60)
        fmt = FORMATS[report.format]
        content = fmt.render(document)
        _progress(report_id, 90)
        name = f"{document.kind}-{report.pk}.{fmt.extension}"
        report.file.save(name, ContentFile(content), save=False)
        Report.objects.filter(pk=report_id).update(
            status=Report.Status.DONE, progress=100, finished_at=timezone.now(),
            file=report.file.name, file_name=name, content_type=fmt.content_type,
            chain_seq=document.chain_seq, chain_hash=document.chain_hash,
            read_from=document.read_from.sentence)
        return Report.Status.DONE
    except Exception as error:  # recorded on the report, which can then be retried
        why = error.message if isinstance(error, DomainError) else (
            f"{type(error).__name__}: {error}")
        log.warning("report #%s failed: %s\n%s", report_id, why, traceback.format_exc())
        Report.objects.filter(pk=report_id).update(
            status=Report.Status.FAILED, finished_at=timezone.now(), error=why[:2000])
        return Report.Status.FAILED
