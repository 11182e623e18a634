"""The project's model backend answers exactly what Django's own ModelBackend answers."""

import pytest
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.auth.models import Group, Permission, User
from django.db import connection

from casino.shared.auth_backend import ModelBackend, permissions_column

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


def _read_with_the_user(user: User) -> set[str]:
    # As the API's token read brings them: a column beside the user's row.
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT {permissions_column("u")} FROM "auth_user" u WHERE u.id = %s',
                       [user.pk])
        return set(cursor.fetchone()[0])


def test_the_permissions_read_with_the_user_are_djangos_for_every_kind_of_user():
    # given: users with permissions of their own, by groups, both, none; a superuser; an
    # inactive user who still holds some
    grouped = Group.objects.create(name="t-col-group")
    grouped.permissions.add(_perm("view_round"), _perm("view_table"))
    users = [User.objects.create_user(f"t-col-{i}") for i in range(4)]
    users[0].user_permissions.add(_perm("reverse_round"))
    users[1].groups.add(grouped)
    users[2].user_permissions.add(_perm("view_round"), _perm("void_round"))
    users[2].groups.add(grouped)
    boss = User.objects.create_superuser("t-col-super")
    gone = User.objects.create_user("t-col-gone", is_active=False)
    gone.user_permissions.add(_perm("view_table"))

    for user in [*users, boss, gone]:
        django = DjangoModelBackend().get_all_permissions(User.objects.get(pk=user.pk))
        assert _read_with_the_user(user) == django, user.username
    assert len(_read_with_the_user(users[2])) == 3
