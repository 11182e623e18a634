"""The project's model backend answers exactly what Django's own ModelBackend answers."""

import pytest
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.auth.models import Group, Permission, User

from casino.shared.auth_backend import ModelBackend

pytestmark = pytest.mark.django_db


def _perm(codename: str) -> Permission:
    return Permission.objects.get(codename=codename)


def _both(user: User) -> tuple[set[str], set[str]]:
    # Fresh user objects: each backend keeps its answer on the object it was given.
    ours = ModelBackend().get_all_permissions(User.objects.get(pk=user.pk))
    django = DjangoModelBackend().get_all_permissions(User.objects.get(pk=user.pk))
    return ours, django


def test_a_users_own_and_group_permissions_are_djangos_and_nobody_elses():
    # given: a user with one permission of their own, two groups sharing one permission,
    # and another user whose permissions must not leak in
    floor = Group.objects.create(name="t-floor")
    floor.permissions.add(_perm("view_table"), _perm("view_round"))
    cage = Group.objects.create(name="t-cage")
    cage.permissions.add(_perm("view_round"), _perm("view_player"))
    user = User.objects.create_user("t-user")
    user.user_permissions.add(_perm("reverse_round"))
    user.groups.add(floor, cage)
    other = User.objects.create_user("t-other")
    other.user_permissions.add(_perm("void_round"))
    Group.objects.create(name="t-unused").permissions.add(_perm("add_table"))

    ours, django = _both(user)

    assert ours == django == {"rounds.reverse_round", "rounds.view_table", "rounds.view_round",
                              "casino.view_player"}


@pytest.mark.parametrize("own, grouped", [(True, False), (False, True), (False, False)])
def test_permissions_by_one_way_only_or_none(own, grouped):
    user = User.objects.create_user("t-one-way")
    if own:
        user.user_permissions.add(_perm("view_table"))
    if grouped:
        group = Group.objects.create(name="t-group")
        group.permissions.add(_perm("view_round"))
        user.groups.add(group)

    ours, django = _both(user)

    assert ours == django
    assert len(ours) == int(own) + int(grouped)


def test_a_superuser_has_every_permission_and_an_inactive_user_none():
    boss = User.objects.create_superuser("t-super")
    gone = User.objects.create_user("t-gone", is_active=False)
    gone.user_permissions.add(_perm("view_table"))

    assert _both(boss)[0] == _both(boss)[1] == {
        f"{p.content_type.app_label}.{p.codename}" for p in Permission.objects.all()}
    assert _both(gone) == (set(), set())
