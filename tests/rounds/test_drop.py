"""Cash at the table (buy-ins) and the count of the drop box (docs/rules.md, "Drop and
win"), checked against the ledger's lines."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db.models import Sum
from django.test import override_settings

from casino import roles
from casino.selectors import player_balance
from casino.services import staff_create
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Account, Entry, Line
from rounds.models import DropCount
from tests.rounds.conftest import available

pytestmark = pytest.mark.django_db


def buy_in(client, table, seat, amount, expect=201, **headers):
    response = client.post(f"/api/v1/tables/{table.pk}/buy-ins",
                           {"seat": seat, "amount": amount}, format="json", **headers)
    assert response.status_code == expect, response.json()
    return response.json()


def count(client, table, day, counted, witness, expect=201, confirmed_by=None, **extra):
    """The counter's count; ``confirmed_by``: the witness's client, who then confirms it
    (the answer is then the witness's)."""
    response = client.post(f"/api/v1/tables/{table.pk}/drop-counts",
                           {"gaming_day": str(day), "counted": counted, "witness": witness,
                            **extra}, format="json")
    assert response.status_code == expect, response.json()
    if confirmed_by is not None:
        return confirm(confirmed_by, response.json())
    return response.json()


def confirm(client, counted, expect=200, **body):
    response = client.post(f"/api/v1/drop-counts/{counted['id']}/witness",
                           {"confirm": True, **body}, format="json")
    assert response.status_code == expect, response.json()
    return response.json()


def refuse(client, counted, reason, expect=200):
    response = client.post(f"/api/v1/drop-counts/{counted['id']}/witness",
                           {"confirm": False, "reason": reason}, format="json")
    assert response.status_code == expect, response.json()
    return response.json()


def ledger_now():
    """Every entry and every account's posted balance: what a step may not change."""
    return (list(Entry.objects.order_by("pk").values_list("pk", flat=True)),
            sorted(Account.objects.values_list("pk", "posted")))


def account(kind, table):
    return Account.objects.get(kind=kind, ref=f"table:{table.pk}", currency=table.currency)


@pytest.fixture
def wendy(db):
    """The count room's wendy, signed in with her own token: the witness the counts name."""
    from rest_framework.test import APIClient

    user, token = staff_create(username="wendy", role=roles.COUNT)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    client.user = user  # type: ignore[attr-defined]
    return client


@pytest.fixture
def witness(wendy):
    return wendy.user


# --- buy-ins ----------------------------------------------------------------------------------

def test_a_buy_in_credits_the_seated_player_from_the_tables_drop_box(dealer_client, table,
                                                                     seat_player):
    player = seat_player(table, 2, funds=0)

    body = buy_in(dealer_client, table, 2, "250.00")

    assert body["amount"] == "250.00"
    assert (body["player"], body["seat"]) == (player.pk, 2)
    assert body["gaming_day"] == str(gaming_day_of())
    entry = Entry.objects.get(pk=body["id"])
    assert entry.kind == "buy_in"
    lines = {(line.account.kind, line.amount) for line in entry.lines.select_related("account")}
    assert lines == {("drop_box", -25_000), ("player", 25_000)}
    assert sum(amount for _, amount in lines) == 0
    assert available(player) == 25_000
    assert account("drop_box", table).posted == -25_000


@pytest.mark.parametrize(("seat", "amount", "status", "code"), [
    (3, "100.00", 409, "seat_empty"),
    (2, "0", 400, "invalid"),
    (2, "-5.00", 400, "invalid"),
    (2, "1.234", 400, "invalid"),
    (2, "lots", 400, "invalid"),
    (7, "10.00", 400, "invalid"),
])
def test_a_buy_in_is_refused_for_an_empty_seat_or_an_amount_that_is_not_money(
        dealer_client, table, seat_player, seat, amount, status, code):
    player = seat_player(table, 2, funds=0)
    before = Entry.objects.count()

    body = buy_in(dealer_client, table, seat, amount, expect=status)

    assert body["error"]["code"] == code
    assert Entry.objects.count() == before
    assert available(player) == 0


def test_a_closed_or_unknown_table_takes_no_cash(dealer_client, pit_boss_client, table,
                                                 seat_player):
    seat_player(table, 1, funds=0)
    pit_boss_client.patch(f"/api/v1/tables/{table.pk}", {"is_open": False}, format="json")
    table.refresh_from_db()
    assert not table.is_open

    assert buy_in(dealer_client, table, 1, "10.00", expect=409)["error"]["code"] == \
        "table_closed"
    assert dealer_client.post("/api/v1/tables/9999/buy-ins", {"seat": 1, "amount": "1"},
                              format="json").status_code == 404
    assert not Entry.objects.filter(kind="buy_in").exists()


def test_the_cage_and_the_auditor_take_no_buy_in(cage_client, auditor_client, table,
                                                  seat_player):
    seat_player(table, 1, funds=0)
    for client in (cage_client, auditor_client):
        assert buy_in(client, table, 1, "10.00", expect=403)["error"]["code"] == \
            "permission_denied"


def test_a_buy_in_sent_twice_with_one_idempotency_key_is_taken_once(dealer_client, table,
                                                                     seat_player):
    player = seat_player(table, 1, funds=0)
    first = buy_in(dealer_client, table, 1, "40.00", HTTP_IDEMPOTENCY_KEY="slip-1")
    again = buy_in(dealer_client, table, 1, "40.00", HTTP_IDEMPOTENCY_KEY="slip-1")

    assert again == first
    assert available(player) == 4_000


# --- the count --------------------------------------------------------------------------------

def test_a_count_equal_to_the_buy_ins_has_no_variance_and_moves_the_cash_to_the_cage(
        dealer_client, cage_client, witness, wendy, table, seat_player):
    seat_player(table, 1, funds=0)
    seat_player(table, 2, funds=0)
    buy_in(dealer_client, table, 1, "250.00")
    buy_in(dealer_client, table, 2, "100.50")
    day = gaming_day_of()
    cage_before = sum(Account.objects.filter(kind="cage", currency=table.currency)
                      .values_list("posted", flat=True))

    body = count(cage_client, table, day, "350.50", witness.username, confirmed_by=wendy)

    assert (body["recorded"], body["counted"], body["variance"]) == \
        ("350.50", "350.50", "0.00")
    assert body["status"] == "balanced" and body["variance_entry"] is None
    assert body["counted_by"] == cage_client.user.username
    assert body["witness"] == "wendy"
    moved = {(line.account.kind, line.amount) for line in
             Line.objects.filter(entry_id=body["entry"]).select_related("account")}
    assert moved == {("drop_box", 35_050), ("cage", -35_050)}
    assert account("drop_box", table).posted == 0      # the box is empty again
    assert Account.objects.get(kind="cage", currency=table.currency).posted == \
        cage_before - 35_050


def test_a_count_awaits_its_witness_and_posts_nothing_until_the_witness_confirms_it(
        dealer_client, cage_client, wendy, table, seat_player):
    seat_player(table, 1, funds=0)
    buy_in(dealer_client, table, 1, "200.00")
    day = gaming_day_of()
    before = ledger_now()

    # when the counter records the count
    body = count(cage_client, table, day, "200.00", "wendy")

    # then it waits for wendy, and nothing is posted
    assert (body["status"], body["witness"], body["witnessed_at"]) == \
        ("awaiting_witness", "wendy", None)
    assert (body["counted"], body["recorded"], body["variance"], body["entry"]) == \
        ("200.00", None, None, None)
    assert ledger_now() == before
    assert account("drop_box", table).posted == -20_000
    waiting = wendy.get("/api/v1/drop-counts?status=awaiting_witness").json()["results"]
    assert [c["id"] for c in waiting] == [body["id"]]

    # when wendy confirms it with her own token
    signed = confirm(wendy, body)

    # then it posts: the cash to the cage, recorded read now
    assert (signed["status"], signed["recorded"], signed["variance"]) == \
        ("balanced", "200.00", "0.00")
    assert signed["witnessed_at"] is not None
    moved = {(line.account.kind, line.amount) for line in
             Line.objects.filter(entry_id=signed["entry"]).select_related("account")}
    assert moved == {("drop_box", 20_000), ("cage", -20_000)}
    assert account("drop_box", table).posted == 0
    assert Entry.objects.get(pk=signed["entry"]).created_by == cage_client.user


def test_only_the_named_witness_confirms_a_count(dealer_client, cage_client, staff_client,
                                                  pit_boss_client, auditor_client, wendy,
                                                  table, seat_player):
    seat_player(table, 1, funds=0)
    buy_in(dealer_client, table, 1, "200.00")
    body = count(cage_client, table, gaming_day_of(), "200.00", "wendy")
    before = ledger_now()
    another_counter = staff_client(roles.COUNT)

    # the counter, another who may witness, a pit boss: 403 in words; a dealer, an auditor
    for client in (cage_client, another_counter, pit_boss_client):
        refused = confirm(client, body, expect=403)
        assert refused["error"]["code"] == "not_the_witness"
        assert "names wendy as its witness: only wendy" in refused["error"]["message"]
        refused = refuse(client, body, "not me", expect=403)
        assert refused["error"]["code"] == "not_the_witness"
    for client in (dealer_client, auditor_client):
        assert confirm(client, body, expect=403)["error"]["code"] == "permission_denied"

    # then nothing moved and the count still waits for wendy
    assert ledger_now() == before
    assert DropCount.objects.get(pk=body["id"]).status == "awaiting_witness"
    assert confirm(wendy, body)["status"] == "balanced"
    again = confirm(wendy, body, expect=409)
    assert again["error"]["code"] == "not_awaiting_witness"


def test_a_witness_who_refuses_a_count_leaves_nothing_posted_and_the_box_countable_again(
        dealer_client, cage_client, wendy, table, seat_player):
    player = seat_player(table, 1, funds=0)
    buy_in(dealer_client, table, 1, "200.00")
    day = gaming_day_of()
    body = count(cage_client, table, day, "150.00", "wendy")
    before = ledger_now()

    # a refusal says why; without a reason it is refused itself
    assert refuse(wendy, body, "  ", expect=400)["error"]["code"] == "reason_required"
    assert confirm(wendy, body, expect=400, reason="looks fine")["error"]["code"] == "invalid"
    refused = refuse(wendy, body, "I saw 200.00 counted, not 150.00")

    assert (refused["status"], refused["reason"]) == ("refused",
                                                      "I saw 200.00 counted, not 150.00")
    assert refused["witnessed_at"] is not None and refused["entry"] is None
    assert ledger_now() == before
    # the table takes cash again, and the box is counted again (by the same counter)
    buy_in(dealer_client, table, 1, "10.00")
    recount = count(cage_client, table, day, "210.00", "wendy", confirmed_by=wendy)
    assert (recount["status"], recount["recorded"]) == ("balanced", "210.00")
    assert available(player) == 21_000 and account("drop_box", table).posted == 0


def test_a_counters_note_does_not_explain_the_variance_someone_else_does(
        dealer_client, staff_client, wendy, table, seat_player):
    counter = staff_client(roles.COUNT)
    seat_player(table, 1, funds=0)
    buy_in(dealer_client, table, 1, "200.00")
    day = gaming_day_of()

    body = count(counter, table, day, "180.00", "wendy",
                 note="A 20.00 note stuck in the slot", confirmed_by=wendy)

    assert (body["recorded"], body["counted"], body["variance"]) == \
        ("200.00", "180.00", "-20.00")
    assert (body["status"], body["explained"], body["note"], body["reason"]) == \
        ("unexplained", False, "A 20.00 note stuck in the slot", "")
    variance = account("drop_variance", table)
    assert variance.posted == -2_000
    assert Line.objects.get(entry_id=body["variance_entry"], account=variance).amount == -2_000
    assert account("drop_box", table).posted == 0

    # the counter may not close their own exception, whatever they send
    explain = f"/api/v1/drop-counts/{body['id']}/explain"
    for sent in ({"reason": "the note in the slot"}, {}):
        own = counter.post(explain, sent, format="json")
        assert own.status_code == 403 and own.json()["error"]["code"] == "own_count"
    assert DropCount.objects.get(pk=body["id"]).status == "unexplained"

    # the witness, who read the counter's note and found the note in the slot, does
    explained = wendy.post(explain, {"reason": "The 20.00 note was found in the slot"},
                           format="json")

    assert explained.status_code == 200, explained.json()
    shown = explained.json()
    assert (shown["status"], shown["explained_by"], shown["note"]) == \
        ("explained", "wendy", "A 20.00 note stuck in the slot")
    listed = counter.get(f"/api/v1/drop-counts?exceptions=true&gaming_day={day}").json()
    assert [(c["id"], c["reason"]) for c in listed["results"]] == \
        [(body["id"], "The 20.00 note was found in the slot")]
    assert account("drop_variance", table).posted == -2_000    # nothing moves again


def test_a_variance_counted_without_a_reason_is_an_exception_until_someone_explains_it(
        dealer_client, staff_client, pit_boss_client, auditor_client, witness, wendy, table,
        seat_player):
    counter = staff_client(roles.COUNT)
    seat_player(table, 1, funds=0)
    buy_in(dealer_client, table, 1, "200.00")
    day = gaming_day_of()

    # the contract's three fields: the count is taken, the money moves, the variance is open
    body = count(counter, table, day, "230.00", witness.username, confirmed_by=wendy)

    assert (body["recorded"], body["counted"], body["variance"]) == \
        ("200.00", "230.00", "30.00")
    assert (body["status"], body["explained"], body["reason"]) == ("unexplained", False, "")
    assert account("drop_variance", table).posted == 3_000
    assert account("drop_box", table).posted == 0
    listed = auditor_client.get(f"/api/v1/drop-counts?exceptions=true&gaming_day={day}")
    assert [(c["id"], c["status"]) for c in listed.json()["results"]] == \
        [(body["id"], "unexplained")]
    explain = f"/api/v1/drop-counts/{body['id']}/explain"

    # an auditor reads but does not explain; a reason is words
    assert auditor_client.post(explain, {"reason": "x"}, format="json").status_code == 403
    empty = pit_boss_client.post(explain, {"reason": "  "}, format="json")
    assert empty.status_code == 400, empty.json()
    assert DropCount.objects.get(pk=body["id"]).status == "unexplained"

    explained = pit_boss_client.post(explain, {"reason": "A late buy-in of 30.00 "
                                               "was not keyed"}, format="json")

    assert explained.status_code == 200, explained.json()
    shown = explained.json()
    assert (shown["status"], shown["explained"]) == ("explained", True)
    assert shown["explained_by"] != shown["counted_by"] and shown["explained_at"]
    assert account("drop_variance", table).posted == 3_000     # nothing moves again
    again = pit_boss_client.post(explain, {"reason": "again"}, format="json")
    assert again.status_code == 409 and again.json()["error"]["code"] == "nothing_to_explain"


def test_one_count_per_table_and_day(cage_client, staff_client, witness, wendy, table):
    day = gaming_day_of()
    first = count(cage_client, table, day, "0.00", witness.username)

    # while it awaits its witness, and once posted
    waiting = count(staff_client(roles.COUNT), table, day, "0.00", witness.username,
                    expect=409)
    confirm(wendy, first)
    again = count(cage_client, table, day, "0.00", witness.username, expect=409)

    assert waiting["error"]["code"] == "awaiting_witness"
    assert "awaits its witness, wendy" in waiting["error"]["message"]
    assert again["error"]["code"] == "already_counted"
    assert DropCount.objects.count() == 1


@pytest.mark.parametrize("who", ["self", "nobody", "dealer", "inactive"])
def test_the_witness_is_another_active_person_who_may_count_or_witness(
        cage_client, staff_client, table, who):
    names = {"self": cage_client.user.username, "nobody": "nobody"}
    if who == "dealer":
        names[who] = staff_client(roles.DEALER).user.username
    if who == "inactive":
        user = staff_client(roles.COUNT).user
        user.is_active = False
        user.save()
        names[who] = user.username

    body = count(cage_client, table, gaming_day_of(), "0.00", names[who], expect=400)

    assert body["error"]["code"] == "invalid_witness"
    assert not DropCount.objects.exists()


def test_a_dealer_does_not_count_and_a_day_to_come_is_not_counted(
        dealer_client, cage_client, witness, table):
    day = gaming_day_of()
    assert count(dealer_client, table, day, "0.00", witness.username, expect=403)
    tomorrow = day.replace(year=day.year + 1)
    assert count(cage_client, table, tomorrow, "0.00", witness.username,
                 expect=400)["error"]["code"] == "gaming_day_not_begun"


def test_a_pit_boss_corrects_a_wrong_count_by_reversing_it_and_counting_again(
        dealer_client, cage_client, pit_boss_client, witness, wendy, table, seat_player):
    seat_player(table, 1, funds=0)
    buy_in(dealer_client, table, 1, "100.00")
    day = gaming_day_of()
    wrong = count(cage_client, table, day, "90.00", witness.username, reason="short",
                  confirmed_by=wendy)

    response = pit_boss_client.post(f"/api/v1/drop-counts/{wrong['id']}/correct",
                                    {"counted": "100.00", "witness": witness.username,
                                     "reason": "a bundle miscounted"}, format="json")

    # the wrong count is reversed; the recount awaits its witness, nothing of it posted
    assert response.status_code == 201, response.json()
    recount = response.json()
    assert (recount["status"], recount["corrects"], recount["note"]) == \
        ("awaiting_witness", wrong["id"], "a bundle miscounted")
    assert account("drop_box", table).posted == -10_000
    assert account("drop_variance", table).posted == 0
    assert confirm(pit_boss_client, recount, expect=403)["error"]["code"] == \
        "not_the_witness"

    body = confirm(wendy, recount)

    assert (body["variance"], body["corrects"], body["status"]) == ("0.00", wrong["id"],
                                                                   "balanced")
    assert DropCount.objects.get(pk=wrong["id"]).status == "corrected"
    assert account("drop_box", table).posted == 0
    assert account("drop_variance", table).posted == 0
    cage_total = Line.objects.filter(account__kind="cage", entry__kind__in=[
        "drop_count", "reversal"]).aggregate(total=Sum("amount"))["total"]
    assert cage_total == -10_000
    assert player_balance(table.seats.get(number=1).player).available == 10_000


def test_buy_ins_counts_and_corrections_run_as_the_runtime_role(
        as_runtime_role, dealer_client, cage_client, pit_boss_client, witness, wendy, table,
        seat_player, capsys):
    from django.core.management import call_command
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone() == (as_runtime_role,)
    seat_player(table, 1, funds=0)
    buy_in(dealer_client, table, 1, "100.00")
    wrong = count(cage_client, table, gaming_day_of(), "90.00", witness.username,
                  reason="short", confirmed_by=wendy)
    wendy.post(f"/api/v1/drop-counts/{wrong['id']}/explain", {"reason": "a note torn"},
               format="json")

    corrected = pit_boss_client.post(f"/api/v1/drop-counts/{wrong['id']}/correct",
                                     {"counted": "100.00", "witness": witness.username,
                                      "reason": "recounted"}, format="json")

    assert corrected.status_code == 201, corrected.json()
    assert confirm(wendy, corrected.json())["status"] == "balanced"
    refused = count(cage_client, table, gaming_day_of(), "1.00", "wendy", expect=409)
    assert refused["error"]["code"] == "already_counted"
    call_command("ledger_verify")
    assert capsys.readouterr().out.startswith("OK: ")


@pytest.mark.django_db(transaction=True)
def test_two_counters_at_once_record_one_count_and_a_buy_in_waits_for_it(table,
                                                                          seat_player):
    import threading

    from django.db import connections

    from casino.shared.errors import Conflict
    from rounds.services.drop import buy_in_take, drop_count_confirm, drop_count_record

    # given a buy-in of 100.00 recorded, two count-room staff and a witness
    dealer, _ = staff_create(username="dora", role=roles.DEALER)
    counters = [staff_create(username=f"c{n}", role=roles.COUNT)[0] for n in (1, 2)]
    wendy, _ = staff_create(username="wendy", role=roles.COUNT)
    seat_player(table, 1, funds=0)
    buy_in_take(table_id=table.pk, seat=1, amount=10_000, by=dealer)
    day = gaming_day_of()

    # when both count the box at once while the dealer takes another 50.00
    start = threading.Barrier(3)
    done: list[object] = []

    def run(job: Callable[[], object]) -> None:
        try:
            start.wait()
            done.append(job())
        except BaseException as exc:  # collected and asserted below
            done.append(exc)
        finally:
            connections.close_all()

    def count_as(counter: Any) -> Callable[[], object]:
        return lambda: drop_count_record(table_id=table.pk, gaming_day=day, counted=10_000,
                                         witness="wendy", note="late buy-in", by=counter)

    jobs = [count_as(c) for c in counters]
    jobs.append(lambda: buy_in_take(table_id=table.pk, seat=1, amount=5_000, by=dealer))
    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)

    # then one count awaits its witness and one counter is refused; the buy-in and the
    # count take the table's lock one after the other: the buy-in came first, or after the
    # count and was refused (the box being counted takes no more cash today)
    assert len(done) == 3
    assert not [d for d in done if isinstance(d, BaseException) and not isinstance(d, Conflict)]
    refusals = sorted(d.code for d in done if isinstance(d, Conflict))
    (counted,) = DropCount.objects.all()
    buy_ins = Entry.objects.filter(kind="buy_in").count()
    assert counted.status == "awaiting_witness" and counted.recorded is None
    # and when the witness confirms, "recorded" is read then: every buy-in taken
    counted = drop_count_confirm(count_id=counted.pk, by=wendy)
    if buy_ins == 2:
        assert (refusals, counted.recorded) == (["awaiting_witness"], 15_000)
    else:
        assert (refusals, counted.recorded) == (["awaiting_witness", "drop_counted"], 10_000)
    assert counted.recorded is not None
    assert counted.variance == 10_000 - counted.recorded


@pytest.mark.parametrize(("fields", "constraint"), [
    ({"witnessed_at": None}, "drop_count_posted_when_witnessed"),
    ({"status": "awaiting_witness", "witnessed_at": None},
     "drop_count_posted_when_witnessed"),
    ({"status": "refused", "recorded": None, "variance": None, "witnessed_at": None,
      "reason": "not seen"}, "drop_count_posted_when_witnessed"),
    ({"status": "awaiting_witness", "recorded": None, "variance": None,
      "witnessed_at": None, "reason": "x"}, "drop_count_status_follows_variance"),
    ({"status": "refused", "recorded": None, "variance": None},
     "drop_count_status_follows_variance"),
    ({"variance": 5, "status": "explained", "reason": "x"},
     "drop_count_variance_is_counted_minus_recorded"),
    ({"counted": -1, "variance": -1, "status": "explained", "reason": "x"},
     "drop_count_counted_not_negative"),
    ({"counted": 10, "variance": 10, "status": "explained"},
     "drop_count_status_follows_variance"),
    ({"counted": 10, "variance": 10, "status": "balanced", "reason": "x"},
     "drop_count_status_follows_variance"),
    ({"counted": 10, "variance": 10, "status": "unexplained", "reason": "x"},
     "drop_count_status_follows_variance"),
    ({"counted": 10, "variance": 10, "status": "explained", "reason": "x",
      "explained_at": None}, "drop_count_status_follows_variance"),
    ({"same_witness": True}, "drop_count_witness_is_another_person"),
])
def test_postgresql_refuses_a_drop_count_the_service_would_never_write(table, witness,
                                                                        fields, constraint):
    from django.db import IntegrityError, transaction
    from django.utils import timezone

    counter = witness if fields.pop("same_witness", False) else \
        staff_create(username="carl", role=roles.COUNT)[0]
    row = {"table": table, "gaming_day": gaming_day_of(), "currency": "EUR", "recorded": 0,
           "counted": 0, "variance": 0, "status": "balanced", "counted_by": counter,
           "witness": witness, "counted_at": timezone.now(), "witnessed_at": timezone.now(),
           # an explained count says when it was explained, unless the case is its absence
           "explained_at": timezone.now() if fields.get("status") == "explained" else None,
           **fields}

    with pytest.raises(IntegrityError, match=constraint), transaction.atomic():
        DropCount.objects.create(**row)


# --- a buy-in is cash in for the player's day (docs/rules.md, "Cash at the cage and the tables")

def test_a_buy_in_past_the_identity_line_is_refused_and_one_under_it_counts_as_cash_in(
        dealer_client, cage_client, table, seat_player):
    player = seat_player(table, 2, funds=0, identity=False)
    buy_in(dealer_client, table, 2, "1500.00")
    before = (Entry.objects.count(), available(player))

    # 1,500.00 + 600.00 would bring the day's cash in to 2,100.00, past 2,000.00
    refused = buy_in(dealer_client, table, 2, "600.00", expect=409)

    assert refused["error"]["code"] == "identity_required"
    assert "2,000.00" in refused["error"]["message"]
    assert (Entry.objects.count(), available(player)) == before
    seen = cage_client.get(f"/api/v1/players/{player.pk}").json()
    assert (seen["cash_in"], seen["identity_on_file"]) == ("1500.00", False)


def test_buy_ins_past_the_report_line_make_a_cash_transaction_report(
        dealer_client, auditor_client, table, seat_player, settings):
    settings.CASINO_BUY_IN_APPROVAL_ABOVE = "100000.00"   # the buy-in line aside
    player = seat_player(table, 2, funds=0)   # with an identity on file
    first = buy_in(dealer_client, table, 2, "6000.00")
    second = buy_in(dealer_client, table, 2, "4500.00")

    day = gaming_day_of()
    logged = auditor_client.get(f"/api/v1/cash-log?gaming_day={day}").json()
    reports = auditor_client.get(f"/api/v1/cash-reports?gaming_day={day}").json()

    rows = logged["results"] if isinstance(logged, dict) else logged
    assert {row["entry"] for row in rows} >= {first["id"], second["id"]}
    items = reports["results"] if isinstance(reports, dict) else reports
    (report,) = [r for r in items if r["player"] == player.pk]
    assert (report["cash_in"], report["cash_out"]) == ("10500.00", "0.00")
    assert report["movements"] == [first["id"], second["id"]]


# --- what the review of the count found (docs/rules.md §13) ----------------------------------

def test_a_box_counted_today_takes_no_more_cash_today(dealer_client, cage_client, witness,
                                                       wendy, table, seat_player):
    player = seat_player(table, 1, funds=0)
    buy_in(dealer_client, table, 1, "100.00")
    body = count(cage_client, table, gaming_day_of(), "100.00", witness.username)
    before = (Entry.objects.count(), available(player))

    # while the count awaits its witness, and once it is posted
    waiting = buy_in(dealer_client, table, 1, "50.00", expect=409)
    confirm(wendy, body)
    refused = buy_in(dealer_client, table, 1, "50.00", expect=409)

    assert waiting["error"]["code"] == refused["error"]["code"] == "drop_counted"
    before = (before[0] + 1, before[1])   # the count's own entry
    assert (Entry.objects.count(), available(player)) == before
    assert account("drop_box", table).posted == 0     # the box holds nothing uncounted


def test_a_day_before_the_table_opened_has_no_box_to_count(cage_client, witness, table):
    refused = count(cage_client, table, "1900-01-01", "10.00", witness.username, expect=400)

    assert refused["error"]["code"] == "before_the_table"
    assert not DropCount.objects.exists()
    assert not Entry.objects.filter(kind__in=["drop_count", "drop_variance"]).exists()


def test_the_buy_in_form_sent_twice_credits_the_player_once(table, seat_player):
    from django.test import Client

    from tests.rounds.test_drop_screens import _client

    player = seat_player(table, 1, funds=0)
    dealer: Client = _client(roles.DEALER, "dora")
    form = {"seat": "1", "amount": "250", "once": "a1b2c3d4e5f61"}

    first = dealer.post(f"/tables/{table.pk}/buy-ins/", form, follow=True)
    again = dealer.post(f"/tables/{table.pk}/buy-ins/", form, follow=True)

    assert first.status_code == again.status_code == 200
    assert Entry.objects.filter(kind="buy_in").count() == 1
    assert available(player) == 25_000


def test_a_buy_in_in_error_is_corrected_through_its_own_door_and_the_cash_rules_follow(
        dealer_client, pit_boss_client, cage_client, auditor_client, witness, table,
        seat_player, settings):
    settings.CASINO_BUY_IN_APPROVAL_ABOVE = "100000.00"   # the buy-in line aside
    player = seat_player(table, 1, funds=0)   # with an identity on file
    wrong = buy_in(dealer_client, table, 1, "12000.00")      # meant 1,200.00
    day = gaming_day_of()
    assert [r["cash_in"] for r in auditor_client.get(
        f"/api/v1/cash-reports?gaming_day={day}").json()] == ["12000.00"]

    # the ledger's own reversal is not the way: the buy-in belongs to its flow
    generic = pit_boss_client.post(f"/api/v1/ledger/entries/{wrong['id']}/reverse",
                                   {"reason": "typo"}, format="json")
    assert generic.status_code == 409 and generic.json()["error"]["code"] == "owned_entry"
    # a dealer may not correct it
    assert dealer_client.post(f"/api/v1/buy-ins/{wrong['id']}/correct", {"reason": "typo"},
                              format="json").status_code == 403

    fixed = pit_boss_client.post(f"/api/v1/buy-ins/{wrong['id']}/correct",
                                 {"reason": "12,000.00 keyed for 1,200.00"}, format="json")

    assert fixed.status_code == 201, fixed.json()
    assert fixed.json()["entry"] == wrong["id"]
    assert available(player) == 0 and account("drop_box", table).posted == 0
    assert cage_client.get(f"/api/v1/players/{player.pk}").json()["cash_in"] == "0.00"
    (report,) = auditor_client.get(f"/api/v1/cash-reports?gaming_day={day}").json()
    assert report["cash_in"] == "0.00"
    again = pit_boss_client.post(f"/api/v1/buy-ins/{wrong['id']}/correct",
                                 {"reason": "again"}, format="json")
    assert again.status_code == 409


def test_a_buy_in_of_a_counted_day_is_corrected_by_correcting_the_count(
        dealer_client, pit_boss_client, cage_client, witness, table, seat_player):
    seat_player(table, 1, funds=0)
    taken = buy_in(dealer_client, table, 1, "100.00")
    count(cage_client, table, gaming_day_of(), "100.00", witness.username)

    refused = pit_boss_client.post(f"/api/v1/buy-ins/{taken['id']}/correct",
                                   {"reason": "late"}, format="json")

    assert refused.status_code == 409 and refused.json()["error"]["code"] == "drop_counted"
    assert not Entry.objects.filter(reverses_id=taken["id"]).exists()


# --- under dual control, a correction waits for a second pit boss ----------------------------

@pytest.fixture
def second_pit_boss(staff_client):
    return staff_client(roles.PIT_BOSS)


def _money_and_counts(table):
    return (Entry.objects.count(), account("drop_box", table).posted,
            list(DropCount.objects.order_by("pk").values_list("status", flat=True)))


@override_settings(CASINO_DUAL_CONTROL=True)
def test_a_buy_in_correction_waits_for_a_second_pit_boss_who_approves_it_by_the_api(
        dealer_client, pit_boss_client, second_pit_boss, table, seat_player):
    player = seat_player(table, 1, funds=0)
    wrong = buy_in(dealer_client, table, 1, "120.00")
    before = _money_and_counts(table)

    asked = pit_boss_client.post(f"/api/v1/buy-ins/{wrong['id']}/correct",
                                 {"reason": "120.00 keyed for 12.00"}, format="json")

    # then a request, and nothing moved
    assert asked.status_code == 202, asked.json()
    request = asked.json()
    assert (request["action"], request["status"]) == ("rounds.buy_in_correct", "pending")
    assert request["summary"] == (f"Correct the buy-in of 120.00 EUR by {player.name} at "
                                  f"{table.name}, seat 1 (entry #{wrong['id']}): 120.00 "
                                  "keyed for 12.00")
    assert _money_and_counts(table) == before
    # the one who asked does not decide it
    own = pit_boss_client.post(f"/api/v1/approvals/{request['id']}/approve")
    assert own.status_code == 403 and own.json()["error"]["code"] == "own_request"

    # when a second pit boss approves it with their own credentials, it is corrected
    approved = second_pit_boss.post(f"/api/v1/approvals/{request['id']}/approve")
    assert approved.status_code == 200, approved.json()
    reversal = Entry.objects.get(reverses_id=wrong["id"])
    assert approved.json()["result_ref"] == f"entry:{reversal.pk}"
    assert reversal.created_by == pit_boss_client.user
    assert available(player) == 0 and account("drop_box", table).posted == 0


@override_settings(CASINO_DUAL_CONTROL=True)
def test_a_drop_count_correction_waits_for_a_second_pit_boss_on_the_approvals_page(
        dealer_client, cage_client, pit_boss_client, second_pit_boss, witness, wendy, table,
        seat_player):
    from django.test import Client

    seat_player(table, 1, funds=0)
    buy_in(dealer_client, table, 1, "100.00")
    wrong = count(cage_client, table, gaming_day_of(), "90.00", witness.username,
                  reason="short", confirmed_by=wendy)
    before = _money_and_counts(table)

    asked = pit_boss_client.post(f"/api/v1/drop-counts/{wrong['id']}/correct",
                                 {"counted": "100.00", "witness": witness.username,
                                  "reason": "a bundle miscounted"}, format="json")

    assert asked.status_code == 202, asked.json()
    request = asked.json()
    assert request["params"] == {"count_id": wrong["id"], "counted": "100.00",
                                 "currency": "EUR", "witness": witness.username,
                                 "reason": "a bundle miscounted"}
    assert _money_and_counts(table) == before
    # while it waits, the count is not explained around it
    explained = wendy.post(f"/api/v1/drop-counts/{wrong['id']}/explain",
                           {"reason": "a tip"}, format="json")
    assert explained.status_code == 409
    assert explained.json()["error"]["code"] == "approval_pending"

    # when the second pit boss approves it on the console's Approvals page
    page = Client()
    page.force_login(second_pit_boss.user)
    listed = page.get("/approvals/").content.decode()
    assert (f"Correct the drop count of {table.name} for gaming day {gaming_day_of()} "
            f"(#{wrong['id']}) to 100.00 EUR") in listed
    decided = page.post(f"/approvals/{request['id']}/decide/", {"decision": "approve"},
                        follow=True)

    # then the count is corrected, in the asker's name, and the recount awaits its witness
    assert decided.status_code == 200
    assert "is approved" in decided.content.decode()
    assert DropCount.objects.get(pk=wrong["id"]).status == "corrected"
    recount = DropCount.objects.get(corrects_id=wrong["id"])
    assert (recount.counted, recount.status, recount.counted_by) == (
        10_000, "awaiting_witness", pit_boss_client.user)
    assert account("drop_box", table).posted == -10_000
    assert confirm(wendy, {"id": recount.pk})["status"] == "balanced"
    assert account("drop_box", table).posted == 0


@pytest.mark.django_db(transaction=True)
def test_a_witness_who_confirms_twice_at_once_posts_the_count_once(table, seat_player):
    import threading

    from django.db import connections

    from casino.shared.errors import Conflict
    from rounds.services.drop import (
        buy_in_take,
        drop_count_confirm,
        drop_count_record,
        drop_count_refuse,
    )

    # given a count of 100.00 awaiting wendy
    dealer, _ = staff_create(username="dora", role=roles.DEALER)
    counter, _ = staff_create(username="carl", role=roles.COUNT)
    wendy, _ = staff_create(username="wendy", role=roles.COUNT)
    seat_player(table, 1, funds=0)
    buy_in_take(table_id=table.pk, seat=1, amount=10_000, by=dealer)
    waiting = drop_count_record(table_id=table.pk, gaming_day=gaming_day_of(), counted=9_000,
                                witness="wendy", by=counter)

    # when she confirms it from two tabs while a third refuses it
    start = threading.Barrier(3)
    done: list[object] = []

    def run(job: Callable[[], object]) -> None:
        try:
            start.wait()
            done.append(job())
        except BaseException as exc:  # collected and asserted below
            done.append(exc)
        finally:
            connections.close_all()

    jobs: list[Callable[[], object]] = [
        lambda: drop_count_confirm(count_id=waiting.pk, by=wendy),
        lambda: drop_count_confirm(count_id=waiting.pk, by=wendy),
        lambda: drop_count_refuse(count_id=waiting.pk, reason="not seen", by=wendy)]
    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)

    # then one of them decided it and the others found it decided: posted once, or not at all
    assert len(done) == 3
    refused = [d for d in done if isinstance(d, Conflict)]
    assert [d.code for d in refused] == ["not_awaiting_witness"] * 2, done
    count = DropCount.objects.get()
    posted = Entry.objects.filter(kind__in=["drop_count", "drop_variance"]).count()
    if count.status == "refused":
        assert posted == 0 and account("drop_box", table).posted == -10_000
    else:
        assert (count.status, count.variance, posted) == ("unexplained", -1_000, 2)
        assert account("drop_box", table).posted == 0
