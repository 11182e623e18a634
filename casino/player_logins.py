"""A player's own login, which the cage gives: the username and password a player signs in
with (a token at POST /api/v1/auth/token, or the game screen's sign-in at /play/login/).

The login is a Django user that is not staff, in the ``player`` group alone (casino.roles),
so it holds ``casino.play_games`` and nothing else: the API refuses it every operation but
the player's own (casino.shared.api.views.ApiView), the console and the admin refuse its
session (casino.shared.player_scope). A proposition player is a business and plays at no
self-service table: it gets none.

Giving a login to a player who has one resets its password: the cage does this when a
player forgot theirs. Everything the old password let in ends with it: the player's API
tokens are deleted, and their sessions end because Django ties a session to the password
it was opened with (the session's auth hash changes with the password's salted hash).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from knox.models import AuthToken

from casino import roles
from casino.models import Player
from casino.shared.errors import Conflict, NotFound, ValidationFailed
from casino.shared.permissions import permission_refused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

GIVE_LOGIN = "casino.change_player"
# Where a player's session keeps when its sign-in at /play/login/ began (ISO 8601): the
# reminder of time played counts from it (session_started_at).
SESSION_STARTED = "play_started_at"
# Every so often a player is reminded how long they have played (responsible gambling's
# "reality check"): their pages show it, counted from the sign-in.
REMINDER_EVERY_MINUTES = 30


@dataclass(frozen=True)
class PlayerLogin:
    """What player_login_give did: the player, their login, and whether it is new (False:
    the password of the login they had was reset)."""

    player: Player
    user: User
    created: bool


def player_login_give(*, player_id: int, username: str, password: str,
                      by: User | None) -> PlayerLogin:
    """Give a player their own login, or reset its password (the same username).

    Refused: without ``casino.change_player`` (the cage's, checked here whatever door
    calls); a proposition player (409 ``proposition_no_login``); a username someone else
    has (409 ``username_taken``); another username than the player's login's (409
    ``username_mismatch``); a password Django's validators refuse (400
    ``invalid_password``). Holds the player's row locked, so two clerks giving one player
    a login queue and the second resets the first's password."""
    if by is None or not by.has_perm(GIVE_LOGIN):
        raise permission_refused(GIVE_LOGIN, "Your role may not give a player a login.")
    username = username.strip()
    if not username:
        raise ValidationFailed("A login needs a username.", code="invalid",
                               detail={"fields": {"username": ["required"]}})
    User = get_user_model()
    with transaction.atomic():
        player = (Player.objects.select_for_update(of=("self",)).select_related("user")
                  .filter(pk=player_id).first())
        if player is None:
            raise NotFound(f"There is no player #{player_id}.", detail={"player_id": player_id})
        if player.kind == Player.Kind.PROPOSITION:
            raise Conflict(f"{player.name} is a proposition player, a business: it plays at "
                           "no self-service table and gets no login.",
                           code="proposition_no_login", detail={"player_id": player.pk})
        user = player.user
        if user is not None and user.get_username() != username:
            raise Conflict(f"{player.name}'s login is {user.get_username()}: a new password "
                           "is set for that username, not another.",
                           code="username_mismatch",
                           detail={"player_id": player.pk, "username": user.get_username()})
        if user is None:
            if User.objects.filter(username__iexact=username).exists():
                raise Conflict(f"The username {username} is taken: choose another.",
                               code="username_taken", detail={"username": username})
            user = User(username=username, is_staff=False, is_superuser=False,
                        first_name=player.name[:150])
        _password_check(password, user)
        created = user.pk is None
        user.set_password(password)
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:
            # Another clerk gave the same username to someone else a moment ago.
            raise Conflict(f"The username {username} is taken: choose another.",
                           code="username_taken", detail={"username": username}) from None
        if created:
            user.groups.add(Group.objects.get(name=roles.PLAYER))
            player.user = user
            player.save(update_fields=["user"])
        else:
            # The sessions end with the old password (module docstring); the tokens do not.
            AuthToken.objects.filter(user=user).delete()
    return PlayerLogin(player=player, user=user, created=created)


def _password_check(password: str, user: User) -> None:
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise ValidationFailed(" ".join(exc.messages), code="invalid_password",
                               detail={"fields": {"password": exc.messages}}) from None


def session_started_at(request: Any) -> datetime:
    """When this sign-in of a player's began: their API token's creation (DRF's
    ``request.auth``, knox's AuthToken), or the session's sign-in at /play/login/ (stored
    there); a session opened another way counts from the user's last login."""
    created = getattr(getattr(request, "auth", None), "created", None)
    if isinstance(created, datetime):
        return created
    session = getattr(request, "session", None)
    stored = session.get(SESSION_STARTED) if session is not None else None
    if stored:
        return datetime.fromisoformat(stored)
    return request.user.last_login or timezone.now()
