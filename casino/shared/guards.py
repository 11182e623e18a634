"""The console's one permission guard: every screen's view is wrapped in ``staff_may``.

Signed out: to the login page, back here after. Signed in without a permission the view
needs: the 403 page, saying in words what the role may not do (casino.shared.permissions),
never the permission's code. A screen may hide a button; the services refuse anyway.
``staff_user`` is who a screen's (or the admin's) service call records as ``by``.
A player's own page (the game screen) has its guard here too: ``player_only``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseBase

from casino.shared.api.permissions import is_player
from casino.shared.permissions import NotAllowed, not_allowed

if TYPE_CHECKING:
    from django.contrib.auth.models import User

View = TypeVar("View", bound=Callable[..., HttpResponseBase])


def staff_may(*permissions: str) -> Callable[[View], View]:
    """``@staff_may("rounds.run_rounds")``: signed in and holding every permission named;
    ``@staff_may()``: signed in is enough (the page itself shows each person their part)."""

    def decorate(view: View) -> View:
        @wraps(view)
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            for permission in permissions:
                if not request.user.has_perm(permission):
                    raise not_allowed(permission)
            return view(request, *args, **kwargs)

        # What the guard asks, readable on the view (functools.wraps carries it through the
        # decorators around it): tests/casino/test_console_guard.py finds every console
        # route guarded this way.
        guarded.staff_may = permissions  # type: ignore[attr-defined]
        return cast(View, guarded)

    return decorate


# The players' own sign-in page (casino/urls.py, console:play-login), where a signed-out
# player is sent from their own pages, back to the page after.
PLAYER_LOGIN_URL = "/play/login/"


def player_only(view: View) -> View:
    """The guard of a player's own page (the game screen, /play/): only a player's login
    (``is_player``: it holds ``casino.play_games``, which no staff role holds). Signed out:
    to the players' sign-in page, back here after; signed in as staff: the 403 page, in
    words. The player's operations themselves are the API's (PlayerApiView) and refuse
    anyone else whatever the page shows."""

    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), PLAYER_LOGIN_URL)
        if not is_player(request.user):
            raise NotAllowed("This is a player's own game screen: sign in with the login the "
                             "cage gave you. Staff see players' games from the console.")
        return view(request, *args, **kwargs)

    # Read by tests/casino/test_console_guard.py, as staff_may is.
    guarded.player_only = True  # type: ignore[attr-defined]
    return cast(View, guarded)


def staff_user(request: HttpRequest) -> User:
    """The signed-in staff member a service records as ``by``, in the console's views and
    the admin's; ``staff_may`` and the admin site let no anonymous request this far, and one
    that got here is refused rather than recorded. (The API's is
    ``casino.shared.api.permissions.acting_user``.)"""
    user = request.user
    if not user.is_authenticated:
        raise PermissionDenied
    return user
