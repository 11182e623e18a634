"""Django's model backend, reading a user's permissions in one query rather than two.

Every API request asks whether its user holds the permission its view names
(casino.shared.api.permissions). Django's ModelBackend reads the user's own permissions and
their groups' in two queries; here one statement reads both, written as SQL: building the
ORM's query cost more than running it, on every request. What it answers is Django's: the
same set, kept on the user object for the rest of the request (``casino_permissions``),
empty for an inactive user. The API's token read brings the set with the user, in its own
statement (``permissions_column``; casino.shared.api.authentication), so an API request
asks nothing more. Only public methods are overridden; the backend's other answers
(``get_user_permissions``, ``get_group_permissions``) stay Django's.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import DEFAULT_DB_ALIAS, connections, router

_PERMISSION = Permission._meta.db_table
_CONTENT_TYPE = ContentType._meta.db_table
_NAMES = (f'SELECT ct.app_label, p.codename FROM "{_PERMISSION}" p '
          f'JOIN "{_CONTENT_TYPE}" ct ON ct.id = p.content_type_id')
_ALL = _NAMES
# Each half is a subquery on its own link table, found by the user's key: the plain
# Q(user=pk) | Q(group__user=pk) joins every permission to both link tables and filters
# after, which took about 1.7 times as long to plan and run (1.07-1.19 against 0.65-0.70 ms
# a round trip, interleaved), on every request (docs/benchmarks.md).
_OF_USER = (
    f"{_NAMES} WHERE p.id IN (SELECT permission_id FROM "
    f'"{User.user_permissions.through._meta.db_table}" WHERE user_id = %s) '
    f"OR p.id IN (SELECT gp.permission_id FROM "
    f'"{Group.permissions.through._meta.db_table}" gp '
    f'WHERE gp.group_id IN (SELECT group_id FROM "{User.groups.through._meta.db_table}" '
    "WHERE user_id = %s))")



def permissions_column(user: str) -> str:
    """An expression naming every permission of the user row ``user`` (an SQL alias), as
    ``get_all_permissions`` answers for it: a text array of "app_label.codename", empty for
    an inactive user. For a read that brings the user (the API's token read)."""
    return (f"CASE WHEN NOT {user}.is_active THEN ARRAY[]::text[] ELSE ARRAY("
            f"SELECT ct.app_label || '.' || p.codename FROM \"{_PERMISSION}\" p "
            f'JOIN "{_CONTENT_TYPE}" ct ON ct.id = p.content_type_id '
            f"WHERE {user}.is_superuser OR p.id IN (SELECT permission_id FROM "
            f'"{User.user_permissions.through._meta.db_table}" WHERE user_id = {user}.id) '
            "OR p.id IN (SELECT gp.permission_id FROM "
            f'"{Group.permissions.through._meta.db_table}" gp '
            f'WHERE gp.group_id IN (SELECT group_id FROM "{User.groups.through._meta.db_table}" '
            f"WHERE user_id = {user}.id))) END")


def permissions_keep(user_obj: Any, names: list[str]) -> None:
    """Keep the permissions a read brought with the user (``permissions_column``) as
    ``get_all_permissions`` keeps its own answer: the request asks no more."""
    user_obj.casino_permissions = set(names)


class ModelBackend(DjangoModelBackend):
    def get_all_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        cached = getattr(user_obj, "casino_permissions", None)
        if cached is None:
            alias = router.db_for_read(Permission) or DEFAULT_DB_ALIAS
            with connections[alias].cursor() as cursor:
                if user_obj.is_superuser:
                    cursor.execute(_ALL)
                else:
                    cursor.execute(_OF_USER, [user_obj.pk, user_obj.pk])
                rows = cursor.fetchall()
            cached = user_obj.casino_permissions = {
                f"{app_label}.{codename}" for app_label, codename in rows}
        return cached
