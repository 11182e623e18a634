"""The accounts a settlement reads with its lock (rounds.accounts.PARTY_ACCOUNTS): the same as
found by their keys one by one, and found by the accounts' unique key however many there are."""

from __future__ import annotations

import pytest
from django.db import connection

from casino.selectors import player_account_ref
from ledger import selectors as ledger_selectors
from ledger.models import Account
from rounds import accounts
from rounds.models import Round, Wager

pytestmark = pytest.mark.django_db


def _read(round_id: int) -> list:
    return accounts.PARTY_ACCOUNTS.all(*accounts.party_accounts_params(round_id))


@pytest.mark.parametrize("banker", ["house", "seat"])
def test_the_round_read_finds_the_accounts_the_keys_find(dealer, table, seat_player, banker):
    for seat in range(1, 5):
        seat_player(table, seat, funds=50_000)
    if banker == "seat":
        dealer.house_round(table, {1: "10.00"}, {"1": "push"})  # seat 1 may bank next
    round_id = dealer.open_round(table)["id"]
    for seat in range(2, 5):
        dealer.wager(round_id, seat, "10.00")
    if banker == "seat":
        dealer.banker(round_id, seat=1, house_stake="0")
    else:
        dealer.banker(round_id, house=True)
    round_ = Round.objects.get(pk=round_id)
    wagers = list(Wager.objects.filter(round=round_, state=Wager.State.ACTIVE))

    read = _read(round_id)

    # the same as the accounts found one by one by their keys, in the round's currency
    players = {w.player_id for w in wagers}
    if round_.banker_player_id is not None:
        players.add(round_.banker_player_id)
    table = accounts.table_ref(round_.table_id)
    keys = [("table_bankroll", table), ("commission", table), ("collection", table),
            *(("player", player_account_ref(p)) for p in players)]
    assert {(kind, key): pk for kind, key, pk in read} == \
        ledger_selectors.account_ids(currency=round_.currency, keys=keys)
    assert len({(kind, ref) for kind, ref, _ in read}) == len(read)  # each account once
    assert set(Account.objects.filter(pk__in=[pk for _, _, pk in read])
               .values_list("currency", flat=True)) == {round_.currency}


def test_the_round_read_uses_the_accounts_key_however_many_accounts(dealer, table,
                                                                     seat_player):
    for seat in (1, 2):
        seat_player(table, seat)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_account (kind, currency, ref, name, allow_negative, posted,"
            " held, created_at) SELECT 'player', 'EUR', 'player:other-' || g, '', false, 0, 0,"
            " now() FROM generate_series(1, 20000) g")
        cursor.execute("ANALYZE ledger_account")
        cursor.execute(f"EXPLAIN {accounts.PARTY_ACCOUNTS.sql}",
                       accounts.party_accounts_params(round_id))
        plan = "\n".join(row[0] for row in cursor.fetchall())

    assert "Seq Scan on ledger_account" not in plan, plan
    assert "ledger_account_one_per_kind_currency_ref" in plan, plan
    assert {ref for kind, ref, _ in _read(round_id) if kind == "player"} == {
        f"player:{Wager.objects.get(round_id=round_id).player_id}"}
