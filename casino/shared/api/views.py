"""The API's one view class: what every operation checks before it reads a request.

DRF's ``APIView`` authenticates, checks the view's permission classes and throttles in
``initial()``, before the handler reads the body: a caller without the right is refused
(401/403) whatever they send. ``ApiView`` adds one check after those: a query parameter the
operation does not take is refused (400 ``invalid``, naming it) instead of being ignored,
so a client that misspells a filter (``?gaming-day=``) learns it rather than reading an
unfiltered answer it takes for a filtered one.

An operation takes the fields of its ``query`` input class (the class it parses
``request.query_params`` with, casino.shared.api.parse), ``page`` and ``page_size`` when it
answers a page (``answers_pages``), and DRF's ``format`` (the renderer override every DRF view
honours). ``tests/test_api_query.py`` checks that what each operation takes is what the
OpenAPI schema documents.
"""

from __future__ import annotations

from typing import Any, ClassVar

from knox.auth import TokenAuthentication
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from casino.shared.api.parse import parse
from casino.shared.api.permissions import PlayerOnly, acting_user, is_player

PAGE_QUERY = ("page", "page_size")


class ApiView(APIView):
    # The input class of the GET's query string; None: the operation takes no parameter.
    query: ClassVar[type[serializers.Serializer] | None] = None
    # The GET answers a page of rows (casino.shared.api.pagination.page_response).
    answers_pages: ClassVar[bool] = False
    # Whether a player's own login may call it (PlayerApiView, revoking one's token); every
    # other operation refuses a player, whatever its permission classes let through.
    for_players: ClassVar[bool] = False

    @classmethod
    def query_names(cls, method: str) -> frozenset[str]:
        """The query parameters ``method`` takes (only GETs take any but ``format``)."""
        names: set[str] = {api_settings.URL_FORMAT_OVERRIDE or "format"}
        if method == "GET":
            if cls.query is not None:
                names |= set(cls.query().fields)
            if cls.answers_pages:
                names |= set(PAGE_QUERY)
        return frozenset(names)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # who is asking, and may they, first
        if not self.for_players and is_player(request.user):
            raise PermissionDenied("A player's login reaches only the player's own account, "
                                   "limits and games (/api/v1/me).")
        unknown = sorted(set(request.query_params) - self.query_names(request.method or ""))
        if unknown:
            raise ValidationError({name: ["this operation takes no such query parameter"]
                                   for name in unknown})

    def query_values(self, request: Request, **context: Any) -> dict[str, Any]:
        """The query string read by the operation's ``query`` class."""
        assert self.query is not None, f"{type(self).__name__} takes no query parameters"
        return parse(self.query, request.query_params, **context)


class PlayerApiView(ApiView):
    """An operation of the player's own (/api/v1/me...): the player's token, or the session
    of the player's game screen (/play/, which sends Django's CSRF token with every write)."""

    for_players = True
    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [PlayerOnly]

    def player_id(self, request: Request) -> int:
        """The signed-in player's id (PlayerOnly let only a player's login through)."""
        return int(acting_user(request).player.pk)
