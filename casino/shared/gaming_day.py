"""The gaming day: the casino's accounting day, which starts at GAMING_DAY_START_HOUR local
time rather than at midnight, so a night's play falls on one day."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.utils import timezone


def gaming_day_of(moment: datetime | None = None) -> date:
    local = timezone.localtime(moment or timezone.now())
    return (local - timedelta(hours=settings.GAMING_DAY_START_HOUR)).date()


def gaming_day_start(day: date) -> datetime:
    """The moment the gaming day ``day`` begins: its start hour, local time (aware)."""
    naive = datetime.combine(day, time(settings.GAMING_DAY_START_HOUR))
    return timezone.make_aware(naive, timezone.get_default_timezone())


def gaming_days_bounds(first: date | None, last: date | None,
                       ) -> tuple[datetime | None, datetime | None]:
    """``[start of first, start of the day after last)``; None leaves that side open."""
    since = gaming_day_start(first) if first is not None else None
    until = gaming_day_start(last + timedelta(days=1)) if last is not None else None
    return since, until
