"""Safe retries for every POST of the API: the ``Idempotency-Key`` header.

A client that did not hear the answer to a POST (a dropped connection, a timeout) sends it
again with the same key; it must not move money twice. ``IdempotencyMiddleware`` wraps every
POST under /api/v1/ that carries the header, so endpoints added later get it without doing
anything:

- The key (at most 255 characters) is scoped to the user, the method and the path.
- The first request runs inside one transaction that also stores its response under the key,
  so the work and the stored answer commit together or not at all.
- A retry with the same key and the same body gets the stored response again, with the header
  ``Idempotent-Replayed: true``; the same key with a different body gets 422.
- A retry arriving while the first is still running waits: its INSERT of the same key blocks
  on the unique index until the first transaction ends, then it is answered as above.
- Only a successful (2xx) answer is stored. When the first request fails, nothing of it is
  kept, key included, so the client may fix the cause and retry with the same key.
- Anonymous requests (the token endpoint) pass through: there is no user to scope them by.

Keys are kept at least 24 hours; ``idempotency_keys_purge`` (a Celery beat task in
casino.tasks) deletes older ones.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.db import models, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone

from casino.shared.errors import Conflict

if TYPE_CHECKING:
    from rest_framework.authentication import BaseAuthentication

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
MAX_PATH_LENGTH = 500
PATH_PREFIX = "/api/v1/"
KEEP_FOR = timedelta(hours=24)


class IdempotencyKey(models.Model):
    """A POST already answered, and its answer, under the key its client chose."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=MAX_PATH_LENGTH)
    key = models.CharField(max_length=MAX_KEY_LENGTH)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request.")
    status_code = models.PositiveSmallIntegerField(null=True)
    content_type = models.CharField(max_length=100, blank=True, default="")
    location = models.CharField(max_length=500, blank=True, default="")
    body = models.BinaryField(default=b"")
    created_at = models.DateTimeField()

    class Meta:
        app_label = "casino"
        constraints = [
            models.UniqueConstraint(fields=["user", "method", "path", "key"],
                                    name="casino_idempotency_key_unique_per_user_and_path"),
        ]
        indexes = [models.Index(fields=["created_at"])]

    def __str__(self) -> str:
        return f"{self.method} {self.path} [{self.key}]"


def _error(status: int, code: str, message: str, detail: dict) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message, "detail": detail}},
                        status=status)


def _fingerprint(request: HttpRequest) -> str:
    """The request's identity: query string and body (JSON compared by meaning, not bytes)."""
    body = request.body
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
    except (ValueError, RecursionError):
        # Not JSON we can read (the view will refuse it): the raw bytes identify it.
        canonical = body
    return hashlib.sha256(request.META.get("QUERY_STRING", "").encode() + b"\n"
                          + canonical).hexdigest()


def _authenticated_user_id(request: HttpRequest) -> int | None:
    """Who is asking, by the API's own authentication (tokens live in DRF, not in Django's
    session middleware); None for anonymous or failed authentication, which pass through."""
    from rest_framework.exceptions import APIException
    from rest_framework.request import Request
    from rest_framework.settings import api_settings

    # api_settings imports the dotted paths of the setting: these are classes, not strings.
    classes = cast("Sequence[type[BaseAuthentication]]",
                   api_settings.DEFAULT_AUTHENTICATION_CLASSES)
    drf_request = Request(request, authenticators=[auth() for auth in classes])
    try:
        user = drf_request.user
    except APIException:
        return None
    if user is None or not user.is_authenticated:
        return None
    return user.pk


def _replay(stored: IdempotencyKey) -> HttpResponse:
    response = HttpResponse(bytes(stored.body), status=stored.status_code,
                            content_type=stored.content_type or None)
    if stored.location:
        response["Location"] = stored.location
    response[REPLAYED_HEADER] = "true"
    return response


def respond_once(*, user_id: int, method: str, path: str, key: str, fingerprint: str,
                 run: Callable[[], HttpResponse]) -> HttpResponse:
    """Run ``run`` at most once per (user, method, path, key); replay its answer after."""
    with transaction.atomic():
        # A retry arriving while the first request runs waits on the key's unique index
        # (get_or_create's INSERT), then finds the first one's stored answer.
        stored, created = IdempotencyKey.objects.get_or_create(
            user_id=user_id, method=method, path=path, key=key,
            defaults={"fingerprint": fingerprint, "created_at": timezone.now()})
        if not created:
            if stored.fingerprint != fingerprint:
                return _error(
                    422, "idempotency_key_reused",
                    f"This {HEADER} was already used for a different request to {path}.",
                    {"key": key})
            return _replay(stored)
        response = run()
        if 200 <= response.status_code < 300 and not response.streaming:
            IdempotencyKey.objects.filter(pk=stored.pk).update(
                status_code=response.status_code,
                content_type=response.get("Content-Type", ""),
                location=response.get("Location", ""), body=bytes(response.content))
        else:
            # Nothing of a failed request is kept, not even its key (see the module doc).
            transaction.set_rollback(True)
        return response


class IdempotencyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = request.headers.get(HEADER)
        if key is None or request.method != "POST" or not request.path.startswith(PATH_PREFIX):
            return self.get_response(request)
        if not key.strip() or len(key) > MAX_KEY_LENGTH or not key.isprintable():
            return _error(400, "invalid_idempotency_key",
                          f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable characters.",
                          {"length": len(key)})
        if len(request.path) > MAX_PATH_LENGTH:
            # The key is stored with its path; no route of the API is this long.
            return _error(414, "uri_too_long",
                          f"A path with an {HEADER} may be at most {MAX_PATH_LENGTH} characters.",
                          {"length": len(request.path)})
        user_id = _authenticated_user_id(request)
        if user_id is None:
            return self.get_response(request)
        return respond_once(user_id=user_id, method=request.method,
                            path=operation_path(request.path_info),
                            key=key, fingerprint=_fingerprint(request),
                            run=lambda: self.get_response(request))


def operation_path(path: str) -> str:
    """The path as the operation it resolves to names it: each argument as its converter
    reads it, so /players/16, /players/016 and /players/0016 are one operation, one key's
    scope (a key scoped by the raw path moved money once per spelling). A path that
    resolves to no route keeps its text: the view answers 404 anyway."""
    try:
        match = resolve(path)
    except Resolver404:
        return path
    return reverse(match.view_name, args=match.args, kwargs=match.kwargs)


def idempotency_keys_purge(*, older_than: timedelta = KEEP_FOR) -> int:
    """Delete keys older than ``older_than`` (at least KEEP_FOR); returns how many."""
    if older_than < KEEP_FOR:
        raise ValueError(f"keys are kept at least {KEEP_FOR}")
    deleted, _ = IdempotencyKey.objects.filter(
        created_at__lt=timezone.now() - older_than).delete()
    return deleted


# --- the console's form-once token: the same keys, for a form a person may send twice ----------
#
# A screen's form that moves money carries a fresh token (``form_once_token``, a hidden
# ``once`` field). Its view claims the token inside the movement's own transaction, in this
# same table under the key "form:<token>": a double click or a resent form waits on the
# first one's key (the unique index, as an API retry does), then is led where the first one
# led. The API's header and the console's field are two doors to one table, one purge.

FORM_FIELD = "once"


def form_once_token() -> str:
    return uuid.uuid4().hex


def _form_key(request: HttpRequest) -> str:
    token = request.POST.get(FORM_FIELD, "")
    return f"form:{token}" if token and len(token) <= 64 and token.isalnum() else ""


def form_once_claim(request: HttpRequest, params: dict[str, Any]) -> str | None:
    """Where the first sending of this form led (a path), when it was already sent; else claims the
    token (in the caller's transaction, so a refused movement keeps no token) and answers
    None. The same form sent again with other figures is refused (409 ``form_reused``)."""
    key = _form_key(request)
    if not key or request.user.pk is None:
        return None
    fingerprint = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()
    stored, made = IdempotencyKey.objects.get_or_create(
        user_id=int(request.user.pk), method="POST", path=request.path, key=key,
        defaults={"fingerprint": fingerprint, "created_at": timezone.now()})
    if made:
        return None
    if stored.fingerprint != fingerprint:
        # The same form sent again with other figures: not a double click but a mistake.
        raise Conflict("This form was already sent with other figures; open the page again "
                       "for a new form.", code="form_reused")
    return stored.location  # "" only if the first left no page to go back to


def form_once_done(request: HttpRequest, target: str) -> None:
    """Record where the first sending led (``target``), for the sendings after it."""
    key = _form_key(request)
    if key and request.user.pk is not None:
        IdempotencyKey.objects.filter(user_id=int(request.user.pk), method="POST",
                                      path=request.path, key=key).update(location=target,
                                                                         status_code=302)
