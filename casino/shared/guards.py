"""The console's one permission guard: every screen's view is wrapped in ``staff_may``.

Signed out: to the login page, back here after. Signed in without a permission the view
needs: the 403 page, saying in words what the role may not do (casino.shared.permissions),
never the permission's code. A screen may hide a button; the services refuse anyway.
``staff_user`` is who a screen's (or the admin's) service call records as ``by``.
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


PLAYERS_ONLY = ("This is a player's own page, for the player's own login: staff see players "
                "at the cage.")


def player_only(view: View) -> View:
    """``@player_only``: a player's own page (/play/...): signed out, to the players'
    sign-in, back here after; a staff member, the 403 page in words. (A player's session
    reaches nothing else: casino.shared.player_scope.)"""

    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), login_url="console:play-login")
        if not is_player(request.user):
            raise NotAllowed(PLAYERS_ONLY)
        return view(request, *args, **kwargs)

    # Read like staff_may's by tests/casino/test_console_guard.py.
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
