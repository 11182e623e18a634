"""The migration that makes a drop count await its witness keeps the counts made before it:
each stays posted, its witness's time taken as its count's, and the guards stay in place."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from rounds.models import DropCount

BEFORE = [("rounds", "0023_dealer_shifts")]


def _triggers() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = 'rounds_dropcount'::regclass"
                       " AND NOT tgisinternal")
        return {name for (name,) in cursor.fetchall()}


@pytest.mark.django_db(transaction=True)
def test_counts_posted_before_the_witness_signed_keep_their_figures_and_their_guards(executor):
    # given a count posted under the old rule, its witness only a name
    executor.migrate(BEFORE)
    executor.loader.build_graph()
    old = executor.loader.project_state(BEFORE).apps
    User = old.get_model("auth", "User")
    carl, wendy = (User.objects.create(username=n) for n in ("carl", "wendy"))
    table = old.get_model("rounds", "Table").objects.create(name="Table 1", created_by=carl)
    counted_at = timezone.now() - timedelta(hours=2)
    before = old.get_model("rounds", "DropCount").objects.create(
        table=table, gaming_day=counted_at.date(), currency="EUR", recorded=500, counted=480,
        variance=-20, status="unexplained", counted_by=carl, witness=wendy,
        counted_at=counted_at)

    # when the migration runs
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    # then the count is as it was, witnessed when it was counted, and still guarded
    count = DropCount.objects.get(pk=before.pk)
    assert (count.status, count.recorded, count.variance, count.note) == \
        ("unexplained", 500, -20, "")
    assert count.witnessed_at == counted_at
    assert {"rounds_dropcount_guard", "rounds_dropcount_corrected_by_a_count"} <= _triggers()
