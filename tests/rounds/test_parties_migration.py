"""A settled round's figures moved from the hands' and the round's columns into its parties
(rounds/migrations/0018, 0019): migrating back puts the columns back from the parties, and
forward again fills the parties from the columns, each checked against the round's ledger
entry, to the same figures."""

from __future__ import annotations

import pytest

from rounds import services
from rounds.models import RoundParty
from tests.rounds.test_card_room import proposition, worked_round  # noqa: F401

BEFORE = ("rounds", "0017_drop_variance_explained_later")
FIELDS = ("round_id", "role", "position", "player_id", "account_id", "wager", "covered", "won",
          "paid", "net", "commission", "fee", "result")

pytestmark = pytest.mark.slow


def _played_floor(dealer, make_table, seat_player, pit_boss,
                  proposition) -> None:  # noqa: F811
    """Rounds of every kind of bank, settled with the service as it is now."""
    casino = make_table(name="Casino", bank_rotation="open", banker_must_have_played=False,
                        house_stake_cap="table_max")
    for seat in (1, 2, 3):
        seat_player(casino, seat, funds=500_000)
    # house-banked, with a win, a loss and a push
    dealer.house_round(casino, {1: "20.00", 2: "30.00", 3: "10.00"},
                       {"1": "win", "2": "loss", "3": "push"})
    # a player-bank against a house stake
    round_id = dealer.open_round(casino)["id"]
    dealer.wager(round_id, 2, "100.00")
    dealer.wager(round_id, 3, "60.00")
    dealer.banker(round_id, seat=1, house_stake="40.00")
    dealer.settle(round_id, {"outcomes": {"dealer": "win", "2": "loss", "3": "win"}})
    # co-banked
    co = make_table(name="Co", co_banking=True, bank_rotation="open",
                    banker_must_have_played=False)
    for seat in (4, 5):
        seat_player(co, seat, funds=500_000)
    round_id = dealer.open_round(co)["id"]
    dealer.wager(round_id, 5, "60.01")
    dealer.banker(round_id, seat=4)
    dealer.settle(round_id, {"outcomes": {"5": "win"}})
    # the card room's worked round
    card = make_table(name="Card room", bank_mode="card_room", commission_rate="0",
                      collection_player=50)
    state, _ = worked_round(dealer, card, seat_player, proposition)
    dealer.settle(state["round_id"], {"outcomes": {"2": "loss", "3": "win", "4": "loss"}})
    assert services  # the rounds above went through the service, as the API calls it


@pytest.mark.django_db(transaction=True)
def test_the_figures_go_back_to_the_columns_and_come_again_the_same(
        executor, dealer, make_table, seat_player, pit_boss, proposition):  # noqa: F811
    _played_floor(dealer, make_table, seat_player, pit_boss, proposition)
    stored = sorted(RoundParty.objects.values_list(*FIELDS))
    assert len(stored) >= 12

    executor.migrate([BEFORE])
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert sorted(RoundParty.objects.values_list(*FIELDS)) == stored
