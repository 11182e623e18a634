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
