"""The API's token authentication: knox's own, looked up once per request.

Two parts of a request ask who is calling: ``IdempotencyMiddleware`` (a key is scoped to its
user) and the view. Each builds its own DRF ``Request``, so knox looked the token up twice.
The middleware keeps the outcome of a successful lookup on the Django request
(``remember``), under the Authorization header it was made from; the view's DRF ``Request``
reads it back (DRF's Request hands every attribute it lacks to the Django request under it).
A failed lookup is not kept, so the view refuses it itself, in the one error shape.
Everything else is knox's: its lookup, its digest comparison, its expiry and refresh.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox import auth
from rest_framework.authentication import get_authorization_header
from rest_framework.request import Request

KEPT = "casino_token_authentication"


class TokenAuthentication(auth.TokenAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        kept = getattr(request, KEPT, None)
        header = get_authorization_header(request)
        if kept is not None and header and kept[0] == header:
            return kept[1]
        return super().authenticate(request)


def remember(http_request: HttpRequest, outcome: tuple[Any, Any]) -> None:
    """Keep a successful lookup on the Django request, for the view's authentication."""
    # (get_authorization_header reads the request's META only, which both kinds have.)
    header = get_authorization_header(http_request)  # type: ignore[arg-type]
    setattr(http_request, KEPT, (header, outcome))


class TokenScheme(KnoxTokenScheme):
    """The schema's security scheme for this class: knox's own, which names knox's class."""

    target_class = "casino.shared.api.authentication.TokenAuthentication"
