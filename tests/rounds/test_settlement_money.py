"""The money of a round (rules §6, §7 and the card room's §14) as pure arithmetic, through
the one door the services use (rounds.settlement.settlement_plan): worked examples figure by
figure, and what holds for any round of either money model (Hypothesis)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rounds.rules import TableRules
from rounds.settlement import (
    Outcome,
    Party,
    Plan,
    Position,
    PositionCover,
    Reason,
    banker_fee,
    commission_on,
    cover_wagers,
    positions_against_bank,
    positions_in_play,
    settlement_plan,
)

FIVE = Decimal("0.05")
WIN, PUSH, LOSS = Outcome.WIN, Outcome.PUSH, Outcome.LOSS
P = Position.seat
DEALER = Position.DEALER
ROUNDINGS = ("exact", "up_to_quarter", "down_to_unit")


@cache
def casino(rounding: str = "exact", co_banking: bool = False, rate: str = "0.05") -> TableRules:
    return TableRules.from_json({"bank_mode": "casino", "commission_rate": rate,
                                 "commission_rounding": rounding, "co_banking": co_banking})


def test_the_dutch_seed_example_the_bank_wins_160_pays_140_and_owes_1_commission():
    # given a player-banker who wins €160 from one player and pays €140 over two others
    stakes = {P(1): 16_000, P(2): 10_000, P(3): 4_000}
    outcomes = {P(1): LOSS, P(2): WIN, P(3): WIN}

    # when
    money = settlement_plan(stakes=stakes, outcomes=outcomes, rules=casino(),
                            banker_is_house=False)

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
    money = settlement_plan(stakes={P(1): 5_000, P(2): 2_000}, outcomes={P(1): WIN, P(2): LOSS},
                            rules=casino(), banker_is_house=False)

    assert money.banker_net == -3_000
    assert money.banker_commission == 0


def test_a_house_banked_round_pays_winners_less_commission_and_takes_losing_wagers():
    money = settlement_plan(stakes={P(1): 2_000, P(2): 1_000, P(4): 500},
                            outcomes={P(1): WIN, P(2): LOSS, P(4): PUSH},
                            rules=casino(), banker_is_house=True)

    assert money.moves == {"1": 1_900, "commission": 100, "bank": -2_000 + 1_000, "2": -1_000}
    assert money.banker_commission == 0  # the house pays no commission to itself
    assert [p.amount for p in money.positions] == [2_000, -1_000, 0]


def test_the_house_stake_is_settled_against_the_player_bank_without_commission():
    money = settlement_plan(stakes={P(2): 3_000, DEALER: 4_000},
                            outcomes={P(2): LOSS, DEALER: WIN}, rules=casino(),
                            banker_is_house=False, house_stake=4_000)

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


def test_co_banking_splits_the_bank_in_half_with_the_odd_cent_to_the_house():
    # the bank wins 100.00 from seat 1 and pays 60.01 to seat 2, shared with the house
    money = settlement_plan(stakes={P(1): 10_000, P(2): 6_001},
                            outcomes={P(1): LOSS, P(2): WIN}, rules=casino(co_banking=True),
                            banker_is_house=False)

    # the player-banker's half: +50.00 - 30.00 = +20.00 net, 5% = 1.00 commission
    assert (money.banker_won, money.banker_paid) == (5_000, 3_000)
    assert money.banker_commission == 100
    # the house's half: +50.00 - 30.01
    assert money.house_bank_share == 1_999
    assert money.moves == {"1": -10_000, "2": 6_001 - 300, "bank": 2_000 - 100,
                           "house": 1_999, "commission": 100 + 300}


def test_co_banking_means_nothing_when_the_house_banks_alone():
    plain = settlement_plan(stakes={P(1): 1_000}, outcomes={P(1): LOSS}, rules=casino(),
                            banker_is_house=True)
    co = settlement_plan(stakes={P(1): 1_000}, outcomes={P(1): LOSS},
                         rules=casino(co_banking=True), banker_is_house=True)

    assert co.moves == plain.moves == {"1": -1_000, "bank": 1_000}


def test_every_position_needs_exactly_one_outcome():
    with pytest.raises(ValueError, match="exactly one outcome"):
        settlement_plan(stakes={P(1): 1_000, P(2): 1_000}, outcomes={P(1): WIN},
                        rules=casino(), banker_is_house=True)


# --- what holds for any round: the plan's invariants, both money models ---------------------

@dataclass(frozen=True)
class Round:
    """What settlement_plan takes, as the services hand it over (rounds.services.settling)."""

    stakes: dict[Position, int]
    outcomes: dict[Position, Outcome]
    rules: TableRules
    banker_is_house: bool
    house_stake: int = 0
    covers: dict[Position, PositionCover] | None = None
    player_dealer: bool = True
    third_party: bool = False

    def plan(self) -> Plan:
        return settlement_plan(stakes=self.stakes, outcomes=self.outcomes, rules=self.rules,
                               banker_is_house=self.banker_is_house,
                               house_stake=self.house_stake, covers=self.covers,
                               player_dealer=self.player_dealer, third_party=self.third_party)


seat_wagers = st.dictionaries(st.integers(min_value=1, max_value=6),
                              st.integers(min_value=1, max_value=1_000_000), min_size=1)
rates = st.sampled_from(["0", "0.04", "0.05", "0.1"])


@st.composite
def casino_rounds(draw: st.DrawFn) -> Round:
    """A house-banked round, or a player-banked one (co-banked, or with a house stake that
    the dealer's hand plays, rules §7.5)."""
    wagers = draw(seat_wagers)
    banker_is_house = draw(st.booleans())
    co_banking = draw(st.booleans())
    # a house stake only against a player-bank the house does not half hold (the services
    # refuse one against a co-banked bank)
    house_stake = 0 if banker_is_house or co_banking else draw(
        st.one_of(st.just(0), st.integers(min_value=1, max_value=1_000_000)))
    against = positions_against_bank(wagers=wagers, banker_is_house=banker_is_house,
                                     house_stake=house_stake)
    stakes = {Position(p): amount for p, amount in against.items()}
    return Round(stakes=stakes,
                 outcomes={p: draw(st.sampled_from(list(Outcome))) for p in stakes},
                 rules=casino(draw(st.sampled_from(ROUNDINGS)), co_banking, draw(rates)),
                 banker_is_house=banker_is_house, house_stake=house_stake)


@st.composite
def fee_schedules(draw: st.DrawFn) -> list[dict[str, int | None]]:
    """The bank's collection fee bands as a table stores them: limits rising, the last open."""
    limits = sorted(draw(st.sets(st.integers(min_value=1, max_value=2_000_000), max_size=3)))
    fees = draw(st.lists(st.integers(min_value=0, max_value=2_000), min_size=len(limits) + 1,
                         max_size=len(limits) + 1))
    return [{"up_to": up_to, "fee": fee} for up_to, fee in zip([*limits, None], fees,
                                                                strict=True)]


@st.composite
def card_room_rounds(draw: st.DrawFn) -> Round:
    """A seated player-dealer covering up to a cover, with or without a proposition player
    taking the rest, or a proposition player banking alone."""
    wagers = draw(seat_wagers)
    free = [s for s in range(1, 7) if s not in wagers]
    banker_seat = draw(st.sampled_from([*free, None])) if free else None
    third_party = banker_seat is None or draw(st.booleans())
    cover = draw(st.one_of(st.none(), st.integers(min_value=1, max_value=3_000_000)))
    stakes = {P(s): amount for s, amount in wagers.items()}
    rules = TableRules.from_json({
        "bank_mode": "card_room", "commission_rate": draw(rates),
        "commission_rounding": draw(st.sampled_from(ROUNDINGS)),
        "collection_banker": draw(fee_schedules()),
        "collection_player": draw(st.integers(min_value=0, max_value=500))})
    return Round(stakes=stakes,
                 outcomes={p: draw(st.sampled_from(list(Outcome))) for p in stakes},
                 rules=rules, banker_is_house=False,
                 covers=cover_wagers(wagers=stakes, banker_seat=banker_seat, cover=cover,
                                     third_party=third_party),
                 player_dealer=banker_seat is not None, third_party=third_party)


def _balanced(money: Plan) -> None:
    assert sum(line.amount for line in money.lines) == 0
    assert sum(money.moves.values()) == 0
    assert all(line.amount for line in money.lines)   # no line moves nothing


def _commissions_by_position(money: Plan) -> Mapping[str, int]:
    paid: dict[str, int] = {}
    for line in money.lines:
        if line.reason is Reason.COMMISSION and line.party is Party.COMMISSION:
            assert line.position is not None
            paid[line.position.value] = paid.get(line.position.value, 0) + line.amount
    return paid


# Drawing a round's parts from what was drawn before is slow on a loaded machine; the
# properties are not about speed, so neither the health check nor a deadline.
LOADED = settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)


@LOADED
@given(round_=casino_rounds())
def test_a_casino_plan_balances_and_moves_each_party_by_the_rules(round_: Round):
    rules = round_.rules
    rate, rounding = rules.commission_rate, str(rules.commission_rounding)
    co_banked = rules.co_banking and not round_.banker_is_house

    money = round_.plan()

    _balanced(money)
    by_position = {p.position: p for p in money.positions}
    assert set(by_position) == {p.value for p in round_.stakes}
    commissions = _commissions_by_position(money)
    bank = house = 0
    won = paid = 0
    for position, stake in round_.stakes.items():
        outcome = round_.outcomes[position]
        result = by_position[position.value]
        share = stake // 2 if co_banked else stake
        # a position's own move: its whole stake won or lost, a push moves nothing (§6)
        amount = {WIN: stake, PUSH: 0, LOSS: -stake}[outcome]
        assert (result.wager, result.amount) == (stake, amount)
        # the house's stake pays no commission to the house; a seat's win pays it, never
        # more than the win, and never on a push or a loss
        expected = commission_on(stake, rate, rounding) \
            if outcome is WIN and position is not DEALER else 0
        assert result.commission == commissions.get(position.value, 0) == expected
        assert 0 <= result.commission <= max(amount, 0)
        # the bank (under co-banking its half, the house the other) pays the win or takes
        # the loss; the house's own stake is its result
        sign = {WIN: 1, PUSH: 0, LOSS: -1}[outcome]
        bank -= sign * share
        house -= sign * (stake - share)
        party = Party.of(position)
        if party is Party.HOUSE:
            house += amount
        else:
            assert money.moves.get(party, 0) == amount - result.commission
        won += share if outcome is LOSS else 0
        paid += share if outcome is WIN else 0
    assert (money.banker_won, money.banker_paid) == (won, paid)
    # a player-banker pays commission on the bank's net over the round, the house none
    banker_commission = 0 if round_.banker_is_house else commission_on(won - paid, rate,
                                                                       rounding)
    assert money.banker_commission == banker_commission <= max(won - paid, 0)
    assert money.moves.get(Party.BANK, 0) == bank - banker_commission
    assert money.moves.get(Party.HOUSE, 0) == house
    assert money.moves.get(Party.COMMISSION, 0) == money.player_commission + banker_commission
    assert money.player_commission == sum(commissions.values())
    assert set(money.moves) <= {Party.BANK, Party.HOUSE, Party.COMMISSION,
                                *(Party.seat(p.value) for p in round_.stakes if p is not DEALER)}
    assert money.house_stake_result == (by_position["dealer"].amount
                                        if DEALER in round_.stakes else 0)


@LOADED
@given(round_=card_room_rounds())
def test_a_card_room_plan_balances_and_fees_fall_only_on_covered_wagers(round_: Round):
    rules = round_.rules
    rate, rounding = rules.commission_rate, str(rules.commission_rounding)
    assert round_.covers is not None

    money = round_.plan()

    _balanced(money)
    by_position = {p.position: p for p in money.positions}
    commissions = _commissions_by_position(money)
    books = {Party.BANK: [0, 0], Party.THIRD_PARTY: [0, 0]}   # each bank's (won, paid)
    fees = action_total = 0
    for position, wager in round_.stakes.items():
        outcome, cover = round_.outcomes[position], round_.covers[position]
        result = by_position[position.value]
        assert cover.player_dealer + cover.third_party + cover.uncovered == wager
        assert cover.uncovered >= 0
        action = cover.action
        # only the covered part plays; the uncovered part is returned and moves nothing
        amount = {WIN: action, PUSH: 0, LOSS: -action}[outcome]
        expected = commission_on(action, rate, rounding) if outcome is WIN else 0
        assert result.commission == commissions.get(position.value, 0) == expected
        assert 0 <= result.commission <= max(amount, 0)
        # the per-wager fee is due whatever the result, on a wager with action only
        assert result.fee == (rules.collection_player if action else 0)
        assert money.moves.get(Party.of(position), 0) == amount - result.commission - result.fee
        for bank, share in ((Party.BANK, cover.player_dealer),
                            (Party.THIRD_PARTY, cover.third_party)):
            books[bank][0] += share if outcome is LOSS else 0
            books[bank][1] += share if outcome is WIN else 0
        fees += result.fee
        action_total += action
    # the bank's fee by the bands on the whole covered action, paid by the player-dealer,
    # or by the proposition player banking alone; nothing when nothing was covered
    bank_fee = banker_fee(action_total, rules.collection_banker)
    payer = Party.BANK if round_.player_dealer else Party.THIRD_PARTY
    assert money.collection_banker == bank_fee and money.collection_players == fees
    assert money.collection_payer == (payer if bank_fee else None)
    assert money.moves.get(Party.COLLECTION, 0) == fees + bank_fee
    bank_commissions = 0
    for bank, (won, paid) in books.items():
        commission = commission_on(won - paid, rate, rounding)
        assert 0 <= commission <= max(won - paid, 0)
        bank_commissions += commission
        assert money.moves.get(bank, 0) == (won - paid - commission
                                            - (bank_fee if bank is payer else 0))
    assert (money.banker_won, money.banker_paid) == tuple(books[Party.BANK])
    assert money.third_party_net == books[Party.THIRD_PARTY][0] - books[Party.THIRD_PARTY][1]
    assert money.moves.get(Party.COMMISSION, 0) == money.player_commission + bank_commissions
    # the house neither banks nor stakes in a card room
    assert Party.HOUSE not in money.moves and money.house_stake_result == 0
    if not round_.player_dealer:
        assert Party.BANK not in money.moves


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
