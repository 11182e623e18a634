"""The money of a round (rules §6-§7) as pure arithmetic, figure by figure."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rounds.settlement import commission_on, positions_against_bank, positions_in_play, settle

FIVE = Decimal("0.05")


def test_the_dutch_seed_example_the_bank_wins_160_pays_140_and_owes_1_commission():
    # given a player-banker who wins €160 from one player and pays €140 over two others
    wagers = {"1": 16_000, "2": 10_000, "3": 4_000}
    outcomes = {"1": "loss", "2": "win", "3": "win"}

    # when
    money = settle(wagers=wagers, outcomes=outcomes, banker_is_house=False, house_stake=0,
                   rate=FIVE, rounding="exact")

    # then: 5% x (160 - 140) = €1 from the banker, and 5% of each winner's win
    assert money.banker_won == 16_000 and money.banker_paid == 14_000
    assert money.banker_net == 2_000
    assert money.banker_commission == 100
    assert money.player_commission == 500 + 200
    assert money.moves == {
        "bank": 16_000 - 10_000 - 4_000 - 100,
        "1": -16_000,
        "2": 10_000 - 500,
        "3": 4_000 - 200,
        "commission": 100 + 500 + 200,
    }


def test_a_banker_who_loses_over_the_round_pays_no_commission():
    money = settle(wagers={"1": 5_000, "2": 2_000}, outcomes={"1": "win", "2": "loss"},
                   banker_is_house=False, house_stake=0, rate=FIVE, rounding="exact")

    assert money.banker_net == -3_000
    assert money.banker_commission == 0


def test_a_house_banked_round_pays_winners_less_commission_and_takes_losing_wagers():
    money = settle(wagers={"1": 2_000, "2": 1_000, "4": 500},
                   outcomes={"1": "win", "2": "loss", "4": "push"},
                   banker_is_house=True, house_stake=0, rate=FIVE, rounding="exact")

    assert money.moves == {"1": 1_900, "commission": 100, "bank": -2_000 + 1_000, "2": -1_000}
    assert money.banker_commission == 0  # the house pays no commission to itself
    assert [p.amount for p in money.positions] == [2_000, -1_000, 0]


def test_the_house_stake_is_settled_against_the_player_bank_without_commission():
    money = settle(wagers={"2": 3_000, "dealer": 4_000}, outcomes={"2": "loss", "dealer": "win"},
                   banker_is_house=False, house_stake=4_000, rate=FIVE, rounding="exact")

    assert money.house_stake_result == 4_000
    assert money.moves["house"] == 4_000
    assert money.banker_net == -1_000 and money.banker_commission == 0


@pytest.mark.parametrize(
    ("win", "rounding", "expected"),
    [
        (1_000, "exact", 50),
        (1_010, "exact", 51),     # 50.5 cents rounds half up
        (1_030, "exact", 52),     # 51.5 -> 52
        (1_020, "exact", 51),     # 51.0
        (990, "exact", 50),       # 49.5 -> 50
        (1_000, "up_to_quarter", 50),
        (1_020, "up_to_quarter", 75),   # 51 cents -> next quarter
        (2_000, "up_to_quarter", 100),  # an exact quarter stays
        (1_000, "down_to_unit", 0),     # 50 cents -> 0
        (4_000, "down_to_unit", 200),
        (3_900, "down_to_unit", 100),   # 1.95 -> 1
        (1, "up_to_quarter", 1),        # never more than the win itself
        (300, "up_to_quarter", 25),
    ],
)
def test_commission_rounds_by_the_table_setting(win, rounding, expected):
    assert commission_on(win, FIVE, rounding) == expected


@given(
    wagers=st.dictionaries(st.sampled_from(["1", "2", "3", "4", "5", "6"]),
                           st.integers(min_value=1, max_value=1_000_000), min_size=1),
    data=st.data(),
    banker_is_house=st.booleans(),
    rounding=st.sampled_from(["exact", "up_to_quarter", "down_to_unit"]),
    co_banking=st.booleans(),
)
def test_a_settlement_always_balances_and_never_takes_more_than_a_wager(
    wagers, data, banker_is_house, rounding, co_banking
):
    outcomes = {p: data.draw(st.sampled_from(["win", "push", "loss"])) for p in wagers}

    money = settle(wagers=wagers, outcomes=outcomes, banker_is_house=banker_is_house,
                   house_stake=0, rate=FIVE, rounding=rounding, co_banking=co_banking)

    assert sum(money.moves.values()) == 0
    for position, wager in wagers.items():
        assert money.moves.get(position, 0) >= -wager
    # the bank never loses more than it covers (its half, under co-banking)
    covered = sum(w // 2 if co_banking and not banker_is_house else w for w in wagers.values())
    assert money.moves.get("bank", 0) >= -covered


def test_co_banking_splits_the_bank_in_half_with_the_odd_cent_to_the_house():
    # the bank wins 100.00 from seat 1 and pays 60.01 to seat 2, shared with the house
    money = settle(wagers={"1": 10_000, "2": 6_001}, outcomes={"1": "loss", "2": "win"},
                   banker_is_house=False, house_stake=0, rate=FIVE, rounding="exact",
                   co_banking=True)

    # the player-banker's half: +50.00 - 30.00 = +20.00 net, 5% = 1.00 commission
    assert (money.banker_won, money.banker_paid) == (5_000, 3_000)
    assert money.banker_commission == 100
    # the house's half: +50.00 - 30.01
    assert money.house_bank_share == 1_999
    assert money.moves == {"1": -10_000, "2": 6_001 - 300, "bank": 2_000 - 100,
                           "house": 1_999, "commission": 100 + 300}


def test_co_banking_means_nothing_when_the_house_banks_alone():
    plain = settle(wagers={"1": 1_000}, outcomes={"1": "loss"}, banker_is_house=True,
                   house_stake=0, rate=FIVE, rounding="exact")
    co = settle(wagers={"1": 1_000}, outcomes={"1": "loss"}, banker_is_house=True,
                house_stake=0, rate=FIVE, rounding="exact", co_banking=True)

    assert co.moves == plain.moves == {"1": -1_000, "bank": 1_000}


# --- who plays against the bank (rules §5, §7.5): the one answer every door uses -------------

def test_against_a_house_bank_every_wager_plays_and_nothing_else():
    assert positions_against_bank(wagers={3: 1_000, 1: 500}, banker_is_house=True,
                                  house_stake=0) == {"1": 500, "3": 1_000}


def test_against_a_player_bank_the_dealers_hand_plays_the_house_stake():
    against = positions_against_bank(wagers={2: 1_000}, banker_is_house=False,
                                     house_stake=4_000)
    assert list(against.items()) == [("dealer", 4_000), ("2", 1_000)]
    assert positions_in_play(against, banker_position="1") == ["dealer", "1", "2"]


def test_with_no_house_stake_or_no_banker_yet_the_dealers_hand_does_not_play():
    assert positions_against_bank(wagers={2: 1_000}, banker_is_house=False,
                                  house_stake=0) == {"2": 1_000}
    before_banker = positions_against_bank(wagers={4: 700}, banker_is_house=None,
                                           house_stake=0)
    assert positions_in_play(before_banker, banker_position=None) == ["4"]
    # a house-banked round deals the dealer's hand as the bank's own
    assert positions_in_play(before_banker, banker_position="dealer") == ["dealer", "4"]
