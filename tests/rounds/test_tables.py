"""Tables' services (rounds.services.tables): a table's limits and settings."""

from __future__ import annotations

import pytest
from django.test import override_settings

from casino.services import player_deposit
from casino.shared.money import MAX_MINOR
from rounds import services
from rounds.models import Round
from rounds.services import MAX_TABLE_BET
from tests.players import make_player

pytestmark = pytest.mark.django_db


# The whales' funds are far above the cage's cap; the cap is not what this test is about.
@override_settings(CASINO_CAGE_APPROVAL_ABOVE="9999999999999.99")
def test_a_round_within_the_table_limits_can_always_be_settled(make_table, pit_boss):
    # given a table at the highest limit a table may have
    table = make_table(min_bet=200, max_bet=MAX_TABLE_BET)
    for n in (1, 2):
        player = make_player(name=f"Whale {n}", currency=table.currency, by=pit_boss)
        player_deposit(player_id=player.pk, amount=MAX_TABLE_BET, by=pit_boss)
        services.seat_take(table_id=table.pk, number=n, player_id=player.pk, by=pit_boss)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    for n in (1, 2):
        services.wager_place(round_id=round_.pk, seat=n, amount=MAX_TABLE_BET, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)

    # when both win, the house bankroll pays twice the maximum in one line
    services.round_settle(round_id=round_.pk, by=pit_boss, outcomes={"1": "win", "2": "win"})

    assert Round.objects.get(pk=round_.pk).state == "settled"


def test_a_table_limit_beyond_what_a_round_can_settle_is_refused(make_table):
    from casino.shared.errors import ValidationFailed

    with pytest.raises(ValidationFailed, match="The maximum bet may be at most"):
        make_table(max_bet=MAX_TABLE_BET + 1)
    assert MAX_TABLE_BET * 7 <= MAX_MINOR
