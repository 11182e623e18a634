"""Logging pieces the settings name (LOGGING).

A 403 is a refusal, not a fault: Django logs a view's PermissionDenied with its traceback
(``django.request``, WARNING), which buries the few lines that matter under dozens that do
not. ``ForbiddenInOneLine`` makes every 403 logged there (the console's, the admin's, the
API's) one line: who, what and where; the refusal itself is traced as a Refusal
(casino.shared.refusals).
"""

from __future__ import annotations

import logging


def _plain(text: str) -> str:
    # As Django's log_response does with the path: a newline or a control character sent
    # in a URL or a name cannot start a line of its own in the log.
    return text.encode("unicode_escape").decode("ascii")


class ForbiddenInOneLine(logging.Filter):
    """Turns a 403 record of ``django.request`` into one line without a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        if getattr(record, "status_code", None) != 403 or request is None:
            return True
        user = getattr(request, "user", None)
        who = user.get_username() if user is not None and user.is_authenticated else "anonymous"
        match = getattr(request, "resolver_match", None)
        view = match.view_name if match is not None else "?"
        refused = record.exc_info[1] if record.exc_info else None
        why = f": {refused}" if refused is not None and str(refused) else ""
        record.msg = "Forbidden: %s tried %s %s at %s%s"
        record.args = (_plain(who), request.method, view, _plain(request.path), _plain(why))
        record.exc_info = None
        record.exc_text = None
        return True
