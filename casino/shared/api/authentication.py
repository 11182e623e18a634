"""The API's token authentication: knox's, done once per request.

Two parts of a request ask who is calling: ``IdempotencyMiddleware`` (a key is scoped to its
user) and the view. Each built its own DRF ``Request``, so knox looked the token up twice.
The outcome of a successful lookup is kept on the request for the second asker, under the
Authorization header it was made from; a failed one is not kept, so the view refuses it
itself, in the one error shape.

knox also sweeps the user's *other* tokens for expired ones on every request (one more
query each time). Only the presented token's expiry decides whether a request is let in,
and ``token_create`` deletes the user's expired tokens at each login, so here only the
presented token is checked (and deleted when expired, as knox does).
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox import auth
from knox.signals import token_expired
from rest_framework.authentication import get_authorization_header
from rest_framework.request import Request

_KEPT = "_casino_token_authentication"


class TokenAuthentication(auth.TokenAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        # The Django request under every DRF Request made of it, the middleware's and the view's.
        http_request = request._request
        header = get_authorization_header(request)
        kept = getattr(http_request, _KEPT, None)
        if kept is not None and kept[0] == header:
            return kept[1]
        outcome = super().authenticate(request)
        if outcome is not None:
            setattr(http_request, _KEPT, (header, outcome))
        return outcome

    def _cleanup_token(self, auth_token: Any) -> bool:
        """Whether the presented token has expired (then deleted, as knox deletes it)."""
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            username = auth_token.user.get_username()
            auth_token.delete()
            token_expired.send(sender=self.__class__, username=username, source="auth_token")
            return True
        return False


class TokenScheme(KnoxTokenScheme):
    """The schema's security scheme for this class: knox's own, which names knox's class."""

    target_class = "casino.shared.api.authentication.TokenAuthentication"
