import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from casino import roles

pytestmark = pytest.mark.django_db


def perms_of(group_name):
    group = Group.objects.get(name=group_name)
    return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.all()}


@pytest.mark.parametrize("role", roles.ROLES)
def test_each_role_exists_as_a_group_with_exactly_its_intended_permissions(role):
    assert perms_of(role) == roles.intended_permissions(role)
    assert perms_of(role), f"{role} holds no permission at all"


def test_a_dealer_runs_rounds_but_cannot_configure_tables():
    dealer = perms_of("dealer")
    assert "rounds.run_rounds" in dealer
    assert "rounds.change_table" not in dealer


def test_a_pit_boss_can_do_everything_a_dealer_can_plus_configure_tables():
    assert perms_of("dealer") < perms_of("pit_boss")
    assert "rounds.change_table" in perms_of("pit_boss")


def test_the_cage_moves_player_funds_and_nothing_at_the_tables():
    cage = perms_of("cage")
    assert {"casino.deposit_funds", "casino.withdraw_funds"} <= cage
    assert "rounds.run_rounds" not in cage


def test_an_auditor_reads_everything_and_changes_nothing():
    auditor = perms_of("auditor")
    # Besides reading, an auditor records that a cash transaction report went to the
    # authority (casino.cash): a mark on the report, no money, no play.
    codenames = {p.split(".")[1] for p in auditor} - {"file_cashreport"}
    assert all(c.startswith("view_") or c.startswith("run_report") for c in codenames)
    assert {"rounds.view_table", "casino.view_player"} <= auditor


def test_the_reports_records_are_read_by_auditors_and_a_pit_boss_closes_the_day():
    # the reports app's own models (they were rounds' until they moved): read as before
    assert {"reports.view_report", "reports.view_closedday",
            "reports.view_closedtableday"} <= perms_of("auditor")
    assert "reports.close_gaming_day" in perms_of("pit_boss")
    assert not {p for p in perms_of("pit_boss") | perms_of("auditor")
                if p.endswith(("_gaming_day", "_report", "_closedday"))
                and p.startswith("rounds.")}


def test_create_staff_makes_a_user_in_the_role_and_prints_a_token(capsys):
    call_command("create_staff", "carla", role="cage", password="a-long-cage-pass-9")

    out = capsys.readouterr().out
    assert "API token" in out
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username="carla")
    assert user.is_staff and user.check_password("a-long-cage-pass-9")
    assert list(user.groups.values_list("name", flat=True)) == ["cage"]
