"""Response headers of the API and the console."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers

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
