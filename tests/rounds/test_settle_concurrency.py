"""Settlement under contention, against real PostgreSQL, and its cost in queries."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from casino import roles
from casino.services import staff_create
from casino.shared.errors import Conflict
from ledger.models import Entry, Hold
from rounds import services
from rounds.models import Round
from tests.round_trips import round_trips


@pytest.mark.django_db(transaction=True)
def test_concurrent_settle_calls_make_exactly_one_entry(table, seat_player):
    # given a dealt round at a full table
    dealer, _ = staff_create(username="d1", role=roles.DEALER)
    for n in range(1, 7):
        seat_player(table, n)
    round_ = services.round_open(table_id=table.pk, by=dealer)
    for n in range(1, 7):
        services.wager_place(round_id=round_.pk, seat=n, amount=1_000 * n, by=dealer)
    services.banker_set(round_id=round_.pk, house=True, by=dealer)
    outcomes = {str(n): ("win", "loss", "push")[n % 3] for n in range(1, 7)}

    # when eight clerks press settle at once
    start = threading.Barrier(8)
    errors: list[BaseException] = []

    def settle() -> None:
        try:
            start.wait()
            services.round_settle(round_id=round_.pk, by=dealer, outcomes=outcomes)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=settle) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)

    # then one entry, every hold resolved, the same settlement for everyone
    assert errors == []
    assert Entry.objects.filter(ref=f"round:{round_.pk}").count() == 1
    assert not Hold.objects.filter(ref=f"round:{round_.pk}", status="open").exists()
    assert Round.objects.get(pk=round_.pk).state == "settled"


WEAK_DEALER = "2S 3H 4D 6C 8S 9H JD"


def fixed_hands(seats: int) -> dict[str, str]:
    """The dealer gets a jack-high nothing; the seats get the best cards left, in deck
    order, so every seat wins and the settlement posts an entry whatever the seat count."""
    taken = set(WEAK_DEALER.split())
    rest = [c for c in (r + s for r in "AKQJT98765432" for s in "SHDC") if c not in taken]
    hands = {"dealer": WEAK_DEALER}
    for n in range(1, seats + 1):
        hands[str(n)] = " ".join(rest[(n - 1) * 7:n * 7])
    return hands


# Settling a house-banked round, whatever its number of seats, in plain ORM statements, each
# its own round trip: the service's savepoint (inside the test's transaction), the round
# locked with its table, its wagers, its hands, its parties' accounts, the entry posted with
# its holds resolved in one call (ledger_entry_post, in no savepoint of its own: a refusal
# rolls the settlement back whole), the hands' outcomes (one UPDATE), the parties' figures
# (one INSERT), the round, its event, and the release of the savepoint. The push table
# moves no money: its holds are released in one call (ledger_holds_release) instead.
SETTLE_QUERIES = 11
SETTLE_ROUND_TRIPS = 11
PUSH_SETTLE_QUERIES = 11


def settle_queries(table, seat_player, dealer, seats: int, splits=None) -> tuple[int, int]:
    """The statements and the round trips of one settlement at ``table``."""
    for n in range(1, seats + 1):
        seat_player(table, n)
    round_ = services.round_open(table_id=table.pk, by=dealer)
    for n in range(1, seats + 1):
        services.wager_place(round_id=round_.pk, seat=n, amount=500 * n, by=dealer)
    services.banker_set(round_id=round_.pk, house=True, by=dealer)
    if splits is None:
        services.round_deal(round_id=round_.pk, by=dealer, hands=fixed_hands(seats))
        for n in range(1, seats + 1):
            services.hand_set(round_id=round_.pk, position=str(n), house_way=True, by=dealer)
    else:
        hands = {p: f"{high} {low}" for p, (high, low) in splits.items() if p == "dealer"
                 or int(p) <= seats}
        services.round_deal(round_id=round_.pk, by=dealer, hands=hands)
        for n in range(1, seats + 1):
            high, low = splits[str(n)]
            services.hand_set(round_id=round_.pk, position=str(n), high=high, low=low,
                              by=dealer)
    with CaptureQueriesContext(connection) as queries, round_trips() as trips:
        services.round_settle(round_id=round_.pk, by=dealer)
    assert Round.objects.get(pk=round_.pk).state == "settled"
    return len(queries), trips.count


@pytest.mark.django_db
def test_settling_a_full_table_runs_as_many_queries_as_settling_one_seat(
    make_table, seat_player
):
    dealer, _ = staff_create(username="d2", role=roles.DEALER)
    one = settle_queries(make_table(name="One"), seat_player, dealer, seats=1)
    six = settle_queries(make_table(name="Six"), seat_player, dealer, seats=6)

    assert six == one, f"1 seat: {one}, 6 seats: {six} (statements, round trips)"
    # Pinned as figures: a change that adds a query or a wait to the hottest write shows.
    assert six == (SETTLE_QUERIES, SETTLE_ROUND_TRIPS), f"settle: {six}"


# The dealer's A K Q 8 6 4 2 sets A 8 6 4 2 / K Q by the house way; each seat holds a pair
# behind (beats ace high) and a low front (loses to K Q): every seat pushes.
PUSHES = {
    "dealer": ("AS KH QD 8C 6S", "4H 2D"),
    "1": ("3C 3D AH KS QS", "JS 2S"),
    "2": ("5C 5D AD KD QH", "JH 2H"),
    "3": ("7C 7D AC KC QC", "TS 2C"),
    "4": ("9C 9D 8S 6H 4S", "TH 3S"),
    "5": ("TC TD 8H 6D 4D", "9S 3H"),
    "6": ("JC JD 8D 6C 4C", "9H 5S"),
}


@pytest.mark.django_db
def test_a_table_of_pushes_settles_in_as_many_queries_for_one_seat_as_for_six(
    make_table, seat_player
):
    dealer, _ = staff_create(username="d3", role=roles.DEALER)
    one = settle_queries(make_table(name="One"), seat_player, dealer, 1, PUSHES)
    six = settle_queries(make_table(name="Six"), seat_player, dealer, 6, PUSHES)

    assert six == one, f"1 seat: {one}, 6 seats: {six} (statements, round trips)"
    assert six == (PUSH_SETTLE_QUERIES, SETTLE_ROUND_TRIPS), f"settle of pushes: {six}"
    assert not Entry.objects.filter(kind="round_settlement").exists()  # nothing moved
    assert not Hold.objects.filter(status="open").exists()


@pytest.mark.django_db
def test_a_refusal_by_the_ledger_rolls_the_settlement_back_and_the_callers_work_goes_on(
    make_table, seat_player
):
    # given a dealt round of two seats, every hand set, whose first wager's hold was
    # released behind the round's back (as the owner, every trigger off: no path of the
    # service can do this)
    dealer, _ = staff_create(username="d4", role=roles.DEALER)
    table = make_table(name="Tampered")
    for n in (1, 2):
        seat_player(table, n)
    round_ = services.round_open(table_id=table.pk, by=dealer)
    wagers = [services.wager_place(round_id=round_.pk, seat=n, amount=500, by=dealer)
              for n in (1, 2)]
    services.banker_set(round_id=round_.pk, house=True, by=dealer)
    services.round_deal(round_id=round_.pk, by=dealer, hands=fixed_hands(2))
    for n in (1, 2):
        services.hand_set(round_id=round_.pk, position=str(n), house_way=True, by=dealer)
    tampered = wagers[0].hold_id
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE ledger_hold SET status = 'released', resolved_at = now()"
                       " WHERE id = %s", [tampered])
        cursor.execute("SET LOCAL session_replication_role = origin")

    # when the dealer settles it inside a caller's transaction (the test's own)
    with pytest.raises(Conflict) as refused:
        services.round_settle(round_id=round_.pk, by=dealer)

    # then the ledger's refusal comes out as itself, nothing of the settlement is left, and
    # the caller's transaction still answers
    assert refused.value.code == "hold_resolved"
    assert refused.value.detail == {"hold_id": tampered, "status": "released"}
    settled = Round.objects.get(pk=round_.pk)
    assert settled.state == "dealt" and settled.entry_id is None
    assert not Entry.objects.filter(ref=f"round:{round_.pk}").exists()
    assert Hold.objects.get(pk=wagers[1].hold_id).status == "open"
    assert not settled.events.filter(kind="settled").exists()


@pytest.mark.django_db(transaction=True)
def test_two_tables_settle_without_waiting_for_each_other(make_table, seat_player):
    # given a dealt round at each of two tables, six seats each
    rounds = []
    for t in range(2):
        table = make_table()
        dealer, _ = staff_create(username=f"dealer{t}", role=roles.DEALER)
        for n in range(1, 7):
            seat_player(table, n, name=f"T{t} P{n}")
        round_ = services.round_open(table_id=table.pk, by=dealer)
        for n in range(1, 7):
            services.wager_place(round_id=round_.pk, seat=n, amount=1_000 * n, by=dealer)
        services.banker_set(round_id=round_.pk, house=True, by=dealer)
        rounds.append((round_, dealer))
    outcomes = {str(n): ("win", "loss", "push")[n % 3] for n in range(1, 7)}
    settled: list[str] = []
    errors: list[BaseException] = []

    def settle_second() -> None:
        (round_, dealer) = rounds[1]
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '1s'")
                services.round_settle(round_id=round_.pk, by=dealer, outcomes=outcomes)
            settled.append("second")
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            connections.close_all()

    # when the first table's settlement holds every row it locks, uncommitted, and the
    # second table settles meanwhile, allowed to wait one second for a lock
    with transaction.atomic():
        services.round_settle(round_id=rounds[0][0].pk, by=rounds[0][1], outcomes=outcomes)
        second = threading.Thread(target=settle_second)
        second.start()
        second.join(timeout=30)
        settled.append("first")

    # then the second settled without waiting: no row of the first's is one it needs
    assert errors == []
    assert settled == ["second", "first"]
    assert Round.objects.filter(state="settled").count() == 2
