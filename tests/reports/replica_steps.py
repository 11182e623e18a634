"""Steps of tests/reports/test_replica.py, each run in a child process whose DATABASE_URL is
a primary and DATABASE_REPORTS_URL its streaming standby, as the service runs with both:
``python -m tests.reports.replica_steps STEP``. Each prints one JSON object.

- ``report``: an auditor asks for the trial balance as a JSON file over the API (the task
  runs eagerly, after the request commits, as without a broker); prints the report's
  record, the file, and the same report read from the primary at the same moment.
- ``deposit``: a deposit at the cage, on the primary, then sealed.
- ``write-standby``: a write sent over the reports' connection; prints the refusal.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def _report() -> dict[str, Any]:
    from django.contrib.auth.models import User
    from django.db import transaction
    from django.utils import timezone
    from rest_framework.test import APIClient

    from reports.files.kinds import report_document, report_parameters
    from reports.files.to_json import render_json

    as_of = timezone.now().isoformat()
    client = APIClient()
    client.force_authenticate(User.objects.get(username="auditor"))
    asked = client.post("/api/v1/reports", {"kind": "trial_balance", "format": "json",
                                            "as_of": as_of}, format="json")
    assert asked.status_code == 202, asked.content
    record = client.get(f"/api/v1/reports/{asked.json()['id']}").json()
    download = client.get(f"/api/v1/reports/{record['id']}/file")
    assert download.status_code == 200, record
    made = json.loads(download.getvalue())
    # Inside a transaction on the default database a report reads it (casino.shared.db):
    # the primary's figures as of the same moment.
    with transaction.atomic():
        primary = report_document(kind="trial_balance",
                                  parameters=report_parameters(kind="trial_balance",
                                                               raw={"as_of": as_of}),
                                  made_by="test", made_at=timezone.now())
    return {"record": record, "file": made, "primary": json.loads(render_json(primary))}


def _deposit() -> dict[str, Any]:
    from django.contrib.auth.models import User

    from casino.models import Player
    from casino.services import player_deposit

    player = Player.objects.order_by("pk").first()
    assert player is not None
    entry = player_deposit(player_id=player.pk, amount=12_345,
                           by=User.objects.get(username="cage"))
    # sealed at once, as the sealer would within seconds: the chain head moves with it
    from ledger.services import entries_seal_all

    entries_seal_all()
    return {"entry": entry.pk}


def _write_standby() -> dict[str, Any]:
    from django.db import DatabaseError, connections

    try:
        with connections["reports"].cursor() as cursor:
            cursor.execute("CREATE TABLE replica_write_probe (id integer)")
    except DatabaseError as refused:
        return {"refused": str(refused)}
    return {"refused": None}


STEPS = {"report": _report, "deposit": _deposit, "write-standby": _write_standby}


def main(step: str) -> None:
    import django
    from django.test.utils import setup_test_environment

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    django.setup()
    setup_test_environment()  # the test client's host name, nothing of the database
    print(json.dumps(STEPS[step]()))


if __name__ == "__main__":
    main(sys.argv[1])
