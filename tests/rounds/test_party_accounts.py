"""The accounts a settlement moves money between (rounds.accounts.settlement_accounts): the
same as found by their keys one by one, and found by the accounts' unique key however many
accounts there are."""

from __future__ import annotations

import pytest
from django.db import connection

from casino.selectors import player_account_ref
from ledger import selectors as ledger_selectors
from ledger.models import Account
from rounds import accounts
from rounds.models import Round, Wager
from rounds.settlement import Party

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("banker", ["house", "seat"])
def test_each_party_is_the_account_its_key_finds(dealer, table, seat_player, banker):
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

    found = accounts.settlement_accounts(round_, wagers)

    table_key = accounts.table_ref(round_.table_id)
    keys = ledger_selectors.account_ids(currency=round_.currency, keys=[
        ("table_bankroll", table_key), ("commission", table_key),
        *(("player", player_account_ref(w.player_id)) for w in wagers),
        *([("player", player_account_ref(round_.banker_player_id))]
          if round_.banker_player_id else [])])
    assert found[Party.HOUSE] == keys[("table_bankroll", table_key)]
    assert found[Party.COMMISSION] == keys[("commission", table_key)]
    for wager in wagers:
        assert found[Party.seat(wager.seat)] == keys[("player",
                                                      player_account_ref(wager.player_id))]
    bank = ("table_bankroll", table_key) if banker == "house" else \
        ("player", player_account_ref(round_.banker_player_id or 0))
    assert found[Party.BANK] == keys[bank]
    assert set(Account.objects.filter(pk__in=found.values())
               .values_list("currency", flat=True)) == {round_.currency}


def test_the_accounts_are_found_by_their_unique_key_however_many_accounts(dealer, table,
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
    round_ = Round.objects.get(pk=round_id)
    wagers = list(Wager.objects.filter(round=round_))

    plan = accounts.party_accounts_query(round_, wagers).explain()

    assert "Seq Scan on ledger_account" not in plan, plan
    assert "ledger_account_one_per_kind_currency_ref" in plan, plan
