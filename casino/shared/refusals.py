"""Refusals leave a trace: attempts the service refused, with who, what and when.

An auditor sees attempts as well as actions: an insolvent banker's deal, a foul hand, a
withdrawal beyond the funds, a dealer trying a pit boss's step, a failed or locked-out
login. Every door records them the same way, through ``refusal_trace``: what counts as a
refusal (``refused_by_rule``: a domain error other than "no such thing", or a permission
denied), what was tried (the action), by whom, with the error's figures and a reference.

A refused operation's own transaction rolls back (and an API POST with an Idempotency-Key
runs inside one more transaction that also rolls back), so the record is written after
them, in a transaction of its own, and nothing else changes:

- a request (the API, the console, the admin) notes its refusals on the request, and
  ``RefusalMiddleware``, outside every transaction of the request, writes them once the
  answer is made. The API's exception handler notes the refusals of every view (named by
  its ``refusal_action``, else by its route; ``refusal_action = None`` opts out); the
  console's and the admin's views note theirs where they show them
  (``refusal_trace_request``), and a permission the console refuses before its view runs
  is noted by the middleware (``process_exception``). Only steps are traced (POST and the
  other unsafe methods): a page one may not read refuses no step;
- a command or a task wraps its service call in ``refusals_traced``, which writes the
  refusal when the error has left the block, its transaction already rolled back;
- a failed login (Django's ``user_login_failed`` signal, sent by ``authenticate()`` for
  the admin's login and the token endpoint alike, and for a lockout) is written at once:
  no transaction of ours is open there.

PostgreSQL refuses UPDATE and DELETE of refusals (casino/migrations/0004_approval_refusal.py).
"""

from __future__ import annotations

import getpass
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from rest_framework import exceptions as api_exceptions
from rest_framework.request import Request

from casino.shared.errors import DomainError, NotFound

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


def refusal_note(request: HttpRequest | Request, **fields: Any) -> None:
    """Keep a refusal to be written after the request's transactions have ended; written at
    once when no RefusalMiddleware collects them (a call outside a request)."""
    notes = getattr(request, _NOTES, None)
    if notes is None:
        refusal_record(**fields)
    else:
        notes.append(fields)


# What a refusal names it concerned, from the route's arguments: the first of these found.
_REFS = (("round_id", "round"), ("approval_id", "approval"), ("entry_id", "entry"),
         ("player_id", "player"), ("table_id", "table"))
_STEPS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def refused_by_rule(error: BaseException) -> tuple[str, str, dict[str, Any]] | None:
    """The code, message and figures of a refusal worth a trace: a domain error (a rule of
    the game or the money refused the step; not a 404, which refuses nothing), or a
    permission denied (Django's or DRF's). None for anything else (bad input the forms
    and serializers reject, a crash)."""
    if isinstance(error, DomainError):
        if isinstance(error, NotFound):
            return None
        return error.code, error.message, dict(error.detail)
    if isinstance(error, PermissionDenied | api_exceptions.PermissionDenied):
        message = str(error) if str(error) else "Your role does not allow this step."
        if isinstance(error, api_exceptions.PermissionDenied):
            message = str(error.detail)
        return "permission_denied", message, {}
    return None


def refusal_trace(error: BaseException, *, action: str, by: Any, ref: str = "",
                  request: HttpRequest | Request | None = None, path: str = "",
                  username: str = "") -> bool:
    """Record ``error`` as a refusal of ``action`` by ``by``, when it is one
    (``refused_by_rule``): noted on ``request`` to be written after its transactions, or
    written now outside a request (the caller's transaction has rolled back: see
    ``refusals_traced``). Returns whether it was recorded."""
    found = refused_by_rule(error)
    if found is None or not action:
        return False
    code, message, detail = found
    user = by if by is not None and getattr(by, "is_authenticated", False) else None
    fields: dict[str, Any] = {"action": action, "code": code, "message": message, "by": user,
                              "username": username, "detail": detail, "ref": ref,
                              "path": request.path if request is not None else path}
    if request is not None:
        refusal_note(request, **fields)
    else:
        refusal_record(**fields)
    return True


def refusal_ref(kwargs: Mapping[str, Any]) -> str:
    """``"round:4"`` from a route's arguments (``round_id=4``)."""
    for key, kind in _REFS:
        if kwargs.get(key) is not None:
            return f"{kind}:{kwargs[key]}"
    return ""


def refusal_trace_request(request: HttpRequest | Request, error: BaseException, *, action: str = "",
                          ref: str = "") -> bool:
    """A view's refusal (the console, the admin): by the signed-in user; the action and the
    reference default to the route's name and arguments (``console:round-deal`` with
    ``round_id=4``: ``round_deal``, ``round:4``). Only a step (an unsafe method) is traced."""
    if request.method not in _STEPS:
        return False
    match = request.resolver_match
    if match is not None:
        action = action or (match.url_name or "").replace("-", "_")
        ref = ref or refusal_ref(match.kwargs)
    return refusal_trace(error, action=action, by=getattr(request, "user", None), ref=ref,
                         request=request)


def command_caller() -> str:
    """Who ran a command or a task, as the operating system names them."""
    try:
        return f"os:{getpass.getuser()}"
    except (OSError, KeyError):  # no login name in the environment or the passwd file
        return "os:unknown"


@contextmanager
def refusals_traced(*, action: str, by: Any = None, ref: str = "", path: str = "",
                    ) -> Iterator[None]:
    """For a caller outside a request (a management command, a task): a refusal leaving the
    block is recorded, then goes on its way. The block holds the service's whole
    transaction, so the record is written after that transaction has rolled back; never
    open it inside a transaction of one's own (the record would roll back with it)."""
    try:
        yield
    except Exception as error:
        refusal_trace(error, action=action, by=by, ref=ref, path=path,
                      username="" if by is not None else command_caller())
        raise


class RefusalMiddleware:
    """Writes the refusals noted during a request, after everything inside it (the view,
    the idempotency transaction) has finished; placed before IdempotencyMiddleware.

    It also notes a permission that a view's guard refused before the view ran (the
    console's, the admin's): Django turns that PermissionDenied into the 403 page after
    asking the middleware (``process_exception``). The API answers its own denials."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        setattr(request, _NOTES, [])
        response = self.get_response(request)
        for fields in getattr(request, _NOTES):
            refusal_record(**fields)
        setattr(request, _NOTES, None)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> None:
        if isinstance(exception, PermissionDenied):
            refusal_trace_request(request, exception)


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
