"""Closing a gaming day: its figures and the chain head are stored and never change; a
later reversal of one of its rounds is an adjustment on the day it was made."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction
from django.db.models import Sum

from casino.models import Refusal
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Entry, Line
from ledger.verify import Anchor, ledger_verify
from reports.closing import gaming_day_close
from reports.files.kinds import report_document
from reports.models import ClosedDay, ClosedTableDay
from reports.play import floor_day_report, table_day_report
from reports.tasks import gaming_day_close_task
from rounds.models import Round
from tests.conftest import newest_block, played_rounds_rewritten
from tests.rounds.conftest import DutchSeed

pytestmark = pytest.mark.django_db


def _close(client, day):
    return client.post("/api/v1/gaming-days/close", {"gaming_day": str(day)}, format="json")


@pytest.fixture
def yesterday_seed(dutch_seed: DutchSeed) -> DutchSeed:
    """The Dutch seed's rounds, as if played on the previous gaming day (a day over)."""
    yesterday = gaming_day_of() - timedelta(days=1)
    played_rounds_rewritten(Round.objects.filter(table=dutch_seed.table), gaming_day=yesterday)
    dutch_seed.gaming_day = yesterday.isoformat()
    return dutch_seed


def test_closing_stores_each_tables_figures_and_the_floors_with_the_chain_head(
        yesterday_seed: DutchSeed, pit_boss_client):
    day = date.fromisoformat(yesterday_seed.gaming_day)
    live = table_day_report(table_id=yesterday_seed.table.pk, gaming_day=day)

    response = _close(pit_boss_client, day)

    assert response.status_code == 201, response.json()
    body = response.json()
    head = newest_block()
    assert body["chain_head"] == {"seq": head.seq, "hash": head.hash}
    table_row, total = body["tables"]
    assert table_row["table"] == yesterday_seed.table.pk and total["table"] is None
    assert (table_row["commission_bankers"], table_row["commission_players"],
            table_row["house_result"], table_row["handle"]) == ("1.00", "7.00", "8.00",
                                                                "400.00")
    assert total["house_result"] == "8.00"
    assert table_day_report(table_id=yesterday_seed.table.pk, gaming_day=day) == \
        type(live)(**{**live.__dict__, "closed": True})
    # the stored head is one ledger_verify --expect accepts
    assert ledger_verify(anchor=Anchor(seq=body["chain_head"]["seq"],
                                       hash=body["chain_head"]["hash"])).ok
    call_command("ledger_verify", "--expect",
                 f"{body['chain_head']['seq']}:{body['chain_head']['hash']}")


def test_a_day_closes_once_and_only_when_it_is_over(yesterday_seed, pit_boss_client,
                                                   dealer_client):
    day = date.fromisoformat(yesterday_seed.gaming_day)
    today = gaming_day_of()

    assert _close(dealer_client, day).status_code == 403
    not_over = _close(pit_boss_client, today)
    assert not_over.status_code == 409
    assert not_over.json()["error"]["code"] == "gaming_day_not_over"
    bad = pit_boss_client.post("/api/v1/gaming-days/close", {"gaming_day": "yesterday"},
                               format="json")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid"
    assert _close(pit_boss_client, day).status_code == 201
    again = _close(pit_boss_client, day)
    assert again.status_code == 409 and again.json()["error"]["code"] == "gaming_day_closed"
    assert ClosedDay.objects.count() == 1


def test_a_day_with_a_round_in_play_is_not_closed(yesterday_seed, dealer, pit_boss_client):
    open_round = dealer.open_round(yesterday_seed.table)["id"]
    Round.objects.filter(pk=open_round).update(
        gaming_day=date.fromisoformat(yesterday_seed.gaming_day))

    refused = _close(pit_boss_client, yesterday_seed.gaming_day)

    assert refused.status_code == 409
    assert refused.json()["error"]["detail"]["rounds"] == [open_round]
    assert not ClosedDay.objects.exists()


def test_the_database_refuses_to_change_or_delete_a_closed_days_figures(yesterday_seed):
    closed = gaming_day_close(gaming_day=date.fromisoformat(yesterday_seed.gaming_day),
                              by=None)

    for statement in ("UPDATE rounds_closedtableday SET handle = 0",
                      "DELETE FROM rounds_closedtableday",
                      "UPDATE rounds_closedday SET chain_seq = 0",
                      "DELETE FROM rounds_closedday"):
        with pytest.raises(IntegrityError), transaction.atomic(), \
                connection.cursor() as cursor:
            cursor.execute(statement)
    assert ClosedTableDay.objects.filter(closed_day=closed).aggregate(
        s=Sum("handle"))["s"] == 2 * 40_000


def test_the_runtime_role_may_not_change_a_closed_day_either(yesterday_seed, as_runtime_role):
    from django.db import ProgrammingError

    gaming_day_close(gaming_day=date.fromisoformat(yesterday_seed.gaming_day), by=None)

    with pytest.raises(ProgrammingError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM rounds_closedtableday")


def test_a_later_reversal_is_an_adjustment_on_its_own_day_and_the_closed_day_says_so(
        yesterday_seed: DutchSeed, pit_boss_client):
    day = date.fromisoformat(yesterday_seed.gaming_day)
    gaming_day_close(gaming_day=day, by=None)
    before = table_day_report(table_id=yesterday_seed.table.pk, gaming_day=day)

    # when the player-banked round of the closed day is reversed today
    reversed_ = pit_boss_client.post(f"/api/v1/rounds/{yesterday_seed.round_id}/reverse",
                                     {"reason": "wrong outcome keyed"}, format="json")
    assert reversed_.status_code == 200, reversed_.json()

    # then the closed day's figures are unchanged, and it names the round reversed since
    after = table_day_report(table_id=yesterday_seed.table.pk, gaming_day=day)
    number = Round.objects.get(pk=yesterday_seed.round_id).number
    assert after.house_result == before.house_result == 800
    assert after.commission_bankers == 100 and after.reversed_after_close == (number,)
    # and today carries the adjustment: the round's house result moved back
    today = table_day_report(table_id=yesterday_seed.table.pk, gaming_day=gaming_day_of())
    assert today.adjustments == -(100 + 700)
    assert today.house_result == 0 and today.house_result_adjusted == -800
    reversal = Entry.objects.get(reverses__ref=f"round:{yesterday_seed.round_id}")
    assert Line.objects.filter(entry=reversal, account__ref=f"table:{yesterday_seed.table.pk}"
                               ).aggregate(s=Sum("amount"))["s"] == today.adjustments
    floor = floor_day_report(gaming_day=gaming_day_of())
    assert floor.totals[0].adjustments == -800
    # the re-read closed report says so
    document = report_document(kind="table_day", parameters={
        "table": yesterday_seed.table.pk, "gaming_day": day}, made_by="a", made_at=reversal
        .created_at)
    assert any("closed" in note for note in document.notes)
    assert any(f"round(s) {number} were reversed after the close" in note
               for note in document.notes)


def test_the_command_and_the_scheduled_task_close_the_previous_day(yesterday_seed, capsys):
    # apply(): run here, on this test's database (a worker of another test would consume a
    # delay() sent to the shared broker); the report API tests run tasks on a real worker
    assert gaming_day_close_task.apply().get() == yesterday_seed.gaming_day
    out_of_turn = gaming_day_close_task.apply().get()
    assert out_of_turn is None   # already closed: nothing to do
    with pytest.raises(CommandError, match="already closed"):
        call_command("gaming_day_close", "--day", yesterday_seed.gaming_day)
    earlier = date.fromisoformat(yesterday_seed.gaming_day) - timedelta(days=1)
    # a day before the casino's first round is refused, and the refusal traced
    with pytest.raises(CommandError, match="before the casino's first round"):
        call_command("gaming_day_close", "--day", earlier.isoformat())
    refusal = Refusal.objects.get(code="gaming_day_before_first_round")
    assert (refusal.action, refusal.ref, refusal.by, refusal.path) == (
        "gaming_day_close", f"gaming_day:{earlier}", None, "manage.py gaming_day_close")
    assert refusal.username.startswith("os:")
    assert refusal.detail == {"gaming_day": earlier.isoformat(),
                              "first_gaming_day": yesterday_seed.gaming_day}
    # one of the seed's rounds played the day before: that day closes
    played_rounds_rewritten(Round.objects.filter(pk=yesterday_seed.round_id),
                            gaming_day=earlier)

    call_command("gaming_day_close", "--day", earlier.isoformat())

    assert "ledger_verify --expect" in capsys.readouterr().out
    assert set(ClosedDay.objects.values_list("gaming_day", flat=True)) == {
        earlier, date.fromisoformat(yesterday_seed.gaming_day)}


def test_the_admin_shows_a_closed_day_read_only(yesterday_seed, client):
    from casino import roles
    from casino.services import staff_create

    closed = gaming_day_close(gaming_day=date.fromisoformat(yesterday_seed.gaming_day),
                              by=None)
    user, _ = staff_create(username="audra", role=roles.AUDITOR)
    client.force_login(user)

    page = client.get(f"/admin/reports/closedday/{closed.pk}/change/")

    assert page.status_code == 200
    text = page.content.decode()
    assert "8.00 EUR" in text and "1.00 EUR" in text and closed.chain_hash in text
    assert client.post(f"/admin/reports/closedday/{closed.pk}/delete/").status_code == 403
    assert client.get("/admin/reports/report/").status_code == 200
