"""Report files over the API, made by a Celery worker (a real one when CI configures a
broker; eagerly after commit otherwise): ask, watch, download, retry; roles see only
what they may read; nothing about a report moves money."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest

from ledger.models import Entry, Hold
from ledger.verify import Anchor, ledger_verify
from reports.models import Report
from tests.conftest import newest_block

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("celery")]


def _wait(client, report_id: int, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(f"/api/v1/reports/{report_id}").json()
        if body["status"] in ("done", "failed") or time.monotonic() > deadline:
            return body
        time.sleep(0.2)


def test_an_auditor_asks_for_the_banker_csv_and_downloads_it(
        auditor_client, dutch_seed, celery_worker, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    entries, holds = Entry.objects.count(), Hold.objects.count()

    asked = auditor_client.post("/api/v1/reports", {
        "kind": "banker", "format": "csv", "date_from": dutch_seed.gaming_day,
        "date_to": dutch_seed.gaming_day}, format="json")

    assert asked.status_code == 202, asked.json()
    assert set(asked.json()) >= {"id", "status"}
    assert asked.json()["status"] in ("queued", "running", "done")
    body = _wait(auditor_client, asked.json()["id"])
    assert body["status"] == "done" and body["progress"] == 100, body
    head = newest_block()
    assert body["chain_head"] == {"seq": head.seq, "hash": head.hash}
    assert ledger_verify(anchor=Anchor(**body["chain_head"])).ok
    assert body["read_from"] == "Read from the primary database (no replica configured)."
    download = auditor_client.get(body["file"])
    assert download.status_code == 200
    assert download["Content-Type"].startswith("text/csv")
    assert 'filename="banker-' in download["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert [(r["player"], r["net"], r["commission"], r["result"]) for r in rows] == [
        ("Banker Bram", "20.00", "1.00", "19.00")]
    # nothing about a report moves money
    assert (Entry.objects.count(), Hold.objects.count()) == (entries, holds)


def test_a_pit_boss_gets_a_pdf_with_its_content_type(pit_boss_client, dutch_seed,
                                                     celery_worker, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    asked = pit_boss_client.post("/api/v1/reports", {
        "kind": "table_day", "format": "pdf", "table": dutch_seed.table.pk,
        "gaming_day": dutch_seed.gaming_day}, format="json").json()

    body = _wait(pit_boss_client, asked["id"])

    assert body["status"] == "done", body
    download = pit_boss_client.get(f"/api/v1/reports/{asked['id']}/file")
    assert download["Content-Type"] == "application/pdf"
    assert b"".join(download.streaming_content).startswith(b"%PDF")


def test_the_file_is_refused_with_409_while_the_report_is_not_done(auditor_client,
                                                                   staff_user_report):
    response = auditor_client.get(f"/api/v1/reports/{staff_user_report.pk}/file")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    assert response.json()["error"]["detail"]["status"] == "queued"


@pytest.fixture
def staff_user_report(db):
    from casino import roles
    from casino.services import staff_create

    user, _ = staff_create(username="someone", role=roles.AUDITOR)
    return Report.objects.create(kind="floor_day", format="csv",
                                 parameters={"gaming_day": "2026-01-01"}, requested_by=user)


def test_a_failed_report_says_why_and_can_be_retried(auditor_client, dutch_seed,
                                                     celery_worker, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "missing" / "x"
    (tmp_path / "missing").write_text("a file where the storage wants a directory")
    asked = auditor_client.post("/api/v1/reports", {
        "kind": "floor_day", "format": "json", "gaming_day": dutch_seed.gaming_day},
        format="json").json()

    failed = _wait(auditor_client, asked["id"])

    assert failed["status"] == "failed" and failed["error"] and failed["file"] is None
    assert auditor_client.get(f"/api/v1/reports/{asked['id']}/file").status_code == 409
    (tmp_path / "missing").unlink()
    retried = auditor_client.post(f"/api/v1/reports/{asked['id']}/retry")
    assert retried.status_code == 202
    done = _wait(auditor_client, asked["id"])
    assert done["status"] == "done" and done["attempts"] == 2 and done["error"] == ""
    again = auditor_client.post(f"/api/v1/reports/{asked['id']}/retry")
    assert again.status_code == 409


def test_bad_requests_are_refused_and_store_nothing(auditor_client, dealer_client, db):
    cases = [
        {"kind": "banker", "format": "xls", "date_from": "2026-01-01", "date_to": "2026-01-01"},
        {"kind": "everything", "format": "csv"},
        {"kind": "banker", "format": "csv", "date_from": "2026-01-02", "date_to": "2026-01-01"},
        {"kind": "banker", "format": "csv", "date_from": "yesterday", "date_to": "2026-01-01"},
        {"kind": "table_day", "format": "csv", "table": "999999", "gaming_day": "2026-01-01"},
        {"kind": "table_day", "format": "csv", "table": "1e3", "gaming_day": "2026-01-01"},
        {"kind": "trial_balance", "format": "csv", "as_of": "2026-01-01T10:00:00"},
        {"kind": "player_statement", "format": "csv", "player": "1"},
        {"kind": "banker", "format": "csv", "date_from": "2020-01-01", "date_to": "2026-01-01"},
    ]
    for case in cases:
        response = auditor_client.post("/api/v1/reports", case, format="json")
        assert response.status_code == 400, (case, response.json())
        assert response.json()["error"]["code"] == "invalid"
    assert dealer_client.post("/api/v1/reports", {
        "kind": "floor_day", "format": "csv", "gaming_day": "2026-01-01"},
        format="json").status_code == 403
    assert not Report.objects.exists()


def test_a_role_sees_only_the_kinds_it_may_read(pit_boss_client, staff_client, db):
    from django.contrib.auth.models import Group, Permission

    # a role that runs reports but may not see the house's accounts
    group = Group.objects.create(name="shift_lead")
    group.permissions.add(Permission.objects.get(codename="run_reports"))
    from rest_framework.test import APIClient

    from casino.services import staff_create
    user, token = staff_create(username="lead", role="pit_boss")
    user.groups.set([group])
    lead = APIClient()
    lead.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    trial = pit_boss_client.post("/api/v1/reports", {
        "kind": "trial_balance", "format": "json", "as_of": "2026-01-01T10:00:00+01:00"},
        format="json")
    assert trial.status_code == 202

    assert lead.get(f"/api/v1/reports/{trial.json()['id']}").status_code == 404
    assert lead.get("/api/v1/reports").json()["count"] == 0
    assert lead.post("/api/v1/reports", {
        "kind": "trial_balance", "format": "json", "as_of": "2026-01-01T10:00:00+01:00"},
        format="json").status_code == 403
    assert lead.post("/api/v1/reports", {
        "kind": "floor_day", "format": "json", "gaming_day": "2026-01-01"},
        format="json").status_code == 202


def test_unknown_reports_are_not_found(auditor_client, db):
    assert auditor_client.get("/api/v1/reports/999999").status_code == 404
    assert auditor_client.post("/api/v1/reports/999999/retry").status_code == 404


@pytest.mark.parametrize("as_of", [None, "", "  "])
def test_a_trial_balance_asked_without_a_moment_is_as_of_the_moment_it_was_asked(
        auditor_client, db, settings, tmp_path, as_of):
    from datetime import datetime

    from django.utils import timezone

    settings.MEDIA_ROOT = tmp_path
    body = {"kind": "trial_balance", "format": "json"}
    if as_of is not None:
        body["as_of"] = as_of
    before = timezone.now()

    asked = auditor_client.post("/api/v1/reports", body, format="json")

    assert asked.status_code == 202, asked.json()
    moment = datetime.fromisoformat(asked.json()["parameters"]["as_of"])
    assert before <= moment <= timezone.now()
    # the file is as of that stored moment, whenever a worker makes it
    done = _wait(auditor_client, asked.json()["id"])
    assert done["status"] == "done", done
    made = json.loads(b"".join(auditor_client.get(done["file"]).streaming_content))
    assert made["parameters"]["as_of"] == moment.isoformat()
