"""Write services of the floor: staff users (players and tables arrive with their apps)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser, Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from knox.models import AuthToken

from casino import roles


@transaction.atomic
def staff_create(*, username: str, role: str, password: str | None = None,
                 superuser: bool = False) -> tuple[AbstractUser, str]:
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
    _, token = AuthToken.objects.create(user)
    return user, token
