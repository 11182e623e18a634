"""The deal and the dice (rules section 8)."""

import random

import pytest

from rounds.paigow import DECK, POSITIONS, PaiGowError, deal, deal_order, roll_dice


def test_a_deal_is_seven_stacks_of_seven_and_four_burnt_cards_from_one_deck() -> None:
    d = deal()
    assert [len(s) for s in d.stacks] == [7] * 7
    assert len(d.burnt) == 4
    assert set(c for s in d.stacks for c in s) | set(d.burnt) == set(DECK)


def test_a_seeded_deal_is_repeatable_and_unseeded_deals_differ() -> None:
    assert deal(random.Random(7)) == deal(random.Random(7))
    assert deal() != deal()


def test_three_dice_are_each_one_to_six() -> None:
    rng = random.Random(3)
    rolls = [roll_dice(rng) for _ in range(500)]
    assert all(len(r) == 3 and all(1 <= d <= 6 for d in r) for r in rolls)
    assert {d for r in rolls for d in r} == {1, 2, 3, 4, 5, 6}
    assert len(roll_dice()) == 3


@pytest.mark.parametrize("total", [8, 15])
def test_totals_8_and_15_land_on_the_banker_again(total: int) -> None:
    assert deal_order(total).counted == "dealer"
    assert deal_order(total, banker="3").counted == "3"


def test_counting_starts_with_the_banker_as_one() -> None:
    assert deal_order(3).counted == "2"  # dealer=1, seat 1=2, seat 2=3
    assert deal_order(3, banker="5").counted == "dealer"  # 5=1, 6=2, dealer=3
    assert deal_order(18, banker="dealer").counted == "3"


def test_after_counted_the_counted_position_receives_the_last_stack() -> None:
    order = deal_order(3).order
    assert order == ("3", "4", "5", "6", "dealer", "1", "2")
    assert order[-1] == deal_order(3).counted
    assert sorted(order) == sorted(POSITIONS)


def test_counted_rule_gives_the_counted_position_the_first_stack() -> None:
    order = deal_order(3, first_stack="counted").order
    assert order == ("2", "3", "4", "5", "6", "dealer", "1")


def test_assign_maps_each_stack_to_its_position_in_dealing_order() -> None:
    d = deal(random.Random(1))
    given = deal_order(10).assign(d.stacks)
    assert given[deal_order(10).order[0]] == d.stacks[0]
    assert given[deal_order(10).counted] == d.stacks[6]


def test_bad_totals_positions_and_rules_are_refused() -> None:
    with pytest.raises(ValueError, match=r"3\.\.18"):
        deal_order(2)
    with pytest.raises(PaiGowError, match="unknown position"):
        deal_order(9, banker="7")
    with pytest.raises(PaiGowError, match="unknown first_stack"):
        deal_order(9, first_stack="random")
