"""Refusals leave a trace: attempts the service refused, with who and when.

An auditor sees attempts as well as actions: an insolvent banker's deal, a refused reversal,
a failed or locked-out login. A refused operation's own transaction rolls back (and an API
POST with an Idempotency-Key runs inside one more transaction that also rolls back), so the
record is written after them, in a transaction of its own, and nothing else changes:

- API views name what they record (``refusal_action`` and ``refusal_codes``); the API's
  exception handler notes each such refusal on the request, and ``RefusalMiddleware``,
  outside every transaction of the request, writes the notes once the answer is made;
- a failed login (Django's ``user_login_failed`` signal, sent by ``authenticate()`` for
  the admin's login and the token endpoint alike, and for a lockout) is written at once:
  no transaction of ours is open there.

PostgreSQL refuses UPDATE and DELETE of refusals (casino/migrations/0004_approval_refusal.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

if TYPE_CHECKING:
    from django.contrib.auth.models import User

_NOTES = "_casino_refusals"


class Refusal(models.Model):
    """One refused attempt."""

    at = models.DateTimeField(default=timezone.now)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                           on_delete=models.PROTECT, related_name="+",
                           help_text="Who tried; empty for an unknown login name.")
    username = models.CharField(max_length=150, blank=True, default="",
                                help_text="The name given (logins) or the user's name.")
    action = models.CharField(max_length=60, help_text='What was tried: "round_deal", ...')
    code = models.CharField(max_length=60, help_text="The refusal's error code.")
    message = models.TextField(blank=True, default="")
    detail = models.JSONField(default=dict, blank=True)
    ref = models.CharField(max_length=100, blank=True, default="",
                           help_text='What it concerned: "round:4", "entry:12".')
    path = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        app_label = "casino"
        ordering = ["-id"]
        indexes = [models.Index(fields=["at"]), models.Index(fields=["action", "code"])]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.action}: {self.code}"


def refusal_record(*, action: str, code: str, message: str, by: User | None,
                   username: str = "", detail: dict[str, Any] | None = None, ref: str = "",
                   path: str = "") -> Refusal:
    """Write one refusal, in its own transaction (a savepoint inside a caller's)."""
    if by is not None and not username:
        username = by.get_username()
    with transaction.atomic():
        return Refusal.objects.create(action=action, code=code, message=message, by=by,
                                      username=username[:150], detail=detail or {},
                                      ref=ref[:100], path=path[:500])


def refusal_note(request: HttpRequest, **fields: Any) -> None:
    """Keep a refusal to be written after the request's transactions have ended; written at
    once when no RefusalMiddleware collects them (a call outside a request)."""
    notes = getattr(request, _NOTES, None)
    if notes is None:
        refusal_record(**fields)
    else:
        notes.append(fields)


class RefusalMiddleware:
    """Writes the refusals noted during a request, after everything inside it (the view,
    the idempotency transaction) has finished; placed before IdempotencyMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        setattr(request, _NOTES, [])
        response = self.get_response(request)
        for fields in getattr(request, _NOTES):
            refusal_record(**fields)
        setattr(request, _NOTES, None)
        return response


def login_failed(sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None,
                 **kwargs: Any) -> None:
    """Receiver of user_login_failed: the name tried (never the password), and the user
    when the name is a known one."""
    from django.contrib.auth import get_user_model

    username = str(credentials.get("username") or "")
    user = get_user_model().objects.filter(username=username).first() if username else None
    path = request.path if request is not None else ""
    refusal_record(action="login", code="login_failed",
                   message="A login was refused (wrong credentials, inactive or locked out).",
                   by=user, username=username, path=path,
                   detail={"via": "admin" if path.startswith("/admin/") else "api"})
