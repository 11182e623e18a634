"""Celery tasks of the reports: make an asked-for file, close yesterday's gaming day.

Each only orchestrates (docs/architecture.md). A report file is made under this app's name,
``reports.report_make``, and still under the name it had while it lived in rounds (below).
The day's close keeps the name beat schedules it by (CELERY_BEAT_SCHEDULE).
"""

from __future__ import annotations

import logging

from celery import shared_task

log = logging.getLogger(__name__)


@shared_task(name="reports.report_make")
def report_make_task(report_id: int) -> str:
    """Make one asked-for report file (reports.services.report_make)."""
    from reports.services import report_make

    return report_make(report_id=report_id)


# The name the task had before it moved to reports. A report asked for while the older
# version ran is a message under this name, waiting in the broker or redelivered after a
# lost worker (acks_late); a worker that did not know the name would drop it, and the
# report would stay queued. Remove this once a release with both names has run and no
# message under the old name can be left (docs/operations.md, "Background work").
@shared_task(name="rounds.report_make")
def report_make_task_by_its_old_name(report_id: int) -> str:
    """``rounds.report_make``: reports.report_make, for messages sent by an older version."""
    return report_make_task(report_id)


@shared_task(name="rounds.gaming_day_close")
def gaming_day_close_task() -> str | None:
    """Daily at GAMING_DAY_CLOSE_HOUR (CELERY_BEAT_SCHEDULE): close the previous gaming
    day unless it is closed; a day that cannot close yet (a round still in play) is
    logged and left for the pit boss."""
    from casino.shared.errors import DomainError
    from casino.shared.refusals import refusals_traced
    from reports.closing import gaming_day_close_due

    try:
        with refusals_traced(action="gaming_day_close", path="task rounds.gaming_day_close"):
            closed = gaming_day_close_due()
    except DomainError as refused:
        log.warning("gaming day close refused: %s", refused.message)
        return None
    return None if closed is None else closed.gaming_day.isoformat()
