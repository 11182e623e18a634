"""The house way, row by row of rules section 9, with hands on both sides of each condition."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rounds.paigow import (
    DECK,
    HOUSE_WAYS,
    PaiGowError,
    all_settings,
    explain_house_way,
    house_way,
    parse_cards,
    sort_cards,
    validate_setting,
)

WHEELS = ["second_highest", "lowest"]


def expect(seven: str, high: str, low: str, row: str, way: str = "foxwoods") -> None:
    setting, applied = explain_house_way(parse_cards(seven), way=way)
    assert (setting.high, setting.low) == (sort_cards(parse_cards(high)),
                                           sort_cards(parse_cards(low))), str(setting)
    assert applied == row


# --- the seeds' examples (section 4) ---------------------------------------------------------

def test_seed_no_pair_example_keeps_the_ace_in_back() -> None:
    expect("AS JD TC 7H 5S 4D 2C", high="AS 7H 5S 4D 2C", low="JD TC", row="no pair")


def test_seed_aces_and_two_pair_example_puts_the_aces_in_front() -> None:
    expect("AS AD 9C 3H 3S 2D 2C", high="9C 3H 3S 2D 2C", low="AS AD", row="three pair")


# --- no pair, one pair -----------------------------------------------------------------------

def test_no_pair_highest_in_back_second_and_third_in_front() -> None:
    expect("KS JD TC 7H 5S 4D 2C", high="KS 7H 5S 4D 2C", low="JD TC", row="no pair")


def test_no_pair_the_joker_is_the_highest_card() -> None:
    expect("JK JD TC 7H 5S 4D 2C", high="JK 7H 5S 4D 2C", low="JD TC", row="no pair")


def test_one_pair_in_back_two_highest_others_in_front() -> None:
    expect("KS KD 9C 7H 5S 4D 2C", high="KS KD 5S 4D 2C", low="9C 7H", row="one pair")


def test_one_pair_made_with_the_joker_is_a_pair_of_aces() -> None:
    expect("JK AD 9C 7H 6S 4D 2C", high="JK AD 6S 4D 2C", low="9C 7H", row="one pair")


# --- two pair (foxwoods) ---------------------------------------------------------------------

@pytest.mark.parametrize(
    ("seven", "high", "low", "row"),
    [
        # Higher pair A, K, Q or J: split, even with an ace to play in front.
        ("JS JD 4C 4H AS 9D 2C", "JS JD AS 9D 2C", "4C 4H", "two pair, split"),
        ("AS AD 4C 4H KS 9D 2C", "AS AD KS 9D 2C", "4C 4H", "two pair, split"),
        # Higher pair T, 9, 8 or 7: both in back with an ace to play in front, else split.
        ("TS TD 4C 4H AS 9D 2C", "TS TD 4C 4H 2C", "AS 9D", "two pair, both in back"),
        ("7S 7D 4C 4H AS 9D 2C", "7S 7D 4C 4H 2C", "AS 9D", "two pair, both in back"),
        ("TS TD 4C 4H JK 9D 2C", "TS TD 4C 4H 2C", "JK 9D", "two pair, both in back"),
        ("TS TD 4C 4H KS 9D 2C", "TS TD KS 9D 2C", "4C 4H", "two pair, split"),
        ("7S 7D 4C 4H KS 9D 2C", "7S 7D KS 9D 2C", "4C 4H", "two pair, split"),
        # Higher pair 6 to 3: both in back with a king or an ace, else split.
        ("6S 6D 4C 4H KS 9D 2C", "6S 6D 4C 4H 2C", "KS 9D", "two pair, both in back"),
        ("3S 3D 2C 2H AS 9D 8C", "3S 3D 2C 2H 8C", "AS 9D", "two pair, both in back"),
        ("6S 6D 4C 4H QS 9D 2C", "6S 6D QS 9D 2C", "4C 4H", "two pair, split"),
        # A straight with two pair is ignored: 9s and 8s without an ace split.
        ("9S 9D 8C 8H 7S 6D 5C", "9S 9D 7S 6D 5C", "8C 8H", "two pair, split"),
    ],
)
def test_foxwoods_two_pair(seven: str, high: str, low: str, row: str) -> None:
    expect(seven, high, low, row)


@pytest.mark.parametrize(
    ("seven", "high", "low", "row"),
    [
        # low+low and low+medium: split unless holding a king or better.
        ("6S 6D 4C 4H KS 9D 2C", "6S 6D 4C 4H 2C", "KS 9D", "two pair, both in back"),
        ("6S 6D 4C 4H QS 9D 2C", "6S 6D QS 9D 2C", "4C 4H", "two pair, split"),
        ("9S 9D 4C 4H KS 8D 2C", "9S 9D 4C 4H 2C", "KS 8D", "two pair, both in back"),
        ("9S 9D 4C 4H QS 8D 2C", "9S 9D QS 8D 2C", "4C 4H", "two pair, split"),
        # low+high and medium+medium: split unless holding an ace.
        ("QS QD 4C 4H AS 8D 2C", "QS QD 4C 4H 2C", "AS 8D", "two pair, both in back"),
        ("QS QD 4C 4H KS 8D 2C", "QS QD KS 8D 2C", "4C 4H", "two pair, split"),
        ("9S 9D 7C 7H AS 8D 2C", "9S 9D 7C 7H 2C", "AS 8D", "two pair, both in back"),
        ("9S 9D 7C 7H KS 8D 2C", "9S 9D KS 8D 2C", "7C 7H", "two pair, split"),
        # medium+high, high+high and aces with any pair: always split.
        ("QS QD 9C 9H AS 8D 2C", "QS QD AS 8D 2C", "9C 9H", "two pair, split"),
        ("KS KD QC QH AS 8D 2C", "KS KD AS 8D 2C", "QC QH", "two pair, split"),
        ("AS AD 3C 3H KS 8D 2C", "AS AD KS 8D 2C", "3C 3H", "two pair, split"),
    ],
)
def test_bands_two_pair(seven: str, high: str, low: str, row: str) -> None:
    expect(seven, high, low, row, way="bands")


def test_the_two_ways_differ_only_where_the_two_pair_rules_differ() -> None:
    # 9s and 4s with a king: bands keeps both pairs in back, foxwoods needs an ace for that.
    seven = parse_cards("9S 9D 4C 4H KS 8D 2C")
    assert house_way(seven, way="foxwoods").low == sort_cards(parse_cards("4C 4H"))
    assert house_way(seven, way="bands").low == sort_cards(parse_cards("KS 8D"))


# --- three pair, three of a kind, full house -------------------------------------------------

def test_three_pair_highest_pair_in_front() -> None:
    expect("KS KD 8C 8H 3S 3D 2C", high="8C 8H 3S 3D 2C", low="KS KD", row="three pair")


def test_three_aces_pair_in_back_ace_and_next_highest_in_front() -> None:
    expect("AS AD AC KH 9S 5D 2C", high="AD AC 9S 5D 2C", low="AS KH", row="three aces")


def test_three_aces_with_the_joker() -> None:
    setting, row = explain_house_way(parse_cards("JK AD AC KH 9S 5D 2C"))
    assert row == "three aces"
    assert sorted(c.rank for c in setting.low) == [13, 14]
    assert sorted(c.rank for c in setting.high) == [2, 5, 9, 14, 14]


def test_three_kings_or_lower_in_back_two_highest_others_in_front() -> None:
    expect("KS KD KC QH 9S 5D 2C", high="KS KD KC 5D 2C", low="QH 9S", row="three of a kind")
    expect("2S 2D 2C QH 9S 5D 4C", high="2S 2D 2C 5D 4C", low="QH 9S", row="three of a kind")


def test_two_sets_of_three_pair_from_the_higher_set_in_front() -> None:
    expect("KS KD KC 5H 5S 5D 2C", high="KC 5H 5S 5D 2C", low="KS KD", row="two sets of three")


def test_full_house_the_pair_goes_in_front() -> None:
    expect("5S 5D 5C KH KS 9D 2C", high="5S 5D 5C 9D 2C", low="KH KS", row="full house")


def test_full_house_a_pair_from_the_higher_set_may_not_foul() -> None:
    # KK in front would leave one pair of fives in back: a foul, so the fives go in front.
    expect("KS KD KC 5H 5S 9D 2C", high="KS KD KC 9D 2C", low="5H 5S", row="full house")


def test_full_house_with_two_pairs_the_highest_permissible_pair_goes_in_front() -> None:
    expect("5S 5D 5C KH KS 3D 3C", high="5S 5D 5C 3D 3C", low="KH KS", row="full house")
    # A pair taken from the set is permitted when two pair stays in back (interpretation).
    expect("KS KD KC 5H 5S 3D 3C", high="KC 5H 5S 3D 3C", low="KS KD", row="full house")


# --- straights and flushes -------------------------------------------------------------------

def test_straight_no_pair_two_highest_cards_that_leave_a_straight() -> None:
    expect("9S 8D 7C 6H 5S KD 2C", high="9S 8D 7C 6H 5S", low="KD 2C",
           row="straight or flush, no pair")
    expect("TS 9D 8C 7H 6S 5D 4C", high="8C 7H 6S 5D 4C", low="TS 9D",
           row="straight or flush, no pair")


def test_flush_no_pair_keeps_the_flush_and_fronts_the_best_two_it_can() -> None:
    expect("AH KH 9H 6H 3H 2H QS", high="KH 9H 6H 3H 2H", low="AH QS",
           row="straight or flush, no pair")
    expect("AH KH 9H 6H 3H QS JD", high="AH KH 9H 6H 3H", low="QS JD",
           row="straight or flush, no pair")


def test_straight_with_one_pair_prefers_the_pair_in_front_when_it_leaves_a_straight() -> None:
    expect("8S 8D 7C 6H 5S 4D 3C", high="7C 6H 5S 4D 3C", low="8S 8D",
           row="straight or flush with one pair")


def test_straight_with_one_pair_that_the_straight_needs() -> None:
    expect("9S 9D 8C 7H 6S 5D 2C", high="9D 8C 7H 6S 5D", low="9S 2C",
           row="straight or flush with one pair")


def test_straight_with_ace_and_kings_plays_ace_in_front_when_that_is_better() -> None:
    expect("KS KD AC QH JS TD 3C", high="KS KD JS TD 3C", low="AC QH",
           row="straight or flush with one pair, ace in front")


def test_the_ace_exception_does_not_apply_to_lower_pairs() -> None:
    expect("9S 9D KC QH JS TD 3C", high="KC QH JS TD 9D", low="9S 3C",
           row="straight or flush with one pair")


def test_the_ace_exception_does_not_apply_when_the_front_is_not_improved() -> None:
    # The K-9 straight already lets A K go in front, better than the exception's A Q.
    expect("KS KD AC QH JS TD 9C", high="KD QH JS TD 9C", low="AC KS",
           row="straight or flush with one pair")


def test_straight_with_three_of_a_kind_straight_in_back_pair_in_front() -> None:
    expect("7S 7D 7C 8H 9S TD JC", high="7C 8H 9S TD JC", low="7S 7D",
           row="straight or flush with three of a kind")


def test_straight_with_three_aces_made_by_the_joker_falls_back_to_three_aces() -> None:
    # The joker is needed both as the third ace and as the straight's ten (interpretation).
    setting, row = explain_house_way(parse_cards("JK AD AC KH QS JD 5C"))
    assert row == "three aces"
    assert sorted(c.rank for c in setting.low) == [13, 14]


def test_joker_flush_with_one_pair_in_front() -> None:
    # Four hearts and the joker make the flush; the pair of sevens can go in front.
    expect("JK KH 9H 6H 3H 7S 7D", high="JK KH 9H 6H 3H", low="7S 7D",
           row="straight or flush with one pair")


# --- four of a kind and five aces ------------------------------------------------------------

@pytest.mark.parametrize(
    ("seven", "high", "low", "row"),
    [
        ("JS JD JC JH 9S 5D 2C", "JD JC 9S 5D 2C", "JS JH", "four of a kind A-J, split"),
        ("JS JD JC JH AS 5D 2C", "JD JC AS 5D 2C", "JS JH", "four of a kind A-J, split"),
        ("AS AD AC JK KS 5D 2C", "AD AC KS 5D 2C", "JK AS", "four of a kind A-J, split"),
        ("9S 9D 9C 9H KS 5D 2C", "9S 9D 9C 9H 2C", "KS 5D", "four of a kind in back"),
        ("TS TD TC TH AS 5D 2C", "TS TD TC TH 2C", "AS 5D", "four of a kind in back"),
        ("7S 7D 7C 7H QS 5D 2C", "7D 7C QS 5D 2C", "7S 7H", "four of a kind T-7, split"),
        ("TS TD TC TH QS 5D 2C", "TD TC QS 5D 2C", "TS TH", "four of a kind T-7, split"),
        ("6S 6D 6C 6H 4S 3D 2C", "6S 6D 6C 6H 2C", "4S 3D", "four of a kind in back"),
        ("6S 6D 6C 6H AS KD 2C", "6S 6D 6C 6H 2C", "AS KD", "four of a kind in back"),
        ("9S 9D 9C 9H 5S 5D 2C", "9S 9D 9C 9H 2C", "5S 5D", "four of a kind with a pair"),
        ("KS KD KC KH 5S 5D 2C", "KS KD KC KH 2C", "5S 5D", "four of a kind with a pair"),
        ("5S 5D 5C 5H 8S 8D 8C", "5S 5D 5C 5H 8C", "8S 8D", "four of a kind with a pair"),
        ("AS AD AC AH JK KS KD", "JK AS AD AC AH", "KS KD", "five aces, kings in front"),
        ("AS AD AC AH JK QS QD", "AD AC AH QS QD", "JK AS", "five aces"),
        ("AS AD AC AH JK 8S 2D", "AD AC AH 8S 2D", "JK AS", "five aces"),
    ],
)
def test_four_of_a_kind_and_five_aces(seven: str, high: str, low: str, row: str) -> None:
    expect(seven, high, low, row)


# --- options and errors ----------------------------------------------------------------------

def test_at_least_two_published_ways_are_selectable() -> None:
    assert {"foxwoods", "bands"} <= set(HOUSE_WAYS)


def test_an_unknown_way_is_a_clear_error() -> None:
    with pytest.raises(PaiGowError, match="unknown house way 'vegas'"):
        house_way(parse_cards("AS JD TC 7H 5S 4D 2C"), way="vegas")


def test_house_way_needs_seven_cards() -> None:
    with pytest.raises(PaiGowError, match="expected 7 cards"):
        house_way(parse_cards("AS JD TC 7H 5S 4D"))


# --- properties over random hands ------------------------------------------------------------

seven_cards = st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True)


@settings(max_examples=400)
@given(seven_cards, st.sampled_from(sorted(HOUSE_WAYS)), st.sampled_from(WHEELS),
       st.randoms(use_true_random=False))
def test_house_way_never_fouls_uses_the_seven_cards_and_ignores_their_order(
    cards: list, way: str, wheel: str, rnd: object
) -> None:
    setting = house_way(cards, way=way, wheel=wheel)
    assert len(setting.high) == 5 and len(setting.low) == 2
    assert set(setting.high + setting.low) == set(cards)
    assert validate_setting(cards, high=setting.high, low=setting.low, wheel=wheel) == setting
    shuffled = list(cards)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert house_way(shuffled, way=way, wheel=wheel) == setting
    assert setting in all_settings(cards, wheel=wheel)
