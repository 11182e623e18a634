"""Headers of the API and the console: the Authorization header a token is read from, and
the Cache-Control of every answer."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import add_never_cache_headers
from knox.settings import knox_settings
from rest_framework.authentication import get_authorization_header

from casino.shared.api.errors import error_body

# Answers that carry no balance, token or name, which probes and proxies may keep.
CACHEABLE = ("/api/v1/health",)


class NoStoreMiddleware:
    """``Cache-Control: no-store`` on every answer but the health check's (and the static
    files', which whitenoise answers before this middleware).

    The API's answers and the console's pages carry balances, holds, entries, receipts,
    statements, reports and tokens: no browser, proxy or shared cache may keep a copy for
    the next person at the cage's or the pit's terminal. Simpler and safer to mark them all
    than to remember it on each view. Outside the idempotency middleware, so a replayed
    answer is marked too.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path not in CACHEABLE:
            add_never_cache_headers(response)
        return response


class TokenTextMiddleware:
    """An API request whose Authorization header is not UTF-8 is refused as every bad token
    is: 401 ``authentication_failed``, in the one error shape.

    knox's ``TokenAuthentication`` decodes the token as UTF-8 unguarded (django-rest-knox
    5.1), so such a header raised out of the token's lookup: a 500, from the view and from
    the Idempotency-Key middleware's lookup alike. A knox token is hex, so a header that is
    not text is never one. Before the idempotency middleware, which authenticates first.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            # (get_authorization_header reads the request's META only, as Django's has it.)
            header = get_authorization_header(request)  # type: ignore[arg-type]
            try:
                header.decode("utf-8")
            except UnicodeDecodeError:
                response = JsonResponse(error_body("authentication_failed", "Invalid token."),
                                        status=401)
                response["WWW-Authenticate"] = knox_settings.AUTH_HEADER_PREFIX
                return response
        return self.get_response(request)
