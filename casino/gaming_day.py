"""The gaming day: the casino's accounting day, which starts at GAMING_DAY_START_HOUR local
time rather than at midnight, so a night's play falls on one day."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from django.conf import settings
from django.utils import timezone


def gaming_day_of(moment: datetime | None = None) -> date:
    local = timezone.localtime(moment or timezone.now())
    return (local - timedelta(hours=settings.GAMING_DAY_START_HOUR)).date()
