"""Ledger fixtures: a small set of accounts and ways to fund them."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model

from casino import roles
from casino.services import staff_create
from ledger.models import Account
from ledger.services import account_get_or_create, entry_post

_refs = itertools.count(1)


@dataclass
class Book:
    """A cage, two players and a table bankroll, all in EUR."""

    cage: Account
    anna: Account
    bram: Account
    table: Account

    def fund(self, account: Account, amount: int) -> None:
        entry_post(kind="deposit", memo="test funds", lines=[(self.cage.pk, -amount),
                                                             (account.pk, amount)], by=None)


def make_book(currency: str = "EUR") -> Book:
    n = next(_refs)
    return Book(
        cage=account_get_or_create(kind="cage", currency=currency),
        anna=account_get_or_create(kind="player", currency=currency, ref=f"player:a{n}"),
        bram=account_get_or_create(kind="player", currency=currency, ref=f"player:b{n}"),
        table=account_get_or_create(kind="table_bankroll", currency=currency, ref=f"table:{n}"),
    )


@pytest.fixture
def book(db: None) -> Book:
    return make_book()


@pytest.fixture
def pit_boss(db: None):
    user, _ = staff_create(username=f"boss{next(_refs)}", role=roles.PIT_BOSS)
    return get_user_model().objects.get(pk=user.pk)  # fresh: no cached permissions


@pytest.fixture
def dealer(db: None):
    user, _ = staff_create(username=f"dealer{next(_refs)}", role=roles.DEALER)
    return user


def fresh(account: Account) -> Account:
    account.refresh_from_db()
    return account


def seal_everything(*, within: float = 120.0) -> int:
    """Run the sealer until every committed entry is sealed; returns the newest block.

    An entry is sealed only once every transaction begun before its own has ended, on the
    whole server: another test process's open transaction holds it back for a moment, so
    this tries again until ``within`` seconds have passed."""
    import time

    from django.db import connection

    from ledger.services import entries_seal

    deadline = time.monotonic() + within
    while True:
        last = entries_seal().last_block
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM ledger_entry e WHERE e.txid IS NOT NULL AND"
                           " (e.txid, e.id) > coalesce((SELECT (last_txid, last_entry_id)"
                           " FROM ledger_block WHERE last_txid IS NOT NULL ORDER BY n DESC"
                           " LIMIT 1), (0::bigint, 0::bigint))")
            (left,) = cursor.fetchone()
        if not left:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"{left} entries still unsealed after {within} s")
        time.sleep(0.2)
