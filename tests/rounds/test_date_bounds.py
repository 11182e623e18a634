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
