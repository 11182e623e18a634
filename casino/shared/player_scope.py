"""A player's session reaches only the player's own pages: every other screen refuses it.

A player's login (casino.shared.api.permissions.is_player) signs in at /play/login/ and
plays and reads their account under /play/. The console's and the admin's pages each have
their own guard (staff_may, the admin site's is_staff), but a guard that lets "anyone
signed in" through (the floor page shows each person their part) would let a player in:
one rule here, for every page present and future, rather than one per view. The API is
left to its one view class (casino.shared.api.views.ApiView refuses a player every
operation not ``for_players``), which answers in the API's error shape; static files carry
nothing of anyone's.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from casino.shared.api.errors import permission_denied
from casino.shared.api.permissions import is_player
from casino.shared.permissions import NotAllowed

# Where a player's session may go: their own pages, the API (which decides per operation),
# static files.
PLAYER_PATHS = ("/play/", "/api/", "/static/")
WORDS = ("This page is for the casino's staff. Your account and your games are at /play/.")


class PlayerScopeMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(PLAYER_PATHS) and is_player(request.user):
            return permission_denied(request, NotAllowed(WORDS))
        return self.get_response(request)
