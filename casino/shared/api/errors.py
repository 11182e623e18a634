"""One error shape for every API failure.

    {"error": {"code": "not_found", "message": "A sentence for people.", "detail": {...}}}

DRF's exceptions, Django's Http404/PermissionDenied and the domain's DomainError all pass
through exception_handler(); routes that match no view at all (404), and crashes (500),
are answered in the same shape by the handler404/handler500 views wired in casino.urls.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.shared.errors import DomainError

logger = logging.getLogger(__name__)


def error_body(code: str, message: str, detail: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "detail": detail or {}}}


def _message_of(detail: Any) -> str:
    """The first human sentence inside DRF's nested error detail."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            inner = _message_of(value)
            return inner if key in ("non_field_errors", "detail") else f"{key}: {inner}"
    if isinstance(detail, list) and detail:
        return _message_of(detail[0])
    return str(detail)


def _plain(detail: Any) -> Any:
    if isinstance(detail, dict):
        return {str(k): _plain(v) for k, v in detail.items()}
    if isinstance(detail, list):
        return [_plain(v) for v in detail]
    return str(detail)


def _note_refusal(exc: Exception, context: dict[str, Any]) -> None:
    """Keep a trace of a refused step (casino.shared.refusals), as every door does: named by
    the view's ``refusal_action``, else by its route (``api:round-deal``: ``round_deal``;
    ``refusal_action = None`` opts out, as the token view does, whose failed logins are
    traced by the login signal), about ``refusal_ref`` formatted with the route's
    arguments, else the reference they name."""
    view = context.get("view")
    request = context.get("request")
    action = getattr(view, "refusal_action", "")
    if request is None or action is None:
        return
    from casino.shared.refusals import refusal_ref, refusal_trace_request

    kwargs = context.get("kwargs", {})
    ref = getattr(view, "refusal_ref", "").format(**kwargs) or refusal_ref(kwargs)
    # DRF's request: its user is the one its authentication found (a token's).
    refusal_trace_request(request, exc, action=action, ref=ref)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    _note_refusal(exc, context)
    if isinstance(exc, DomainError):
        return Response(error_body(exc.code, exc.message, exc.detail), status=exc.status)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a real crash: Django's handler500 answers it (and it gets logged)
    assert isinstance(exc, exceptions.APIException)
    if isinstance(exc, exceptions.ValidationError):
        fields = _plain(exc.detail)
        if not isinstance(fields, dict):
            fields = {"non_field_errors": fields}
        body = error_body("invalid", _message_of(exc.detail), {"fields": fields})
    else:
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else "error"
        detail: dict[str, Any] = {}
        if isinstance(exc, exceptions.MethodNotAllowed):
            view = context.get("view")
            detail["allowed"] = sorted(getattr(view, "allowed_methods", []))
        if isinstance(exc, exceptions.Throttled):
            # Throttled.__init__ sets wait (whole seconds); the stubs do not declare it.
            wait: int | None = getattr(exc, "wait", None)
            if wait is not None:
                detail["retry_after_seconds"] = wait
        body = error_body(code, _message_of(exc.detail), detail)
    response.data = body
    return response


def _json_error(status_code: int, code: str, message: str) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status_code)


def _wants_json(request: HttpRequest) -> bool:
    """The API answers in its error shape; people in a browser get a page in words."""
    return request.path.startswith("/api/")


def _html_error(request: HttpRequest | None, status_code: int, title: str,
                message: str) -> HttpResponse:
    from casino.shared.api.permissions import is_player

    try:
        # A player's way back is their own game; staff's the floor.
        player = is_player(getattr(request, "user", None))
        context = {"title": title, "message": message,
                   "back_url": "/play/" if player else "/",
                   "back_words": "Back to your game" if player else "Back to the floor"}
        body: str = render_to_string("console/error.html", context, request=request)
    except Exception:  # a broken request or database must not hide the error page itself
        logger.exception("rendering the %s page failed", status_code)
        body = f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{message}</p>"
    return HttpResponse(body, status=status_code)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not _wants_json(request):
        return _html_error(request, 404, "Page not found",
                           f"There is nothing at {request.path}. It may have moved, or the "
                           "link is mistyped.")
    return _json_error(
        status.HTTP_404_NOT_FOUND, "not_found", f"No such resource: {request.path}"
    )


def server_error(request: HttpRequest) -> HttpResponse:
    if not _wants_json(request):
        # No request context: the context processors may need the database that just failed.
        return _html_error(None, 500, "Something went wrong",
                           "The server could not answer. Nothing was changed by the failed "
                           "step; the failure has been logged for the technical staff.")
    return _json_error(
        status.HTTP_500_INTERNAL_SERVER_ERROR,
        "server_error",
        "The server failed to answer this request; the failure has been logged.",
    )


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not _wants_json(request):
        return _html_error(request, 400, "Bad request",
                           "The browser sent a request the server could not read.")
    return _json_error(status.HTTP_400_BAD_REQUEST, "bad_request", "The request is malformed.")


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not _wants_json(request):
        # What the person may not do, in words; never a permission's code (a guard that
        # says nothing more gets the general sentence).
        from casino.shared.permissions import ASK, GENERIC, NotAllowed

        words = exception.words if isinstance(exception, NotAllowed) else f"{GENERIC} {ASK}"
        return _html_error(request, 403, "Not allowed", words)
    return _json_error(
        status.HTTP_403_FORBIDDEN, "permission_denied", "You may not perform this action."
    )
