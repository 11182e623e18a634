"""The console's reports page: who sees it, asking for a report, the closed days' figures
and chart."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from casino import roles
from casino.services import staff_create
from casino.shared.gaming_day import gaming_day_of
from rounds.models import Report, Round
from rounds.services.gaming_days import gaming_day_close

pytestmark = pytest.mark.django_db


@pytest.fixture
def auditor(client):
    user, _ = staff_create(username="audra", role=roles.AUDITOR)
    client.force_login(user)
    return user


def test_the_reports_page_is_in_the_nav_of_those_who_may_run_reports(client, auditor):
    page = client.get("/reports/")

    assert page.status_code == 200
    assert 'href="/reports/"' in page.content.decode()


def test_a_dealer_has_no_reports_page(client):
    user, _ = staff_create(username="dee", role=roles.DEALER)
    client.force_login(user)

    assert client.get("/reports/").status_code == 403
    assert 'href="/reports/"' not in client.get("/").content.decode()


def test_asking_with_a_missing_parameter_says_which_and_stores_nothing(client, auditor):
    page = client.post("/reports/ask/", {"kind": "banker", "format": "csv",
                                         "date_from": "2026-01-01"}, follow=True)

    assert "date to: a value is required" in page.content.decode()
    assert not Report.objects.exists()


def test_a_closed_day_shows_its_figures_and_its_chart(client, auditor, dutch_seed):
    yesterday = gaming_day_of() - timedelta(days=1)
    Round.objects.filter(table=dutch_seed.table).update(gaming_day=yesterday)
    gaming_day_close(gaming_day=yesterday, by=None)

    text = client.get("/reports/").content.decode()

    assert f"Gaming day {yesterday}" in text and "400.00 EUR" in text and "1.00 EUR" in text
    chart = client.get(f"/reports/days/{yesterday}/chart.png")
    assert chart.status_code == 200 and chart["Content-Type"] == "image/png"
    assert chart.content.startswith(b"\x89PNG")
    assert client.get(f"/reports/days/{date(2020, 1, 1)}/chart.png").status_code == 404
