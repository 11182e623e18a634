"""Django's model backend, reading a user's permissions in one query rather than two.

Every API request asks whether its user holds the permission its view names
(casino.shared.api.permissions). Django's ModelBackend reads the user's own permissions and
their groups' in two queries; the union is one. What it answers is Django's: the same set,
kept on the user object for the rest of the request, empty for an inactive user. Both
queries are compiled once per process (casino.shared.db.CompiledRows): every API request
asks, and building the query cost more than running it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.auth.models import Group, Permission, User
from django.db.models import Q, QuerySet

from casino.shared.db import CompiledRows


class ModelBackend(DjangoModelBackend):
    def get_all_permissions(self, user_obj: Any, obj: Any = None) -> set[str]:
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            rows = _ALL.all() if user_obj.is_superuser else _OF_USER.all(user_obj.pk)
            user_obj._perm_cache = {f"{app_label}.{codename}" for app_label, codename in rows}
        return user_obj._perm_cache


def _names(perms: QuerySet[Permission]) -> QuerySet[Any]:
    return perms.values_list("content_type__app_label", "codename").order_by()


def _of_user(pk: int) -> QuerySet[Any]:
    # Each half is a subquery on its own link table, found by the user's key: the plain
    # Q(user=pk) | Q(group__user=pk) joins every permission to both link tables and filters
    # after, which took about 1.7 times as long to plan and run (1.07-1.19 against
    # 0.65-0.70 ms a round trip, interleaved), on every request (docs/benchmarks.md).
    user_permissions = User.user_permissions.through.objects.filter(user=pk)
    user_groups = User.groups.through.objects.filter(user=pk)
    group_permissions = Group.permissions.through.objects.filter(
        group_id__in=user_groups.values("group_id"))
    return _names(Permission.objects.filter(
        Q(pk__in=user_permissions.values("permission_id"))
        | Q(pk__in=group_permissions.values("permission_id"))))


_ALL = CompiledRows(lambda: _names(Permission.objects.all()), params=())
_OF_USER = CompiledRows(_of_user)
