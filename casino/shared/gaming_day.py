"""The gaming day: the casino's accounting day, which starts at GAMING_DAY_START_HOUR local
time rather than at midnight, so a night's play falls on one day."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.utils import timezone

# The gaming days the service can work with: each one's start and the start of the day
# after it are moments Python and PostgreSQL both hold, in the casino's zone and in UTC
# (9999-12-31 has no next day; 0001-01-01 starts before the calendar east of UTC). Every
# door holds the days it takes to them (casino.shared.api.fields.GamingDayField), and the
# moments it takes too (``moment_in_range``): outside, a 400, never an overflow later.
FIRST_DAY = date(1, 1, 2)
LAST_DAY = date(9999, 12, 30)


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


def moment_in_range(moment: datetime) -> bool:
    """Whether an aware ``moment`` falls within the gaming days FIRST_DAY to LAST_DAY, the
    days every date a door takes is held to: shown in any zone, or set against a day's
    bounds, it stays within the calendar. (Aware datetimes compare without converting, so
    this never overflows itself.)"""
    since, until = gaming_days_bounds(FIRST_DAY, LAST_DAY)
    assert since is not None and until is not None
    return since <= moment < until
