"""API permissions by Django permission codename, so roles stay defined in one place.

Each staff role is a Django group (casino.roles); a view names the permission an operation
needs, never a role, so granting a role a new power is a change to casino.roles alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# What a player's own login holds, and no staff role: playing their own self-service games.
# A user holding it is a player (is_player), whose token and session reach only the player's
# own things: every other operation refuses them (casino.shared.api.views.ApiView.initial).
PLAY_GAMES = "casino.play_games"


def is_player(user: Any) -> bool:
    """Whether the user is a player's own login. Staff users are ``is_staff`` and never
    players (read without a query); a superuser holds every permission and is not one."""
    return bool(user is not None and user.is_authenticated and not user.is_staff
                and not user.is_superuser and user.has_perm(PLAY_GAMES))


class PlayerOnly(BasePermission):
    """A player's own operation (/api/v1/me...): only a player's login, reaching their own
    things; staff see players through the cage's operations."""

    message = ("This is a player's own page: sign in with the login the cage gave you. "
               "Staff see players through the cage's operations.")

    def has_permission(self, request: Request, view: Any) -> bool:
        return is_player(request.user)


def requires(*perms: str, **by_method: str) -> type[BasePermission]:
    """A permission class that lets through authenticated users holding every perm.

    ``requires("rounds.view_table", POST="rounds.add_table")``: a method named in
    ``by_method`` needs that permission instead, so one view serves readers and writers.
    """

    def needed(method: str | None) -> tuple[str, ...]:
        return (by_method[method],) if method in by_method else perms

    class Requires(BasePermission):
        message = f"This action needs the permission(s): {', '.join(perms)}."

        def has_permission(self, request: Request, view: Any) -> bool:
            user = request.user
            wanted = needed(request.method)
            self.message = f"This action needs the permission(s): {', '.join(wanted)}."
            return bool(user and user.is_authenticated and user.has_perms(wanted))

    names = [*perms, *(f"{m}_{p}" for m, p in sorted(by_method.items()))]
    Requires.__name__ = "Requires_" + "_".join(p.replace(".", "_") for p in names)
    return Requires


def acting_user(request: Request) -> User:
    """The staff member a service records as ``by``; the views calling it require a login,
    so an anonymous request reaching one is refused rather than recorded."""
    user = request.user
    if not user.is_authenticated:
        raise NotAuthenticated()
    return user
