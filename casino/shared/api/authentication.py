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

The lookup by the token's key is compiled once per process (casino.shared.db.Compiled):
every API request makes it, and building it cost more than the query.
"""

from __future__ import annotations

import binascii
from hmac import compare_digest
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox import auth
from knox.crypto import hash_token
from knox.models import get_token_model
from knox.settings import CONSTANTS, knox_settings
from knox.signals import token_expired
from rest_framework import exceptions
from rest_framework.authentication import get_authorization_header
from rest_framework.request import Request

from casino.shared.db import Compiled

_KEPT = "_casino_token_authentication"
_BY_KEY = Compiled(lambda key: get_token_model().objects.filter(token_key=key)
                   .select_related("user"), params=(str,))


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

    def authenticate_credentials(self, token: bytes) -> tuple[Any, Any]:
        """knox's own steps (each token under the key, expired ones deleted, the digest
        compared in constant time), the tokens read by the compiled query."""
        msg = _("Invalid token.")
        text = token.decode("utf-8")
        for auth_token in _BY_KEY.all(text[:CONSTANTS.TOKEN_KEY_LENGTH]):
            if self._cleanup_token(auth_token):
                continue
            try:
                digest = hash_token(text)
            except (TypeError, binascii.Error):
                raise exceptions.AuthenticationFailed(msg) from None
            if compare_digest(digest, auth_token.digest):
                if knox_settings.AUTO_REFRESH and auth_token.expiry:
                    self.renew_token(auth_token)
                return self.validate_user(auth_token)
        raise exceptions.AuthenticationFailed(msg)

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
