"""The exclusions report lists every exclusion in force on its gaming day, from the records
themselves: one covering the day, one lifted during it (with its lift), not one lifted
before the day began, ended before it or starting after it. Its CSV says the same."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from casino import roles
from casino.exclusions import exclusion_lift, exclusion_record
from casino.models import Exclusion
from casino.services import staff_create
from casino.shared.gaming_day import gaming_day_of, gaming_day_start
from reports.files.formats import FORMATS
from reports.files.kinds import report_document
from tests.players import make_player

pytestmark = pytest.mark.django_db


def _rows(day):
    document = report_document(kind="exclusions", parameters={"gaming_day": day},
                               made_by="test", made_at=timezone.now())
    return document, document.sections[0].records()


def test_the_report_lists_who_was_kept_from_play_on_the_day():
    boss, _ = staff_create(username="petra", role=roles.PIT_BOSS)
    today = gaming_day_of()
    anna, bea, cem, dan = (make_player(name=n) for n in ("Anna", "Bea", "Cem", "Dan"))
    kept = exclusion_record(player_id=anna.pk, kind="self", until=today + timedelta(days=9),
                            reason="Asked", by=boss)
    barred = exclusion_record(player_id=bea.pk, kind="barred", reason="Cheating", by=boss)
    exclusion_lift(exclusion_id=barred.pk, reason="Reviewed", by=boss)
    exclusion_record(player_id=cem.pk, kind="self", starts=today + timedelta(days=1),
                     reason="From tomorrow", by=boss)
    # one from two days ago, lifted just before today began (written around the service,
    # which records no day gone; the database lets only the lift change)
    old = Exclusion.objects.create(player=dan, kind="barred", reason="Old", recorded_by=boss,
                                   starts=today - timedelta(days=2))
    Exclusion.objects.filter(pk=old.pk).update(
        lifted_at=gaming_day_start(today) - timedelta(hours=1), lifted_by=boss,
        lift_reason="Long ago")

    document, rows = _rows(today)

    assert [(r["player_name"], r["kind"], r["until"], r["lifted_by"]) for r in rows] == [
        ("Anna", "Self-excluded", kept.until, ""),
        ("Bea", "Barred", None, "petra"),
    ]
    assert rows[1]["lift_reason"] == "Reviewed"
    text = FORMATS["csv"].render(document).decode()
    lines = list(csv.DictReader(io.StringIO(text)))
    assert [line["player_name"] for line in lines] == ["Anna", "Bea"]
    # the day before, only the old barring was in force
    _, before = _rows(today - timedelta(days=1))
    assert [r["player_name"] for r in before] == ["Dan"]
