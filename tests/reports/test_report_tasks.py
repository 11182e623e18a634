"""The report task's names: the reports app's own, and the one it had under rounds, which
a message sent by an older version still carries."""

from __future__ import annotations

import pytest

from casino import roles
from casino.celery import app
from casino.services import staff_create
from reports.models import Report
from reports.tasks import report_make_task

pytestmark = pytest.mark.django_db


def test_a_report_is_queued_under_the_reports_apps_name():
    assert report_make_task.name == "reports.report_make"
    assert app.tasks["reports.report_make"].run is report_make_task.run


@pytest.mark.parametrize("name", ["reports.report_make", "rounds.report_make"])
def test_a_message_under_either_name_makes_the_report(name, dutch_seed, settings, tmp_path):
    # given a report asked for and queued, as a worker finds it in the broker
    settings.MEDIA_ROOT = tmp_path
    auditor, _ = staff_create(username="audra", role=roles.AUDITOR)
    report = Report.objects.create(kind="floor_day", format="csv", requested_by=auditor,
                                   parameters={"gaming_day": dutch_seed.gaming_day})

    # when a worker runs the task the message names (a worker looks it up by that name)
    outcome = app.tasks[name].apply(args=[report.pk]).get()

    # then the file is made once
    report.refresh_from_db()
    assert outcome == report.status == Report.Status.DONE
    assert report.file.name.endswith(".csv") and report.attempts == 1
