"""Report, ClosedDay and ClosedTableDay moved from rounds to reports in Django's state only
(reports/migrations/0001 and 0002, rounds' reports_move_out): the tables keep their names
and rows, and the permissions follow their content types, so the groups and users holding
them keep what they had, whichever way the migrations run."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from reports.models import ClosedDay, ClosedTableDay, Report

ROUNDS_BEFORE = ("rounds", "0019_figures_on_parties")
BEFORE: list[tuple[str, str | None]] = [ROUNDS_BEFORE, ("reports", None)]
MOVED = ("report", "closedday", "closedtableday")


def _back_before_the_move(executor: MigrationExecutor) -> Any:
    """The database migrated back to before the move; the models as they were then."""
    executor.migrate(BEFORE)
    executor.loader.build_graph()
    ContentType.objects.clear_cache()
    return executor.loader.project_state([ROUNDS_BEFORE]).apps


def _forward(executor: MigrationExecutor) -> None:
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    ContentType.objects.clear_cache()


def _labels(permissions: Any) -> list[str]:
    return sorted(f"{p.content_type.app_label}.{p.codename}" for p in permissions)


def _relation_exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
        return bool(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_the_move_keeps_the_rows_and_everyone_keeps_their_permissions(executor):
    # given a closed day, a report and the grants made before the models moved
    old = _back_before_the_move(executor)
    with pytest.raises(LookupError):
        old.get_model("reports", "ClosedDay")
    boss = old.get_model("auth", "User").objects.create(username="night-boss")
    day = old.get_model("rounds", "ClosedDay").objects.create(
        gaming_day=date(2026, 11, 30), closed_at=timezone.now(), closed_by=boss,
        chain_seq=7, chain_hash="a" * 64)
    old.get_model("rounds", "ClosedTableDay").objects.create(
        closed_day=day, table_name="Total", currency="EUR", rounds_settled=2,
        rounds_house_banked=2, rounds_player_banked=0, rounds_co_banked=0,
        rounds_reversed=0, rounds_voided=0, handle=4_000, house_stakes=0,
        house_win_house_banked=1_000, house_win_house_stakes=0, commission_players=50,
        commission_bankers=0)
    report = old.get_model("rounds", "Report").objects.create(
        kind="floor_day", format="csv", parameters={"gaming_day": "2026-11-30"},
        requested_by=boss)
    OldPermission = old.get_model("auth", "Permission")
    close = OldPermission.objects.get(content_type__app_label="rounds",
                                      codename="close_gaming_day")
    view_report = OldPermission.objects.get(content_type__app_label="rounds",
                                            codename="view_report")
    group = old.get_model("auth", "Group").objects.create(name="night pit bosses")
    group.permissions.add(close)
    boss.groups.add(group)
    boss.user_permissions.add(view_report)

    # when the move runs
    _forward(executor)

    # then the rows are the reports app's, in the tables they always were in
    assert _relation_exists("rounds_closedday") and not _relation_exists("reports_closedday")
    moved = ClosedDay.objects.get(pk=day.pk)
    assert (moved.gaming_day, moved.chain_seq, moved.closed_by_id) == (
        date(2026, 11, 30), 7, boss.pk)
    assert ClosedTableDay.objects.get(closed_day=moved).handle == 4_000
    assert Report.objects.get(pk=report.pk).kind == "floor_day"
    # ...the permissions are the same rows, now the reports app's
    assert _labels(Group.objects.get(pk=group.pk).permissions.all()) == [
        "reports.close_gaming_day"]
    assert Permission.objects.get(codename="close_gaming_day").pk == close.pk
    user = User.objects.get(pk=boss.pk)
    assert _labels(user.user_permissions.all()) == ["reports.view_report"]
    assert user.has_perm("reports.close_gaming_day") and user.has_perm("reports.view_report")
    assert not user.has_perm("rounds.close_gaming_day")
    assert not ContentType.objects.filter(app_label="rounds", model__in=MOVED).exists()
    assert ContentType.objects.filter(app_label="reports", model__in=MOVED).count() == 3


@pytest.mark.django_db(transaction=True)
def test_the_move_undone_gives_the_permissions_back_to_rounds(executor):
    # given a group that may close a gaming day, granted after the move
    group = Group.objects.create(name="closers")
    close = Permission.objects.get(content_type__app_label="reports",
                                   codename="close_gaming_day")
    group.permissions.add(close)

    # when the move is undone
    _back_before_the_move(executor)

    # then the same permission is rounds' again, and the group still holds it
    assert _labels(Group.objects.get(pk=group.pk).permissions.all()) == [
        "rounds.close_gaming_day"]
    assert Permission.objects.get(codename="close_gaming_day").pk == close.pk
    assert not ContentType.objects.filter(app_label="reports", model__in=MOVED).exists()

    # and done again, it is the reports app's once more
    _forward(executor)
    assert _labels(Group.objects.get(pk=group.pk).permissions.all()) == [
        "reports.close_gaming_day"]


@pytest.mark.django_db(transaction=True)
def test_content_types_made_in_between_are_merged_into_the_old_ones_with_their_grants(
        executor):
    # given the rounds' content types of before the move, and reports' made afresh beside
    # them by a post_migrate run part of the way (migrate reports 0001), each granted
    old = _back_before_the_move(executor)
    OldPermission = old.get_model("auth", "Permission")
    OldGroup = old.get_model("auth", "Group")
    close = OldPermission.objects.get(content_type__app_label="rounds",
                                      codename="close_gaming_day")
    fresh_type = old.get_model("contenttypes", "ContentType").objects.create(
        app_label="reports", model="closedday")
    fresh = OldPermission.objects.create(content_type=fresh_type, codename="close_gaming_day",
                                         name="Can close a gaming day")
    extra = OldPermission.objects.create(content_type=fresh_type, codename="reopen_day",
                                         name="A permission only the fresh type had")
    before = OldGroup.objects.create(name="granted before")
    before.permissions.add(close)
    between = OldGroup.objects.create(name="granted in between")
    between.permissions.add(fresh, extra)

    # when the move runs
    _forward(executor)

    # then one content type is left, the old one, and both groups hold its permission
    kept = ContentType.objects.get(app_label="reports", model="closedday")
    assert kept.pk != fresh_type.pk
    assert not Permission.objects.filter(pk=fresh.pk).exists()
    assert _labels(Group.objects.get(pk=before.pk).permissions.all()) == [
        "reports.close_gaming_day"]
    assert _labels(Group.objects.get(pk=between.pk).permissions.all()) == [
        "reports.close_gaming_day", "reports.reopen_day"]
    assert Permission.objects.get(codename="close_gaming_day").pk == close.pk
    assert Permission.objects.get(codename="reopen_day").content_type == kept
