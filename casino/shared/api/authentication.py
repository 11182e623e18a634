"""The API's token authentication: knox's, its usual answer read in one statement.

Two parts of a request ask who is calling: ``IdempotencyMiddleware`` (a key is scoped to its
user) and the view. Each builds its own DRF ``Request``, so knox looked the token up twice.
The middleware keeps the outcome of a successful lookup on the Django request
(``remember``), under the Authorization header it was made from; the view's DRF ``Request``
reads it back (DRF's Request hands every attribute it lacks to the Django request under it).
A failed lookup is not kept, so the view refuses it itself, in the one error shape.

Every API request presents a token, and nearly every one presents a live one. knox's own
``authenticate_credentials`` answers that with two ORM queries: the tokens under the key's
first characters with their user, then every token of that user, swept for expired ones
(about 1,900 Python calls and one statement more per settle request than what follows;
docs/benchmarks.md). So the usual case is read here in one prepared statement: the token by
its digest (knox's own ``hash_token``; the digest is the table's primary key, and a match
means the very token, as knox's digest comparison does), with its user. A live token found
so is accepted through knox's ``validate_user``, which refuses an inactive user. Everything
else goes to knox's method unchanged: an unknown token, an expired one (knox deletes it,
sends ``token_expired`` and refuses it), and every token while knox's AUTO_REFRESH is on
(knox renews it). The user's other expired tokens are swept at each login
(``casino.services.token_create``) rather than at each request. A test checks that both
ways accept and refuse the same tokens (tests/casino/test_token_authentication.py).
"""

from __future__ import annotations

import binascii
import functools
from typing import Any

from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from knox import auth
from knox.crypto import hash_token
from knox.models import get_token_model
from knox.settings import CONSTANTS, knox_settings
from rest_framework import exceptions
from rest_framework.authentication import get_authorization_header
from rest_framework.request import Request

from casino.shared.auth_backend import permissions_column, permissions_keep
from casino.shared.db import SqlRead, columns

KEPT = "casino_token_authentication"


@functools.cache
def token_by_digest() -> SqlRead[Any]:
    """The token whose digest is the parameter, with its user and the user's permissions
    (casino.shared.auth_backend: the request's permission check asks nothing more), built
    once, with the models loaded."""
    token_model, user_model = get_token_model(), get_user_model()
    user_field = token_model._meta.get_field("user")
    digest_field = token_model._meta.get_field("digest")
    return SqlRead(
        token_model,
        f'SELECT {columns(token_model, "t")}, {columns(user_model, "u")}'  # noqa: S608
        f', {permissions_column("u")}'
        f' FROM "{token_model._meta.db_table}" t'
        f' JOIN "{user_model._meta.db_table}" u'
        f' ON u."{user_model._meta.pk.column}" = t."{user_field.column}"'
        f' WHERE t."{digest_field.column}" = %s',
        related=[("user", user_model)], extra=["permission_names"],
    )


class TokenAuthentication(auth.TokenAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        kept = getattr(request, KEPT, None)
        header = get_authorization_header(request)
        if kept is not None and header and kept[0] == header:
            return kept[1]
        return super().authenticate(request)

    def authenticate_credentials(self, token: bytes) -> tuple[Any, Any]:
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            # Not text at all (knox would let the UnicodeDecodeError out: a 500).
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        if not knox_settings.AUTO_REFRESH:
            try:
                digest = hash_token(text)
            except (TypeError, binascii.Error):
                digest = None
            found = token_by_digest().first(digest) if digest is not None else None
            if (found is not None and found.token_key == text[:CONSTANTS.TOKEN_KEY_LENGTH]
                    and (found.expiry is None or not found.expiry < timezone.now())):
                permissions_keep(found.user, found.permission_names)
                return self.validate_user(found)
        return super().authenticate_credentials(token)


def remember(http_request: HttpRequest, outcome: tuple[Any, Any]) -> None:
    """Keep a successful lookup on the Django request, for the view's authentication."""
    # (get_authorization_header reads the request's META only, which both kinds have.)
    header = get_authorization_header(http_request)  # type: ignore[arg-type]
    setattr(http_request, KEPT, (header, outcome))


class TokenScheme(KnoxTokenScheme):
    """The schema's security scheme for this class: knox's own, which names knox's class."""

    target_class = "casino.shared.api.authentication.TokenAuthentication"
