"""Each party's figures of a round (what the settlement stores and every report reads), from
the rules' worked examples, figure by figure."""

from __future__ import annotations

from rounds.rules import TableRules
from rounds.settlement import (
    Outcome,
    Party,
    PartyFigures,
    Plan,
    Position,
    Role,
    cover_wagers,
    settlement_plan,
)

P = Position.seat


def party(plan: Plan, who: Party) -> PartyFigures:
    found = plan.party(who)
    assert found is not None, who
    return found


def casino(**settings: object) -> TableRules:
    return TableRules.from_json({"commission_rate": "0.05", **settings})


def test_the_dutch_seed_player_banker_won_160_paid_140_net_20_commission_1_result_19():
    money = settlement_plan(
        stakes={P(1): 16_000, P(2): 10_000, P(3): 4_000},
        outcomes={P(1): Outcome.LOSS, P(2): Outcome.WIN, P(3): Outcome.WIN},
        rules=casino(), banker_is_house=False)

    bank = party(money, Party.BANK)
    assert bank == PartyFigures(Party.BANK, covered=30_000, won=16_000, paid=14_000,
                                commission=100)
    assert (bank.net, bank.result) == (2_000, 1_900)
    assert money.party(Party.SEAT_2) == PartyFigures(Party.SEAT_2, wager=10_000,
                                                     covered=10_000, won=10_000,
                                                     commission=500)
    assert party(money, Party.SEAT_1).result == -16_000
    assert money.party(Party.HOUSE) is None   # no stake, no co-bank: the house only earns
    assert Role.of(Party.BANK, banker_is_house=False, card_room=False) is Role.PLAYER_BANKER


def test_a_house_stake_is_the_houses_wager_and_the_bank_covers_it():
    # rules §7.6: a banker who wins 30.00 from a seat but loses a 40.00 house stake
    money = settlement_plan(stakes={Position.DEALER: 4_000, P(2): 3_000},
                            outcomes={Position.DEALER: Outcome.WIN, P(2): Outcome.LOSS},
                            rules=casino(), banker_is_house=False, house_stake=4_000)

    assert money.party(Party.HOUSE) == PartyFigures(Party.HOUSE, wager=4_000, covered=4_000,
                                                    won=4_000)
    bank = party(money, Party.BANK)
    assert (bank.covered, bank.won, bank.paid, bank.commission, bank.result) == \
        (7_000, 3_000, 4_000, 0, -1_000)


def test_a_house_banked_round_has_the_house_as_its_bank():
    money = settlement_plan(stakes={P(1): 2_000, P(2): 1_000, P(4): 500},
                            outcomes={P(1): Outcome.WIN, P(2): Outcome.LOSS, P(4): Outcome.PUSH},
                            rules=casino(), banker_is_house=True)

    bank = party(money, Party.BANK)
    assert (bank.covered, bank.won, bank.paid, bank.commission, bank.result) == \
        (3_500, 1_000, 2_000, 0, -1_000)
    assert Role.of(Party.BANK, banker_is_house=True, card_room=False) is Role.HOUSE
    # a push had action and moved nothing
    assert money.party(Party.SEAT_4) == PartyFigures(Party.SEAT_4, wager=500, covered=500)


def test_co_banking_splits_the_bank_between_the_player_banker_and_the_house():
    # rules §7.8: seat 1 loses 100.00, seat 2 wins 60.01
    money = settlement_plan(stakes={P(1): 10_000, P(2): 6_001},
                            outcomes={P(1): Outcome.LOSS, P(2): Outcome.WIN},
                            rules=casino(co_banking=True), banker_is_house=False)

    bank, house = party(money, Party.BANK), party(money, Party.HOUSE)
    assert (bank.covered, bank.won, bank.paid, bank.commission, bank.result) == \
        (8_000, 5_000, 3_000, 100, 1_900)
    assert (house.covered, house.won, house.paid, house.result) == (8_001, 5_000, 3_001, 1_999)
    assert party(money, Party.SEAT_2).result == 5_701


def test_the_card_room_worked_round_each_bank_and_seat():
    # docs/rules.md §14.5: seat 1 covers 150.00, a proposition player the rest
    stakes = {P(2): 10_000, P(3): 10_000, P(4): 10_000}
    rules = TableRules.from_json({"bank_mode": "card_room", "commission_rate": "0",
                                  "collection_player": 50})
    money = settlement_plan(
        stakes=stakes, outcomes={P(2): Outcome.LOSS, P(3): Outcome.WIN, P(4): Outcome.LOSS},
        rules=rules, banker_is_house=False,
        covers=cover_wagers(wagers=stakes, banker_seat=1, cover=15_000, third_party=True),
        player_dealer=True, third_party=True)

    dealer, prop = party(money, Party.BANK), party(money, Party.THIRD_PARTY)
    assert (dealer.covered, dealer.won, dealer.paid, dealer.net, dealer.fee, dealer.result) \
        == (15_000, 10_000, 5_000, 5_000, 300, 4_700)
    assert (prop.covered, prop.won, prop.paid, prop.net, prop.fee, prop.result) \
        == (15_000, 10_000, 5_000, 5_000, 0, 5_000)
    assert [party(money, Party.seat(s)).result for s in (2, 3, 4)] == [-10_050, 9_950, -10_050]
    assert Role.of(Party.BANK, banker_is_house=False, card_room=True) is Role.PLAYER_DEALER
    assert Role.of(Party.THIRD_PARTY, banker_is_house=False, card_room=True) \
        is Role.PROPOSITION


def test_a_proposition_player_banking_alone_pays_the_banks_fee():
    stakes = {P(1): 20_000}
    rules = TableRules.from_json({"bank_mode": "card_room", "commission_rate": "0"})
    money = settlement_plan(
        stakes=stakes, outcomes={P(1): Outcome.WIN}, rules=rules, banker_is_house=False,
        covers=cover_wagers(wagers=stakes, banker_seat=None, cover=None, third_party=True),
        player_dealer=False, third_party=True)

    assert money.party(Party.BANK) is None
    prop = party(money, Party.THIRD_PARTY)
    assert (prop.covered, prop.won, prop.paid, prop.fee, prop.result) == \
        (20_000, 0, 20_000, 300, -20_300)
