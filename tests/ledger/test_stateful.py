"""A Hypothesis state machine drives the ledger against a model small enough to trust.

Random deposits, withdrawals, holds, captures, releases and reversals; after every step the
database must agree with the model: every balance, a zero sum over all accounts, no player
below zero, every deferred check passing, and refused operations changing nothing.
"""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Sum
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    multiple,
    rule,
    run_state_machine_as_test,
)

from casino.shared.errors import Conflict
from ledger.models import Account, Entry, Hold
from ledger.selectors import account_balance
from ledger.services import (
    account_get_or_create,
    entry_post,
    entry_reverse,
    hold_capture,
    hold_place,
    hold_release,
)
from ledger.verify import ledger_verify

_runs = itertools.count(1)
amounts = st.integers(min_value=1, max_value=20_000)


class LedgerMachine(RuleBasedStateMachine):
    pit_boss: User  # set by run_machine: the user allowed to reverse

    entries = Bundle("entries")
    holds = Bundle("holds")

    def __init__(self) -> None:
        super().__init__()
        # Each run in a savepoint of the test's transaction, rolled back in teardown().
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        run = next(_runs)
        self.cage = account_get_or_create(kind="cage", currency="EUR")
        self.table = account_get_or_create(kind="table_bankroll", currency="EUR",
                                           ref=f"table:sm{run}")
        self.players = [account_get_or_create(kind="player", currency="EUR",
                                              ref=f"player:sm{run}-{i}") for i in range(3)]
        self.posted = {a.pk: 0 for a in (self.cage, self.table, *self.players)}
        self.held = dict.fromkeys(self.posted, 0)
        self.open_holds: dict[int, tuple[int, int]] = {}  # hold id -> (account id, amount)
        self.lines: dict[int, list[tuple[int, int]]] = {}  # entry id -> its lines
        self.reversed: set[int] = set()
        # Refused by entry_reverse: the cage's movements (corrected at the cage) and
        # reversals (never reversed).
        self.not_reversible: set[int] = set()

    def teardown(self) -> None:
        report = ledger_verify()
        assert report.ok, report.problems
        transaction.set_rollback(True)
        self.atomic.__exit__(None, None, None)

    # --- the model -------------------------------------------------------------------------
    def available(self, account_id: int) -> int:
        return self.posted[account_id] - self.held[account_id]

    def may_debit(self, changes: list[tuple[int, int]]) -> bool:
        for account_id, amount in changes:
            is_player = account_id not in (self.cage.pk, self.table.pk)
            if is_player and amount < 0 and self.available(account_id) + amount < 0:
                return False
        return True

    def apply(self, entry: Entry, changes: list[tuple[int, int]]) -> int:
        for account_id, amount in changes:
            self.posted[account_id] += amount
        self.lines[entry.pk] = changes
        return entry.pk

    def refused_changes_nothing(self, operation) -> None:
        counts = (Entry.objects.count(), Hold.objects.filter(status="open").count())
        with pytest.raises(Conflict):
            operation()
        assert (Entry.objects.count(), Hold.objects.filter(status="open").count()) == counts

    # --- rules -----------------------------------------------------------------------------
    @rule(target=entries, player=st.integers(0, 2), amount=amounts)
    def deposit(self, player: int, amount: int):
        changes = [(self.cage.pk, -amount), (self.players[player].pk, amount)]
        entry = entry_post(kind="deposit", memo="", lines=changes, by=None)
        self.not_reversible.add(entry.pk)
        return self.apply(entry, changes)

    @rule(target=entries, player=st.integers(0, 2), amount=amounts)
    def withdraw(self, player: int, amount: int):
        changes = [(self.players[player].pk, -amount), (self.cage.pk, amount)]
        post = lambda: entry_post(kind="withdrawal", memo="", lines=changes, by=None)  # noqa: E731
        if not self.may_debit(changes):
            self.refused_changes_nothing(post)
            return multiple()
        entry = post()
        self.not_reversible.add(entry.pk)
        return self.apply(entry, changes)

    @rule(target=holds, player=st.integers(0, 2), amount=amounts)
    def place_hold(self, player: int, amount: int):
        account_id = self.players[player].pk
        place = lambda: hold_place(account_id=account_id, amount=amount, by=None)  # noqa: E731
        if self.available(account_id) < amount:
            self.refused_changes_nothing(place)
            return multiple()
        hold = place()
        self.held[account_id] += amount
        self.open_holds[hold.pk] = (account_id, amount)
        return hold.pk

    @rule(target=entries, hold=holds, share=st.floats(0.01, 1.0))
    def capture(self, hold: int, share: float):
        if hold not in self.open_holds:
            self.refused_changes_nothing(lambda: hold_capture(
                hold_id=hold, amount=1, to_account_id=self.table.pk, by=None))
            return multiple()
        account_id, held = self.open_holds.pop(hold)
        amount = max(1, int(held * share))
        entry = hold_capture(hold_id=hold, amount=amount, to_account_id=self.table.pk, by=None)
        self.held[account_id] -= held
        return self.apply(entry, [(account_id, -amount), (self.table.pk, amount)])

    @rule(hold=holds)
    def release(self, hold: int):
        if hold not in self.open_holds:
            self.refused_changes_nothing(lambda: hold_release(hold_id=hold, by=None))
            return
        account_id, held = self.open_holds.pop(hold)
        hold_release(hold_id=hold, by=None)
        self.held[account_id] -= held

    @rule(target=entries, player=st.integers(0, 2), amount=amounts, lose=st.booleans())
    def wager_settled_with_its_hold(self, player: int, amount: int, lose: bool):
        """A round in one step: hold the wager, then settle it with the entry that pays."""
        account_id = self.players[player].pk
        if self.available(account_id) < amount:
            return multiple()
        hold = hold_place(account_id=account_id, amount=amount, by=None)
        sign = -1 if lose else 1
        changes = [(account_id, sign * amount), (self.table.pk, -sign * amount)]
        entry = entry_post(kind="settlement", memo="", lines=changes, by=None,
                           settle_holds=[hold.pk])
        hold.refresh_from_db()
        assert hold.status == ("captured" if lose else "released")
        return self.apply(entry, changes)

    @rule(target=entries, entry=entries)
    def reverse(self, entry: int):
        changes = [(account_id, -amount) for account_id, amount in self.lines[entry]]
        reverse = lambda: entry_reverse(entry_id=entry, reason="test",  # noqa: E731
                                        by=self.pit_boss)
        if (entry in self.reversed or entry in self.not_reversible
                or not self.may_debit(changes)):
            self.refused_changes_nothing(reverse)
            return multiple()
        reversal = reverse()
        self.reversed.add(entry)
        self.not_reversible.add(reversal.pk)
        return self.apply(reversal, changes)

    # --- invariants ------------------------------------------------------------------------
    @invariant()
    def balances_match_the_model(self) -> None:
        for account in Account.objects.filter(pk__in=self.posted):
            assert (account.posted, account.held) == (self.posted[account.pk],
                                                      self.held[account.pk]), account
            balance = account_balance(account_id=account.pk)
            assert balance.available == self.available(account.pk)

    @invariant()
    def all_accounts_sum_to_zero(self) -> None:
        assert sum(self.posted.values()) == 0
        assert Account.objects.aggregate(total=Sum("posted"))["total"] in (0, None)

    @invariant()
    def no_player_is_below_zero(self) -> None:
        for player in self.players:
            assert self.available(player.pk) >= 0
        assert not Account.objects.filter(kind="player", posted__lt=0).exists()

    @invariant()
    def every_deferred_check_passes(self) -> None:
        # What COMMIT would run: each entry balanced, with two or more lines.
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def run_machine(pit_boss, examples: int, steps: int) -> None:
    LedgerMachine.pit_boss = pit_boss
    run_state_machine_as_test(LedgerMachine, settings=settings(
        max_examples=examples, stateful_step_count=steps, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))


def test_random_money_movements_always_agree_with_the_model(pit_boss):
    run_machine(pit_boss, examples=20, steps=25)


@pytest.mark.slow
def test_many_long_random_runs_always_agree_with_the_model(pit_boss):
    run_machine(pit_boss, examples=60, steps=40)
