"""``{{ moment|casino_time }}``: a time in the casino's own zone (settings.TIME_ZONE), never
UTC beside local time. Written once for the console, the admin and the reports."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone

register = template.Library()

NOT_YET = "\u2013"  # an en dash: nothing to show yet

FORMAT = "%Y-%m-%d %H:%M:%S"


def casino_time_text(moment: datetime | None, fmt: str = FORMAT) -> str:
    if moment is None:
        return NOT_YET
    return timezone.localtime(moment).strftime(fmt)


@register.filter
def casino_time(moment: datetime | None, fmt: str = FORMAT) -> str:
    return casino_time_text(moment, fmt)
