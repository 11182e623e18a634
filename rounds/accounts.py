"""The ledger accounts a round moves money between, found by their plain references.

The ledger knows nothing of players or tables (STYLE: dependencies point one way): a
player's account carries ``player:<id>`` (casino.selectors.player_account_ref), and a
table's house bankroll and commission income carry ``table:<id>``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from django.db.models import Q, QuerySet

from casino.models import Player
from casino.selectors import player_account_ref
from casino.services import player_account_open
from ledger import services as ledger
from ledger.models import Account
from rounds.models import Round, Table, Wager
from rounds.settlement import Party

TABLE_REF = "table:"


def table_ref(table_id: int) -> str:
    return f"{TABLE_REF}{table_id}"


def player_account(player: Player) -> Account:
    """The player's account, found or opened now."""
    return player_account_open(player=player)


class TableAccounts(NamedTuple):
    bankroll: Account     # the house's money at this table: it banks and stakes from it
    commission: Account   # commission the house earns at this table
    collection: Account | None  # card-room collection fees (opened for card-room tables)


def table_accounts(table: Table) -> TableAccounts:
    ref = table_ref(table.pk)
    found = {a.kind: a for a in Account.objects.filter(
        kind__in=["table_bankroll", "commission", "collection"], currency=table.currency,
        ref=ref)}
    bankroll = found.get("table_bankroll") or ledger.account_get_or_create(
        kind="table_bankroll", currency=table.currency, ref=ref, name=f"{table.name} bankroll")
    commission = found.get("commission") or ledger.account_get_or_create(
        kind="commission", currency=table.currency, ref=ref, name=f"{table.name} commission")
    collection = found.get("collection")
    if collection is None and table.bank_mode == Table.BankMode.CARD_ROOM:
        collection = ledger.account_get_or_create(
            kind="collection", currency=table.currency, ref=ref,
            name=f"{table.name} collection")
    return TableAccounts(bankroll=bankroll, commission=commission, collection=collection)


def _players_of(round_: Round, wagers: Iterable[Wager]) -> set[int]:
    ids = {w.player_id for w in wagers}
    return ids | {p for p in (round_.banker_player_id, round_.third_party_id) if p is not None}


def party_accounts_query(round_: Round, wagers: Sequence[Wager]) -> QuerySet[Account]:
    """The accounts a round's settlement may move money between, by the accounts' unique
    key (kind, currency, ref): the table's, and those of its players."""
    players = _players_of(round_, wagers)
    return Account.objects.filter(
        Q(kind__in=[Account.Kind.TABLE_BANKROLL, Account.Kind.COMMISSION,
                    Account.Kind.COLLECTION], ref=table_ref(round_.table_id))
        | Q(kind=Account.Kind.PLAYER, ref__in=[player_account_ref(p) for p in players]),
        currency=round_.currency)


def settlement_accounts(round_: Round, wagers: Sequence[Wager]) -> dict[Party, int]:
    """The ledger account id of every party a round's settlement may move money between
    (rounds.settlement.Party): the one place a party becomes an account.

    The bank is the table's bankroll when the house banks, else the player-banker's
    account; the house (its stake, its half of a co-bank) is the bankroll; each seat is
    the account of the player who wagered there (who may have left the seat since). In a
    card room the third party is the proposition player's account and the collection the
    table's collection income; a proposition player banking alone has no BANK party.
    One read, by the accounts' unique key (kind, currency, ref)."""
    ref = table_ref(round_.table_id)
    found = {(kind, key): pk for kind, key, pk in
             party_accounts_query(round_, wagers).values_list("kind", "ref", "pk")}

    def player(player_id: int) -> int:
        account = found.get((Account.Kind.PLAYER, player_account_ref(player_id)))
        # A wager or the cover was held on it, so it exists; this is only a guard.
        return account if account is not None else \
            player_account(Player.objects.get(pk=player_id)).pk

    bankroll = found.get((Account.Kind.TABLE_BANKROLL, ref))
    commission = found.get((Account.Kind.COMMISSION, ref))
    collection = found.get((Account.Kind.COLLECTION, ref))
    card_room = round_.table_rules.card_room
    if bankroll is None or commission is None or (collection is None and card_room):
        # a table opened before its accounts were, or made a card room since
        table = table_accounts(round_.table)
        bankroll, commission = table.bankroll.pk, table.commission.pk
        collection = table.collection.pk if table.collection is not None else None
    parties = {Party.HOUSE: bankroll, Party.COMMISSION: commission}
    if collection is not None:
        parties[Party.COLLECTION] = collection
    if round_.banker_is_house:
        parties[Party.BANK] = bankroll
    elif round_.banker_player_id is not None:
        parties[Party.BANK] = player(round_.banker_player_id)
    if round_.third_party_id is not None:
        parties[Party.THIRD_PARTY] = player(round_.third_party_id)
    for wager in wagers:
        parties[Party.seat(wager.seat)] = player(wager.player_id)
    return parties


def drop_box_account(table: Table) -> Account:
    """The table's drop box: cash taken at the table, until the count moves it to the cage.
    A house-side account (it may go negative: its balance is the cash in the box, owed to
    the players' accounts it credited)."""
    return ledger.account_get_or_create(
        kind=Account.Kind.DROP_BOX, currency=table.currency, ref=table_ref(table.pk),
        name=f"{table.name} drop box")


def drop_variance_account(table: Table) -> Account:
    """What the table's drop counts found more (+) or less (-) than was recorded."""
    return ledger.account_get_or_create(
        kind=Account.Kind.DROP_VARIANCE, currency=table.currency, ref=table_ref(table.pk),
        name=f"{table.name} drop variance")
