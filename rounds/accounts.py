"""The ledger accounts a round moves money between, found by their plain references.

The ledger knows nothing of players or tables (STYLE: dependencies point one way): a
player's account carries ``player:<id>`` (casino.selectors.player_account_ref), and a
table's house bankroll and commission income carry ``table:<id>``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from casino.models import Player
from casino.selectors import player_account_ref
from casino.services import player_account_open
from ledger import services as ledger
from ledger.models import Account
from rounds.models import Table


def table_ref(table_id: int) -> str:
    return f"table:{table_id}"


def player_account(player: Player) -> Account:
    return player_account_open(player=player)


def player_accounts(player_ids: Iterable[int], currency: str) -> dict[int, Account]:
    """Players' accounts in one query (settlement's query count must not grow per seat)."""
    ids = list(player_ids)
    found = {a.ref: a for a in Account.objects.filter(
        kind="player", currency=currency, ref__in=[player_account_ref(i) for i in ids])}
    accounts = {}
    for player_id in ids:
        account = found.get(player_account_ref(player_id))
        if account is None:  # a wager was held on it, so it exists; this is only a guard
            account = player_account(Player.objects.get(pk=player_id))
        accounts[player_id] = account
    return accounts


class TableAccounts(NamedTuple):
    bankroll: Account     # the house's money at this table: it banks and stakes from it
    commission: Account   # commission the house earns at this table


def table_accounts(table: Table) -> TableAccounts:
    ref = table_ref(table.pk)
    found = {a.kind: a for a in Account.objects.filter(
        kind__in=["table_bankroll", "commission"], currency=table.currency, ref=ref)}
    bankroll = found.get("table_bankroll") or ledger.account_get_or_create(
        kind="table_bankroll", currency=table.currency, ref=ref, name=f"{table.name} bankroll")
    commission = found.get("commission") or ledger.account_get_or_create(
        kind="commission", currency=table.currency, ref=ref, name=f"{table.name} commission")
    return TableAccounts(bankroll=bankroll, commission=commission)
