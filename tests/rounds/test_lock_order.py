"""The lock order of rounds.services under real concurrency (issue finding 8): threads
against real PostgreSQL, each with its own connection, committing as requests would.

Two kinds of test for each path. One forces the dangerous interleaving: a third
transaction locks a row the first service needs, so it stops there with the rows it locked
so far still held; the rival is started once it waits, and the lock is released once the
rival waits too or is done. The other starts both services together many times at a
barrier.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection, connections, transaction
from django.db.models import Sum

from casino import roles
from casino.models import Player
from casino.selectors import player_account_ref
from casino.services import staff_create
from casino.shared.errors import DomainError
from ledger.models import Account, Entry, Hold, Line
from ledger.verify import ledger_verify
from rounds import services
from rounds.models import Round, RoundParty, Seat, Table, Wager

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 30


class Worker(threading.Thread):
    """Runs one service call on its own connection; keeps its backend pid and outcome."""

    def __init__(self, call: Callable[[], Any], start_together: threading.Barrier | None = None
                 ) -> None:
        super().__init__(daemon=True)
        self.call, self.start_together = call, start_together
        self.pid: int | None = None
        self.ready = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                self.pid = cursor.fetchone()[0]
            self.ready.set()
            if self.start_together is not None:
                self.start_together.wait(timeout=TIMEOUT)
            self.result = self.call()
        except BaseException as exc:  # asserted by the test
            self.error = exc
        finally:
            self.ready.set()
            connections.close_all()

    def finish(self) -> None:
        self.join(timeout=TIMEOUT)
        assert not self.is_alive(), "a service call did not finish"


def waits_for_a_lock(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row is not None and row[0] == "Lock"


def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.01)


def waits_or_is_done(worker: Worker) -> bool:
    return worker.ready.is_set() and (
        not worker.is_alive() or (worker.pid is not None and waits_for_a_lock(worker.pid)))


@contextmanager
def row_locked(table: str, pk: int) -> Iterator[None]:
    """Another transaction holds the row FOR UPDATE until the block ends."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE",
                               [pk])
                locked.set()
                release.wait(timeout=TIMEOUT)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert locked.wait(timeout=TIMEOUT)
    try:
        yield
    finally:
        release.set()
        holder.join(timeout=TIMEOUT)


def posted(player: Player) -> int:
    return Account.objects.get(kind="player", ref=player_account_ref(player.pk)).posted


def books_are_clean() -> None:
    assert not Hold.objects.filter(status="open").exists()
    sums = Line.objects.values("account__currency").annotate(total=Sum("amount"))
    assert all(row["total"] == 0 for row in sums), list(sums)
    report = ledger_verify()
    assert report.ok, report


# --- a results-only settlement: the banker's cover and the entry's accounts --------------------
# Two rounds whose players banked at each other's tables once deadlocked: a results-only
# settlement held the banker's cover (locking that account) before letting entry_post lock
# every account of the round in key order. A player now sits at one table at a time, so no
# two rounds share two players; what stays is the order itself: the settlement locks the
# union of the cover's and the entry's accounts first, in key order, and so never holds the
# banker's account while it waits for one that comes before it.

@pytest.fixture
def banked_tables(make_table, seat_player) -> tuple[Table, Table, Player, Player]:
    """Two results tables, each with a player banking against another's wager (the
    tables' accounts are older than the players', so they come first in key order)."""
    rules = {"bank_rotation": "open", "banker_must_have_played": False}
    one, two = make_table(name="One", **rules), make_table(name="Two", **rules)
    p = seat_player(one, 1, funds=1_000_000, name="P")
    q = seat_player(one, 2, funds=1_000_000, name="Q")
    seat_player(two, 1, funds=1_000_000, name="R")
    seat_player(two, 2, funds=1_000_000, name="S")
    return one, two, p, q


def banked_by_seat_1(table: Table, amount: int, by: Any) -> Round:
    round_ = services.round_open(table_id=table.pk, by=by)
    services.wager_place(round_id=round_.pk, seat=2, amount=amount, by=by)
    return services.banker_set(round_id=round_.pk, seat=1, by=by)


def banker_result(round_: Round) -> int:
    """What the round moved on its player-banker's account, as its settlement stored it."""
    return RoundParty.objects.get(round=round_, role=RoundParty.Role.PLAYER_BANKER).result


def row_is_locked(table: str, pk: int) -> bool:
    """Whether another transaction holds the row (asked from a connection of our own)."""
    found: list[bool] = []

    def ask() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE SKIP LOCKED",
                               [pk])
                found.append(cursor.fetchone() is None)
        finally:
            connections.close_all()

    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    asker.join(timeout=TIMEOUT)
    return found == [True]


def test_a_results_only_settlement_holds_no_cover_while_it_waits_for_an_earlier_account(
    banked_tables,
):
    # given P banks at table One against Q's wager
    one, _, p, q = banked_tables
    dealer, _ = staff_create(username="banked", role=roles.DEALER)
    first = banked_by_seat_1(one, 5_000, dealer)
    before = posted(p), posted(q)
    banker = Account.objects.get(kind="player", ref=player_account_ref(p.pk))

    # when its settlement waits for One's commission account (locked elsewhere), which
    # comes before the players' accounts in key order
    commission = Account.objects.get(kind="commission", ref=f"table:{one.pk}")
    assert commission.pk < banker.pk
    with row_locked("ledger_account", commission.pk):
        a = Worker(lambda: services.round_settle(round_id=first.pk, by=dealer,
                                                 outcomes={"2": "loss"}))
        a.start()
        until(lambda: waits_or_is_done(a), "One's settlement waits")
        assert a.is_alive()

        # then it has not locked the banker's account for the cover yet (before the fix it
        # had, and a settlement at another table needing it in the other order deadlocked)
        assert not row_is_locked("ledger_account", banker.pk)
    a.finish()

    # and once it may, it settles, the cover and the entry together
    assert a.error is None
    assert banker_result(first) == 5_000 - 250
    assert (posted(p), posted(q)) == (before[0] + 4_750, before[1] - 5_000)
    books_are_clean()


def test_many_results_only_settlements_at_two_tables_at_once(banked_tables):
    one, two, p, q = banked_tables
    dealer, _ = staff_create(username="banked", role=roles.DEALER)
    expected_p, expected_q = posted(p), posted(q)
    for n in range(15):
        # P's bank beats Q's wager at One; S's wager beats R's bank at Two
        at_one, at_two = 1_000 + 100 * n, 2_000 + 100 * n
        first, second = banked_by_seat_1(one, at_one, dealer), banked_by_seat_1(two, at_two,
                                                                                dealer)
        together = threading.Barrier(2)
        workers = [Worker(functools.partial(services.round_settle, round_id=r.pk, by=dealer,
                                            outcomes={"2": o}), together)
                   for r, o in ((first, "loss"), (second, "win"))]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.finish()
        assert [w.error for w in workers] == [None, None], n
        # 5% commission on the bank's win at One
        expected_p += at_one * 95 // 100
        expected_q -= at_one

    assert Round.objects.filter(state="settled").count() == 30
    assert Entry.objects.filter(kind="round_settlement").count() == 30
    assert (posted(p), posted(q)) == (expected_p, expected_q)
    books_are_clean()


# --- a seat's leaving against a wager or a bank being placed ---------------------------------

@pytest.fixture
def betting(make_table, seat_player) -> tuple[Table, Player, Round]:
    """A round in betting at a table where P sits at seat 1 (and another player at 2),
    and any seated player may bank."""
    table = make_table(bank_rotation="open", banker_must_have_played=False)
    dealer, _ = staff_create(username="betting", role=roles.DEALER)
    player = seat_player(table, 1, name="P")
    seat_player(table, 2, name="Other")
    round_ = services.round_open(table_id=table.pk, by=dealer)
    return table, player, round_


def seated(table: Table, number: int) -> int | None:
    return Seat.objects.get(table=table, number=number).player_id


def no_hold_for_a_player_who_left(table: Table, player: Player, round_: Round) -> None:
    """Either the player still sits there with their wager or bank, or they left and the
    round holds nothing of theirs and does not name them as banker."""
    round_.refresh_from_db()
    wagers = Wager.objects.filter(round=round_, player=player, state="active")
    holds = Hold.objects.filter(ref=f"round:{round_.pk}", status="open",
                                account__ref=player_account_ref(player.pk))
    if seated(table, 1) != player.pk:
        assert not wagers.exists() and not holds.exists()
        assert round_.banker_player_id != player.pk
    else:
        assert holds.count() == wagers.count()


@pytest.mark.parametrize("step", ["wager", "bank"])
def test_a_player_cannot_leave_while_their_wager_or_bank_is_being_placed(
    betting, pit_boss, step
):
    table, player, round_ = betting
    dealer = round_.opened_by

    def place() -> Any:
        if step == "wager":
            return services.wager_place(round_id=round_.pk, seat=1, amount=2_000, by=dealer)
        services.wager_place(round_id=round_.pk, seat=2, amount=2_000, by=pit_boss)
        return services.banker_set(round_id=round_.pk, seat=1, by=dealer)

    # given the wager (or bank) has read the seat and stopped at its commit (whose deferred
    # foreign key checks wait for the dealer's user row, locked elsewhere)
    with row_locked("auth_user", dealer.pk):
        placing = Worker(place)
        placing.start()
        until(lambda: waits_or_is_done(placing), "the placing waits")
        assert placing.is_alive(), placing.error
        # when the player leaves meanwhile
        leaving = Worker(lambda: services.seat_leave(table_id=table.pk, number=1,
                                                     by=pit_boss))
        leaving.start()
        until(lambda: waits_or_is_done(leaving), "the leaving waits or is done")
    placing.finish()
    leaving.finish()

    # then the leaving waited, saw the wager or bank, and was refused
    assert placing.error is None
    assert isinstance(leaving.error, DomainError) and leaving.error.code == "seat_unavailable"
    assert seated(table, 1) == player.pk
    no_hold_for_a_player_who_left(table, player, round_)


@pytest.mark.slow  # seconds of fuzzing, sampling or waiting: make test runs it
@pytest.mark.parametrize("step", ["wager", "bank"])
def test_leaving_and_placing_at_once_never_leave_a_hold_for_a_player_who_left(
    betting, pit_boss, step
):
    table, player, round_ = betting
    dealer = round_.opened_by
    services.wager_place(round_id=round_.pk, seat=2, amount=2_000, by=pit_boss)
    outcomes = set()
    for n in range(20):
        round_.refresh_from_db()
        if step == "bank" and round_.state == "banker_set":
            # the bank was placed: a new round to try again
            services.round_void(round_id=round_.pk, reason="again", by=pit_boss)
            round_ = services.round_open(table_id=table.pk, by=dealer)
            services.wager_place(round_id=round_.pk, seat=2, amount=2_000, by=pit_boss)
        if seated(table, 1) is None:
            services.seat_take(table_id=table.pk, number=1, player_id=player.pk, by=pit_boss)
        wager = round_.wagers.filter(seat=1, state="active").first()
        if wager is not None:
            services.wager_clear(round_id=round_.pk, seat=1, by=pit_boss)

        together = threading.Barrier(2)
        place: Callable[[], Any]
        if step == "wager":
            place = functools.partial(services.wager_place, round_id=round_.pk, seat=1,
                                      amount=2_000, by=dealer)
        else:
            place = functools.partial(services.banker_set, round_id=round_.pk, seat=1,
                                      by=dealer)
        placing = Worker(place, together)
        leaving = Worker(lambda: services.seat_leave(table_id=table.pk, number=1,
                                                     by=pit_boss), together)
        placing.start()
        leaving.start()
        placing.finish()
        leaving.finish()

        for worker in (placing, leaving):
            assert worker.error is None or isinstance(worker.error, DomainError), worker.error
        assert (placing.error is None) != (leaving.error is None), n  # exactly one wins
        outcomes.add("placed" if placing.error is None else "left")
        no_hold_for_a_player_who_left(table, player, round_)
    print(f"{step}: {sorted(outcomes)}")
