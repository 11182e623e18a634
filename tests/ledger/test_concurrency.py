"""Threads against real PostgreSQL: hot accounts, every kind of movement, all at once.

Each thread has its own database connection (Django's are per thread) and commits each
movement on its own, as requests would. The only failures allowed are the ledger's refusals
(Conflict); a deadlock or any other database error fails the test.
"""

from __future__ import annotations

import random
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.db.models import Sum

from casino import roles
from casino.services import staff_create
from casino.shared.errors import Conflict
from ledger.models import Account, Entry, Hold
from ledger.services import (
    account_get_or_create,
    entry_post,
    entry_reverse,
    hold_capture,
    hold_place,
    hold_release,
)
from ledger.verify import ledger_verify


def one_movement(rng: random.Random, players: list[int], tables: list[int], cage: int,
                 boss, mine: list[int]) -> None:
    player, table = rng.choice(players), rng.choice(tables)
    amount = rng.randint(1, 5_000)
    choice = rng.randrange(8)
    if choice == 0:
        mine.append(entry_post(kind="deposit", memo="", by=None,
                               lines=[(cage, -amount), (player, amount)]).pk)
    elif choice == 1:
        mine.append(entry_post(kind="withdrawal", memo="", by=None,
                               lines=[(player, -amount), (cage, amount)]).pk)
    elif choice == 2:
        # Lines in random order over three hot accounts: locking must not depend on it.
        other = rng.choice([p for p in players if p != player])
        lines = [(player, -amount), (other, amount // 2), (table, amount - amount // 2)]
        rng.shuffle(lines)
        mine.append(entry_post(kind="split", memo="", by=None, lines=lines).pk)
    elif choice in (3, 4):
        hold = hold_place(account_id=player, amount=amount, by=None)
        if rng.random() < 0.5:
            mine.append(hold_capture(hold_id=hold.pk, amount=rng.randint(1, amount),
                                     to_account_id=table, by=None).pk)
        else:
            hold_release(hold_id=hold.pk, by=None)
    elif choice == 5:
        hold = hold_place(account_id=player, amount=amount, by=None)
        sign = rng.choice([-1, 1])
        mine.append(entry_post(kind="settlement", memo="", by=None, settle_holds=[hold.pk],
                               lines=[(player, sign * amount), (table, -sign * amount)]).pk)
    elif choice == 6 and mine:
        entry_reverse(entry_id=rng.choice(mine), reason="correction", by=boss)
    else:
        mine.append(entry_post(kind="payout", memo="", by=None,
                               lines=[(table, -amount), (player, amount)]).pk)


def hammer(threads: int, operations: int) -> tuple[list[BaseException], int]:
    boss_user, _ = staff_create(username=f"boss-{threads}-{operations}", role=roles.PIT_BOSS)
    cage = account_get_or_create(kind="cage", currency="EUR").pk
    players = [account_get_or_create(kind="player", currency="EUR", ref=f"player:hot{i}").pk
               for i in range(3)]
    tables = [account_get_or_create(kind="table_bankroll", currency="EUR",
                                    ref=f"table:hot{i}").pk for i in range(2)]
    for player in players:
        entry_post(kind="deposit", memo="", by=None, lines=[(cage, -20_000), (player, 20_000)])

    errors: list[BaseException] = []
    refusals = [0]
    start = threading.Barrier(threads)

    def work(seed: int) -> None:
        rng = random.Random(seed)
        mine: list[int] = []
        boss = get_user_model().objects.get(pk=boss_user.pk)
        try:
            start.wait()
            for _ in range(operations):
                try:
                    one_movement(rng, players, tables, cage, boss, mine)
                except Conflict:
                    refusals[0] += 1
        except BaseException as exc:  # a deadlock, or anything else unexpected
            errors.append(exc)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=work, args=(seed,)) for seed in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return errors, refusals[0]


def assert_ledger_sound() -> None:
    assert Account.objects.aggregate(total=Sum("posted"))["total"] == 0
    for account in Account.objects.filter(allow_negative=False):
        assert account.posted - account.held >= 0, account
    assert not Hold.objects.filter(status="open").exists()
    report = ledger_verify()
    assert report.ok, report.problems


@pytest.mark.django_db(transaction=True)
def test_eight_threads_on_hot_accounts_conserve_money_without_deadlocks():
    errors, refusals = hammer(threads=8, operations=50)

    assert errors == []
    assert Entry.objects.count() > 200 and refusals > 0  # both paths were exercised
    assert_ledger_sound()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_sixteen_threads_and_two_thousand_movements_conserve_money():
    errors, _ = hammer(threads=16, operations=150)

    assert errors == []
    assert_ledger_sound()
