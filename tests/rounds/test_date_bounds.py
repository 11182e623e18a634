"""Dates a gaming day's arithmetic cannot hold are refused with 400 at the door, never 500."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01"])
def test_a_table_report_of_a_day_beyond_the_calendar_is_a_400(pit_boss_client, table, day):
    answer = pit_boss_client.get(f"/api/v1/tables/{table.pk}/report", {"gaming_day": day})

    assert answer.status_code == 400, answer.content
    assert "gaming_day" in answer.json()["error"]["detail"]["fields"]


def test_rounds_of_a_day_beyond_the_calendar_and_a_report_asked_for_it_are_400s(
        pit_boss_client, table):
    rounds = pit_boss_client.get(f"/api/v1/tables/{table.pk}/rounds",
                                 {"gaming_day": "9999-12-31"})
    asked = pit_boss_client.post("/api/v1/reports", {"kind": "table_day", "format": "csv",
                                                     "table": str(table.pk),
                                                     "gaming_day": "9999-12-31"},
                                 format="json")

    assert rounds.status_code == 400, rounds.content
    assert asked.status_code == 400, asked.content


def test_the_last_day_the_calendar_holds_is_still_answered(pit_boss_client, table):
    answer = pit_boss_client.get(f"/api/v1/tables/{table.pk}/report",
                                 {"gaming_day": "9999-12-30"})

    assert answer.status_code == 200, answer.content


# --- a moment (the trial balance's as_of) is held to the same gaming days ---------------------

BEYOND = ["9999-12-31T23:59:59+00:00", "9999-12-31T05:00:00-05:00",
          "0001-01-01T00:00:00+01:00", "0001-01-01T23:00:00+00:00"]


@pytest.mark.parametrize("as_of", BEYOND)
def test_a_trial_balance_as_of_a_moment_beyond_the_calendar_is_a_400(auditor_client, as_of):
    from reports.models import Report

    asked = auditor_client.post("/api/v1/reports", {"kind": "trial_balance", "format": "json",
                                                    "as_of": as_of}, format="json")

    assert asked.status_code == 400, asked.content
    error = asked.json()["error"]
    assert error["code"] == "invalid"
    assert error["detail"]["fields"]["as_of"] == [
        "a time within gaming days 0001-01-02 to 9999-12-30"]
    assert not Report.objects.exists()


def test_the_last_moment_of_the_last_gaming_day_is_still_made(
        auditor_client, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MEDIA_ROOT = tmp_path
    with django_capture_on_commit_callbacks(execute=True):
        asked = auditor_client.post("/api/v1/reports", {
            "kind": "trial_balance", "format": "json",
            # gaming day 9999-12-30 ends at 06:00 on the 31st in Amsterdam (05:00 UTC)
            "as_of": "9999-12-31T04:59:59+00:00"}, format="json")

    assert asked.status_code == 202, asked.content
    made = auditor_client.get(f"/api/v1/reports/{asked.json()['id']}").json()
    assert made["status"] == "done", made["error"]


def test_the_console_says_a_moment_beyond_the_calendar_is_refused_in_words(client):
    from casino.services import staff_create
    from reports.models import Report

    auditor, _ = staff_create(username="audra", role="auditor")
    client.force_login(auditor)

    page = client.post("/reports/ask/", {"kind": "trial_balance", "format": "json",
                                         "as_of": "9999-12-31T23:59"}, follow=True)

    assert page.status_code == 200
    assert ("As of (casino time; leave empty for now): a time within gaming days "
            "0001-01-02 to 9999-12-30") in page.content.decode()
    assert not Report.objects.exists()
    # a row asked before the bound still lists, in plain words
    Report.objects.create(kind="trial_balance", format="json", parameters={
        "as_of": BEYOND[0]}, requested_by=auditor)
    assert f"as of {BEYOND[0]}" in client.get("/reports/").content.decode()


def test_every_kind_taking_a_moment_holds_it_to_the_gaming_days_and_reads_old_rows(
        auditor_client):
    from casino.shared.errors import ValidationFailed
    from reports.files.kinds import KINDS, parameters_in_words, report_parameters
    from reports.models import Report

    with_moment = [kind for kind, spec in KINDS.items() if "as_of" in spec.parameters]
    assert with_moment == ["trial_balance"]
    for kind in with_moment:
        for as_of in BEYOND:
            with pytest.raises(ValidationFailed):
                report_parameters(kind=kind, raw={"as_of": as_of})
        # a row asked before the bound, as stored, is said in plain words, not a 500
        said = parameters_in_words(kind, {"as_of": BEYOND[0]})
        assert said == f"as of {BEYOND[0]}"
    Report.objects.create(kind="trial_balance", format="json", parameters={
        "as_of": BEYOND[0]}, requested_by=auditor_client.user)
    assert auditor_client.get("/api/v1/reports").status_code == 200
