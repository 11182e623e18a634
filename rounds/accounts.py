"""The ledger accounts a round moves money between, found by their plain references.

The ledger knows nothing of players or tables (STYLE: dependencies point one way): a
player's account carries ``player:<id>`` (casino.selectors.player_account_ref), and a
table's house bankroll and commission income carry ``table:<id>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from casino.models import Player
from casino.selectors import PLAYER_REF, player_account_ref
from casino.services import player_account_open
from casino.shared.db import SqlRead, SqlRows, columns
from ledger import services as ledger
from ledger.models import Account
from rounds.models import Round, Seat, Table, Wager
from rounds.settlement import Party

TABLE_REF = "table:"


def table_ref(table_id: int) -> str:
    return f"{TABLE_REF}{table_id}"


def player_account(player: Player, found: Sequence[Account] = ()) -> Account:
    """The player's account: ``found`` when a read brought it (SEATED_ACCOUNT), else
    found or opened now."""
    return found[0] if found else player_account_open(player=player)


# The account of the player in a seat of a round's table, in the player's currency
# (parameters: seated_account_params): to be sent with the round's and the seat's locks.
SEATED_ACCOUNT = SqlRead(
    Account, f'SELECT {columns(Account, "a")} FROM "{Seat._meta.db_table}" s '  # noqa: S608
    f'JOIN "{Player._meta.db_table}" p ON p.id = s.player_id '
    f'JOIN "{Account._meta.db_table}" a '
    "ON a.kind = %s AND a.currency = p.currency AND a.ref = %s || p.id "
    f'WHERE s.table_id = (SELECT r.table_id FROM "{Round._meta.db_table}" r WHERE r.id = %s) '
    "AND s.number = %s")


def seated_account_params(round_id: int, seat: int) -> tuple[Any, ...]:
    return (Account.Kind.PLAYER.value, PLAYER_REF, round_id, seat)


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


# The accounts settlement_accounts may need, found from the round's id alone, so that the
# settlement reads them in the round trip that takes its lock (rounds.services.settling):
# the table's, in the round's currency, and those of every player who wagered, banks or
# covers as the proposition player. Read after the lock, they are the locked round's. The
# (kind, ref) pairs are made first and each found by the accounts' unique key, whatever
# the number of accounts (a filter of OR and IN across the table read it whole).
PARTY_ACCOUNTS = SqlRows(
    Account, 'SELECT a."kind", a."ref", a."id" '  # noqa: S608
    f'FROM "{Round._meta.db_table}" r '
    "CROSS JOIN LATERAL ("
    "SELECT k.kind, %s || r.table_id AS ref FROM unnest(%s::text[]) k(kind) "
    f'UNION SELECT %s, %s || w.player_id FROM "{Wager._meta.db_table}" w '
    "WHERE w.round_id = r.id "
    "UNION SELECT %s, %s || p.id FROM unnest(ARRAY[r.banker_player_id, r.third_party_id]) "
    "p(id) WHERE p.id IS NOT NULL) k "
    f'JOIN "{Account._meta.db_table}" a '
    "ON a.kind = k.kind AND a.currency = r.currency AND a.ref = k.ref "
    "WHERE r.id = %s")


def party_accounts_params(round_id: int) -> tuple[Any, ...]:
    """PARTY_ACCOUNTS' parameters for the round ``round_id``."""
    table_kinds = [Account.Kind.TABLE_BANKROLL.value, Account.Kind.COMMISSION.value,
                   Account.Kind.COLLECTION.value]
    player = Account.Kind.PLAYER.value
    return (TABLE_REF, table_kinds, player, PLAYER_REF, player, PLAYER_REF, round_id)


def settlement_accounts(round_: Round, wagers: Sequence[Wager],
                        read: Sequence[tuple[str, str, int]]) -> dict[Party, int]:
    """The ledger account id of every party a round's settlement may move money between
    (rounds.settlement.Party): the one place a party becomes an account.

    The bank is the table's bankroll when the house banks, else the player-banker's
    account; the house (its stake, its half of a co-bank) is the bankroll; each seat is
    the account of the player who wagered there (who may have left the seat since). In a
    card room the third party is the proposition player's account and the collection the
    table's collection income; a proposition player banking alone has no BANK party.
    ``read``: PARTY_ACCOUNTS' rows for the round (kind, ref, id), read with its lock."""
    ref = table_ref(round_.table_id)
    found = {(kind, key): pk for kind, key, pk in read}

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
