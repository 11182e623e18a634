"""Health and authentication endpoints: the only ones open without a token."""

from __future__ import annotations

from typing import Any, NoReturn

from django.conf import settings
from django.contrib.auth import authenticate
from django.db import DatabaseError, connections
from django.http import HttpRequest
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import examples as ex
from casino.api.serializers import Health, HealthDown, LoginInput, TokenOutput
from casino.services import token_create
from casino.shared.api.parse import parse
from casino.shared.api.serializers import ErrorOutput
from casino.shared.api.views import ApiView
from casino.shared.auth import LoginThrottle, log_login_throttled
from casino.shared.errors import DomainError
from casino.version import VERSION


def database_status(alias: str) -> str:
    """'ok', or the reason the database cannot answer a trivial query."""
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        return f"error: {type(exc).__name__}"
    return "ok"


class HealthView(ApiView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(summary="Service health", responses={200: Health, 503: HealthDown})
    def get(self, request: Request) -> Response:
        database = database_status(getattr(settings, "HEALTH_DATABASE_ALIAS", "default"))
        healthy = database == "ok"
        return Response(
            {"status": "ok" if healthy else "unavailable", "database": database,
             "version": VERSION},
            status=status.HTTP_200_OK if healthy else status.HTTP_503_SERVICE_UNAVAILABLE,
        )


class InvalidCredentials(DomainError):
    code = "invalid_credentials"
    status = 401


class TokenView(ApiView):
    """Exchange a username and password for an API token (stored hashed).

    Failed logins count towards the lockout (django-axes, casino.shared.auth): ``authenticate()``
    gets the request so axes sees the attempt, and past the limit axes' middleware answers
    429 ``locked_out`` instead, even for the right password. Every attempt also counts
    towards the per-address throttle (429 ``throttled``)."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [LoginThrottle]
    throttle_scope = "login"
    # A failed login is traced once, by the login signal (casino.shared.refusals).
    refusal_action = None

    @extend_schema(
        summary="Obtain an API token", request=LoginInput, examples=ex.TOKEN,
        responses={
            200: TokenOutput,
            401: OpenApiResponse(ErrorOutput, description="Wrong username or password "
                                 "(`invalid_credentials`); the attempt counts towards the "
                                 "lockout."),
            409: OpenApiResponse(ErrorOutput, description="The user already holds "
                                 "`API_TOKEN_LIMIT_PER_USER` live tokens "
                                 "(`token_limit_reached`)."),
            429: OpenApiResponse(ErrorOutput, description="Locked out after too many failed "
                                 "logins (`locked_out`), or too many attempts from this "
                                 "address (`throttled`); `Retry-After` says how long."),
        },
    )
    def post(self, request: Request) -> Response:
        data = parse(LoginInput, request.data)
        user = authenticate(self.http_request, username=data["username"],
                            password=data["password"])
        if user is None or not user.is_active:
            raise InvalidCredentials("Wrong username or password.")
        instance, token = token_create(user=user)
        return Response(TokenOutput({"token": token, "expiry": instance.expiry}).data)

    def initialize_request(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Request:
        # authenticate() gets the Django request: axes' middleware reads what axes notes on
        # it (a lockout), and DRF's Request would keep those notes to itself.
        self.http_request = request
        return super().initialize_request(request, *args, **kwargs)

    def throttled(self, request: Request, wait: float) -> NoReturn:
        log_login_throttled(request)
        super().throttled(request, wait)

    def get_authenticate_header(self, request: Request) -> str:
        return "Token"


class RevokeTokenView(ApiView):
    """Revoke the token this request is authenticated with (a player's too)."""

    permission_classes = [IsAuthenticated]
    for_players = True

    @extend_schema(summary="Revoke the current API token", request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        request.auth.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
