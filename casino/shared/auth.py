"""Logins under attack: the lockout's answers and the log of refused logins.

django-axes counts failed logins per username *and* client address (settings.AXES_*) on
both the admin's login form and ``POST /api/v1/auth/token``: both call Django's
``authenticate()`` with the request, which is what axes needs to see them. Past the limit,
axes flags the request and its middleware replaces the answer with ``lockout_response``:
the one error shape on the API, an HTML page on the admin. Every refused login, each
lockout and each throttled attempt is logged here with who, from where and when, for the
floor's security staff.
"""

from __future__ import annotations

import logging
from typing import Any

from axes.helpers import get_client_ip_address, get_cool_off, get_failure_limit
from axes.signals import user_locked_out
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from rest_framework.throttling import ScopedRateThrottle

from casino.shared.api.errors import error_body

logger = logging.getLogger("casino.shared.auth")

LOCKOUT_CODE = "locked_out"


def _client_ip(request: HttpRequest | None) -> str:
    if request is None:
        return "unknown"
    # The same address axes keys its counters by (REMOTE_ADDR unless configured otherwise).
    return getattr(request, "axes_ip_address", None) or get_client_ip_address(request) or "unknown"


def lockout_message(cool_off_seconds: int | None) -> str:
    if cool_off_seconds:
        minutes = max(1, round(cool_off_seconds / 60))
        return (f"Too many failed logins for this username from this address: logins are "
                f"refused for {minutes} minute{'s' if minutes != 1 else ''}. An administrator "
                f"can lift the lock sooner.")
    return ("Too many failed logins for this username from this address: logins are refused "
            "until an administrator lifts the lock.")


def lockout_response(request: HttpRequest, original_response: HttpResponse | None = None,
                     credentials: dict[str, Any] | None = None) -> HttpResponse:
    """axes' AXES_LOCKOUT_CALLABLE: what a locked-out login attempt is answered with."""
    from django.conf import settings

    cool_off = get_cool_off(request)
    seconds = int(cool_off.total_seconds()) if cool_off else None
    status = settings.AXES_HTTP_RESPONSE_CODE
    message = lockout_message(seconds)
    if request.path.startswith("/api/"):
        detail: dict[str, Any] = {"failure_limit": get_failure_limit(request, credentials)}
        if seconds:
            detail["retry_after_seconds"] = seconds
        response: HttpResponse = JsonResponse(
            error_body(LOCKOUT_CODE, message, detail), status=status)
    else:
        response = render(request, "admin/locked_out.html",
                          {"title": "Login locked", "message": message}, status=status)
    if seconds:
        response["Retry-After"] = str(seconds)
    return response


class LoginThrottle(ScopedRateThrottle):
    """The token endpoint's attempts per client address, right or wrong.

    axes locks one username at one address; this bounds how many usernames one address may
    try (password spraying). The rate is read when asked, not when DRF is imported, so a
    change of ``API_LOGIN_THROTTLE_RATE`` (a test's override) takes effect."""

    def get_rate(self) -> str | None:
        from django.conf import settings

        return settings.API_LOGIN_THROTTLE_RATE


def log_login_throttled(request: HttpRequest) -> None:
    logger.warning("login throttled: ip=%s path=%s at=%s", _client_ip(request), request.path,
                   timezone.now().isoformat())


@receiver(user_login_failed, dispatch_uid="casino.shared.auth.log_login_failed")
def log_login_failed(sender: Any, credentials: dict[str, Any],
                     request: HttpRequest | None = None, **kwargs: Any) -> None:
    # Django has already masked the password in ``credentials``; the username is kept, as
    # a security log must say whose account was tried.
    logger.warning("login refused: username=%r ip=%s path=%s at=%s",
                   credentials.get("username"), _client_ip(request),
                   getattr(request, "path", "?"), timezone.now().isoformat())


@receiver(user_locked_out, dispatch_uid="casino.shared.auth.log_locked_out")
def log_locked_out(sender: Any, request: HttpRequest | None = None, username: str | None = None,
                   ip_address: str | None = None, **kwargs: Any) -> None:
    logger.warning("login locked out: username=%r ip=%s path=%s at=%s", username,
                   ip_address or _client_ip(request), getattr(request, "path", "?"),
                   timezone.now().isoformat())
