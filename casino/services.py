"""Write services of the floor: staff users, players and their cage deposits and withdrawals."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from knox.models import AuthToken

from casino import roles
from casino.errors import Conflict, ValidationFailed
from casino.models import Currency, Player
from casino.selectors import player_account_ref, player_get
from ledger.models import Account, Entry
from ledger.services import account_get_or_create, entry_post


@transaction.atomic
def staff_create(*, username: str, role: str, password: str | None = None,
                 superuser: bool = False) -> tuple[User, str]:
    """Create a staff user in one role; returns the user and a fresh API token."""
    if role not in roles.ROLES:
        raise ValueError(f"unknown role {role!r}; choose one of {', '.join(roles.ROLES)}")
    User = get_user_model()
    if User.objects.filter(username=username).exists():
        raise ValueError(f"a user named {username!r} already exists")
    user = User(username=username, is_staff=True, is_superuser=superuser)
    if password:
        try:
            validate_password(password, user)
        except ValidationError as exc:
            raise ValueError(" ".join(exc.messages)) from exc
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.save()
    user.groups.add(Group.objects.get(name=role))
    _, token = token_create(user=user)
    return user, token


class TooManyTokens(Conflict):
    code = "token_limit_reached"


def token_create(*, user: User) -> tuple[AuthToken, str]:
    """Issue an API token, refused past ``API_TOKEN_LIMIT_PER_USER`` live ones.

    A refusal rather than revoking the oldest: a token nobody revoked may be a device still
    in use at a table (or a shared login), which someone should look at, not a login
    silently end. Holds the user's row locked, so concurrent logins cannot pass the cap.
    """
    limit = settings.API_TOKEN_LIMIT_PER_USER
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        now = timezone.now()
        # knox deletes an expired token only when it is next presented; these never will be.
        AuthToken.objects.filter(user=user, expiry__lte=now).delete()
        live = AuthToken.objects.filter(user=user).count()
        if limit and live >= limit:
            raise TooManyTokens(
                f"{user.get_username()} already holds {live} live API tokens, the most allowed: "
                "revoke one (POST /api/v1/auth/token/revoke with it), wait until one expires, "
                "or ask an administrator to revoke them.",
                detail={"live_tokens": live, "limit": limit})
        return AuthToken.objects.create(user)


# --- players and the cage -------------------------------------------------------------------
# A player's money is a ledger account (kind "player", ref "player:<id>"); the cage's cash is
# the counter-side of every deposit and withdrawal (one "cage" account per currency).

def player_create(*, name: str, currency: str, by: User | None) -> Player:
    """Register a player and open their account in their currency."""
    name = name.strip()
    if not name:
        raise ValidationFailed("A player needs a name.", code="invalid_name")
    if currency not in Currency.values:
        raise ValidationFailed(f"The floor does not take {currency!r}.", code="invalid_currency",
                               detail={"currency": currency, "known": list(Currency.values)})
    with transaction.atomic():
        player = Player.objects.create(name=name, currency=currency, created_by=by)
        player_account_open(player=player)
    return player


def player_account_open(*, player: Player) -> Account:
    """The player's ledger account, opened on first use (players created before the ledger)."""
    return account_get_or_create(kind=Account.Kind.PLAYER, currency=player.currency,
                                 ref=player_account_ref(player.pk), name=player.name)


def _cage_account(currency: str) -> Account:
    return account_get_or_create(kind=Account.Kind.CAGE, currency=currency,
                                 name=f"Cage ({currency})")


def player_deposit(*, player_id: int, amount: int, reference: str = "",
                   by: User | None) -> Entry:
    """Cash bought in at the cage: the cage's account pays the player's."""
    return _cage_move(player_id=player_id, amount=amount, to_player=True, kind="deposit",
                      memo=reference or "Deposit at the cage", by=by)


def player_withdraw(*, player_id: int, amount: int, reference: str = "",
                    by: User | None) -> Entry:
    """Cash paid out at the cage; never more than the player's available balance (409)."""
    return _cage_move(player_id=player_id, amount=amount, to_player=False, kind="withdrawal",
                      memo=reference or "Withdrawal at the cage", by=by)


def _cage_move(*, player_id: int, amount: int, to_player: bool, kind: str, memo: str,
               by: User | None) -> Entry:
    """One entry between the cage's account and the player's (the ledger refuses a
    withdrawal beyond the player's available funds)."""
    if amount <= 0:
        raise ValidationFailed(f"A {kind} must be positive.", code="invalid_amount",
                               detail={"amount": amount})
    player = player_get(player_id=player_id)
    with transaction.atomic():
        account = player_account_open(player=player)
        cage = _cage_account(player.currency)
        change = amount if to_player else -amount
        return entry_post(kind=kind, memo=memo,
                          lines=[(cage.pk, -change), (account.pk, change)], by=by,
                          ref=player_account_ref(player.pk))
