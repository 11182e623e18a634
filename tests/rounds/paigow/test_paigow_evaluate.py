"""Ranking five-card and two-card hands (rules sections 2, 3 and 4)."""

import random
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st
from paigow_reference import ORDER, reference_low, reference_rank

from rounds.paigow import (
    DECK,
    HighRank,
    InvalidCards,
    PaiGowError,
    evaluate_high,
    evaluate_low,
    format_cards,
    parse_cards,
)
from rounds.paigow.evaluate import is_foul

WHEELS = ["second_highest", "lowest"]


def high(text: str, wheel: str = "second_highest") -> HighRank:
    return evaluate_high(parse_cards(text), wheel=wheel)


@pytest.mark.parametrize(
    ("cards", "category"),
    [
        ("AS AH AD AC JK", "five_aces"),
        ("AS KS QS JS TS", "royal_flush"),
        ("9H 8H 7H 6H 5H", "straight_flush"),
        ("5C 5S 5H 5D 2C", "four_of_a_kind"),
        ("KC KS KH 4D 4C", "full_house"),
        ("KH JH 9H 6H 3H", "flush"),
        ("TC 9S 8H 7D 6C", "straight"),
        ("9C 9S 9H AD 8C", "three_of_a_kind"),
        ("4C 4S JH JD AC", "two_pair"),
        ("8C 4S JH JD AC", "one_pair"),
        ("AC KS 9H 6D 3C", "high_card"),
    ],
)
def test_each_category_of_section_2(cards: str, category: str) -> None:
    assert high(cards).category == category


def test_categories_rank_in_the_order_of_section_2() -> None:
    hands = ["AC KS 9H 6D 3C", "8C 4S JH JD AC", "4C 4S JH JD AC", "9C 9S 9H AD 8C",
             "TC 9S 8H 7D 6C", "KH JH 9H 6H 3H", "KC KS KH 4D 4C", "5C 5S 5H 5D 2C",
             "9H 8H 7H 6H 5H", "AS KS QS JS TS", "AS AH AD AC JK"]
    ranks = [high(h) for h in hands]
    assert ranks == sorted(ranks)
    assert len(set(ranks)) == len(ranks)


def test_ties_inside_a_category_go_by_ranks_then_kickers_and_never_by_suits() -> None:
    assert high("AC QS 9H 6D 3C") > high("AC JS 9H 6D 3C")
    assert high("5C 5S JH 8D 3C") > high("5D 5H TH 4D 2C")
    assert high("KH JH 9H 6H 3H") == high("KS JS 9S 6S 3S")
    assert hash(high("KH JH 9H 6H 3H")) == hash(high("KS JS 9S 6S 3S"))


# --- the wheel -------------------------------------------------------------------------------

def test_the_wheel_is_the_second_highest_straight_by_default() -> None:
    wheel = high("AC 2S 3H 4D 5C")
    assert high("KC QS JH TD 9C") < wheel < high("AC KS QH JD TC")


def test_the_wheel_straight_flush_is_the_best_straight_flush_below_a_royal() -> None:
    wheel = high("AC 2C 3C 4C 5C")
    assert wheel.category == "straight_flush"
    assert high("KC QC JC TC 9C") < wheel < high("AC KC QC JC TC")


def test_with_the_lowest_wheel_rule_the_wheel_is_the_lowest_straight() -> None:
    assert high("AC 2S 3H 4D 5C", "lowest") < high("2C 3S 4H 5D 6C", "lowest")
    assert high("AC 2C 3C 4C 5C", "lowest") < high("2D 3D 4D 5D 6D", "lowest")
    assert high("AC 2S 3H 4D 5C", "lowest") > high("AC AS KH QD JC", "lowest")


def test_an_unknown_wheel_rule_is_a_clear_error() -> None:
    with pytest.raises(PaiGowError, match="unknown wheel rule 'middle'"):
        high("AC 2S 3H 4D 5C", "middle")


# --- the joker -------------------------------------------------------------------------------

def test_four_aces_and_the_joker_are_five_aces_the_best_hand() -> None:
    five_aces = high("AS AH AD AC JK")
    assert five_aces.category == "five_aces"
    assert five_aces > high("AS KS QS JS TS")
    assert five_aces > high("JK KS QS JS TS")


def test_four_kings_and_the_joker_are_four_kings_with_an_ace_kicker() -> None:
    rank = high("KS KH KD KC JK")
    assert rank.category == "four_of_a_kind"
    assert rank == high("KS KH KD KC AS")
    assert rank > high("KS KH KD KC QS")


def test_in_a_flush_the_joker_plays_the_highest_rank_the_suit_lacks() -> None:
    # The Dutch seed's example: AD JK JD 9D 6D plays as AD KD JD 9D 6D.
    rank = high("AD JK JD 9D 6D")
    assert rank.category == "flush"
    assert rank.ranks == (14, 13, 11, 9, 6)
    assert rank == high("AH KH JH 9H 6H")
    assert high("JK KD JD 9D 6D") == high("AH KH JH 9H 6H")  # suit lacks the ace: an ace


def test_the_joker_completes_a_straight_at_either_end_and_in_the_middle() -> None:
    assert high("JK 9S 8H 7D 6C") == high("TC 9S 8H 7D 6C")  # top end
    assert high("JK TS 9H 8D 7C") == high("JC TS 9H 8D 7C")  # top end beats the bottom
    assert high("JK 9S 8H 6D 5C") == high("7C 9S 8H 6D 5C")  # middle
    assert high("JK KS QH JD TC") == high("AC KS QH JD TC")  # as an ace on top
    assert high("JK 3S 4H 5D 6C") == high("7C 3S 4H 5D 6C")  # higher end wins over 2-6


def test_joker_with_2_3_4_5_is_the_wheel_under_the_default_rule() -> None:
    rank = high("JK 2S 3H 4D 5C")
    assert rank == high("AC 2S 3H 4D 5C")
    assert rank > high("KC QS JH TD 9C")


def test_joker_with_2_3_4_5_is_six_high_when_the_wheel_is_lowest() -> None:
    assert high("JK 2S 3H 4D 5C", "lowest") == high("6C 2S 3H 4D 5C", "lowest")


def test_joker_completes_straight_flushes_and_royal_flushes() -> None:
    assert high("JK KS QS JS TS").category == "royal_flush"
    assert high("JK 9S 8S 7S 6S") == high("TS 9S 8S 7S 6S")
    assert high("JK 2S 3S 4S 5S") == high("AS 2S 3S 4S 5S")
    assert high("JK 2S 3S 4S 5S", "lowest") == high("6S 2S 3S 4S 5S", "lowest")


def test_outside_straights_and_flushes_the_joker_is_an_ace() -> None:
    assert high("JK KS KH 7D 2C") == high("AS KS KH 7D 2C")  # not three kings
    assert high("JK AS 7H 4D 2C") == high("AC AS 7H 4D 2C")  # a pair of aces
    assert high("JK QS 9H 5D 2C") == high("AD QS 9H 5D 2C")
    assert high("JK AS AH KD KC") == high("AC AS AH KD KC")  # a full house, aces full


def test_the_joker_makes_the_best_hand_it_can() -> None:
    # A A K Q + joker: a straight is impossible, three aces is the best.
    assert high("JK AS AH KD QC").category == "three_of_a_kind"
    # Four suited cards that also run: the straight flush beats the plain flush.
    assert high("JK 9H 8H 7H 5H").category == "straight_flush"


# --- the low hand and the foul rule ----------------------------------------------------------

def test_a_pair_beats_high_card_in_the_low_hand() -> None:
    assert evaluate_low(parse_cards("2S 2H")) > evaluate_low(parse_cards("AS KH"))
    assert evaluate_low(parse_cards("2S 2H")).category == "one_pair"
    assert evaluate_low(parse_cards("AS KH")).category == "high_card"


def test_low_high_cards_compare_higher_card_first_then_lower() -> None:
    assert evaluate_low(parse_cards("AS QH")) > evaluate_low(parse_cards("AD JH"))
    assert evaluate_low(parse_cards("KS QH")) == evaluate_low(parse_cards("KD QC"))


def test_in_the_low_hand_the_joker_is_an_ace() -> None:
    assert evaluate_low(parse_cards("JK AS")) == evaluate_low(parse_cards("AH AS"))
    assert evaluate_low(parse_cards("JK 7S")) == evaluate_low(parse_cards("AH 7S"))


def test_a_five_card_hand_compares_with_a_two_card_hand_for_the_foul_rule() -> None:
    back = high("AS 7C 5D 4H 2H")
    assert evaluate_low(parse_cards("JD TC")) < back
    assert evaluate_low(parse_cards("AD JC")) > back  # A J beats A 7 on the second card
    assert evaluate_low(parse_cards("AD 7D")) < back  # matched ranks: five-card is higher
    assert evaluate_low(parse_cards("AD 7D")) != back
    assert evaluate_low(parse_cards("2D 2C")) > back  # pair beats high card
    pair_back = high("KS KD 7C 4H 2H")
    assert evaluate_low(parse_cards("KH KC")) < pair_back
    assert evaluate_low(parse_cards("AH AC")) > pair_back
    assert not is_foul(high("9C 3S 3H 2D 2C"), evaluate_low(parse_cards("AS AD")))


def test_wrong_number_of_cards_or_a_card_twice_is_refused() -> None:
    with pytest.raises(InvalidCards, match="expected 5 cards"):
        evaluate_high(parse_cards("AS KS QS JS"))
    with pytest.raises(InvalidCards, match="same card twice"):
        evaluate_high("AS KS QS JS AS")
    with pytest.raises(InvalidCards, match="expected 2 cards"):
        evaluate_low(parse_cards("AS KS QS"))


def test_text_input_is_accepted_too() -> None:
    assert evaluate_high("as ks qs js ts").category == "royal_flush"
    assert evaluate_low("jk 7s").ranks == (14, 7)


# --- against the independent reference evaluator ---------------------------------------------

five_cards = st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True)


@given(five_cards, st.permutations(range(5)))
def test_the_order_of_the_cards_never_matters(cards: list, order: list[int]) -> None:
    shuffled = [cards[i] for i in order]
    for wheel in WHEELS:
        assert evaluate_high(tuple(cards), wheel) == evaluate_high(tuple(shuffled), wheel)


@given(five_cards)
def test_the_category_agrees_with_the_reference(cards: list) -> None:
    for wheel in WHEELS:
        key = reference_rank([c.code for c in cards], wheel)
        assert evaluate_high(tuple(cards), wheel).category == ORDER[key[0]]


def _assert_same_order(pairs: list[tuple[tuple, int]]) -> None:
    """The engine's values and the reference's keys must order the hands identically."""
    engine_of: dict[tuple, int] = {}
    reference_of: dict[int, tuple] = {}
    for key, value in pairs:
        assert engine_of.setdefault(key, value) == value, key
        assert reference_of.setdefault(value, key) == key, key
    values = [engine_of[key] for key in sorted(engine_of)]
    assert values == sorted(values)


@pytest.mark.slow  # seconds of fuzzing, sampling or waiting: make test runs it
@pytest.mark.parametrize("wheel", WHEELS)
def test_a_large_random_sample_ranks_exactly_as_the_reference(wheel: str) -> None:
    rng = random.Random(20240601)
    joker, rest = DECK[52], list(DECK[:52])
    pairs = []
    for i in range(20_000):
        # Half of the sample holds the joker: that is where the rules are subtle.
        hand = [joker, *rng.sample(rest, 4)] if i % 2 else rng.sample(rest, 5)
        rank = evaluate_high(tuple(hand), wheel)
        key = reference_rank([c.code for c in hand], wheel)
        assert rank.category == ORDER[key[0]], hand
        pairs.append((key, rank.value))
    _assert_same_order(pairs)


def test_every_two_card_hand_ranks_as_the_reference() -> None:
    pairs = []
    for i, a in enumerate(DECK):
        for b in DECK[i + 1:]:
            pairs.append((reference_low([a.code, b.code]), evaluate_low((a, b)).value))
    _assert_same_order(pairs)


# --- the checks of the public call, whatever shape the cards come in -------------------------

class _LooksLikeACard:
    """Has every attribute the evaluator reads, and is not one of the deck's cards."""

    def __init__(self, card: object) -> None:
        for name in ("code", "index", "is_joker", "prime", "rank", "sort_key", "suit",
                     "suit_bits"):
            setattr(self, name, getattr(card, name))


def test_a_tuple_holding_a_card_twice_is_refused() -> None:
    ace, king, queen, jack = parse_cards("AS KS QS JS")
    with pytest.raises(InvalidCards, match="same card twice: AS"):
        evaluate_high((ace, king, queen, jack, ace))
    joker = DECK[52]
    with pytest.raises(InvalidCards, match="same card twice: JK"):
        evaluate_high((joker, king, queen, jack, joker))


@pytest.mark.parametrize("text", ["AS AS KH QD JC", "AS AS AH AD JK", "7C 7C 7H 2D 2S",
                                  "JK 9H 8H 7H JK"])
def test_a_card_twice_is_refused_even_where_the_ranks_make_a_real_hand(text: str) -> None:
    # Each repeats one card where the ranks alone name a hand (a pair, five aces, a full
    # house): the rank lookup would answer, so only the duplicate check can refuse it.
    cards = tuple(DECK[[c.code for c in DECK].index(code)] for code in text.split())
    with pytest.raises(InvalidCards, match="same card twice"):
        evaluate_high(cards)


@pytest.mark.parametrize("count", [0, 1, 4, 6, 7])
def test_a_tuple_of_the_wrong_number_of_cards_is_refused(count: int) -> None:
    with pytest.raises(InvalidCards, match=f"expected 5 cards, got {count}"):
        evaluate_high(tuple(DECK[:count]))


def test_an_object_that_only_looks_like_a_card_is_refused() -> None:
    real = parse_cards("AS KS QS JS TS")
    fake: Any = (*real[:4], _LooksLikeACard(real[4]))
    with pytest.raises(InvalidCards, match="cannot read card"):
        evaluate_high(fake)


@pytest.mark.parametrize("odd", [0, 14, None, 2.5, b"AS", ("AS",)])
def test_a_tuple_holding_something_else_than_cards_is_refused(odd: object) -> None:
    with pytest.raises(InvalidCards, match="cannot read card"):
        evaluate_high((*parse_cards("AS KS QS JS"), cast(Any, odd)))


def test_a_tuple_or_list_of_card_codes_is_read_as_text() -> None:
    codes: Any = ("AS", "KS", "QS", "JS", "TS")
    assert evaluate_high(codes).category == "royal_flush"
    codes = ["JK", "AS", "AH", "AD", "AC"]
    assert evaluate_high(codes).category == "five_aces"
    codes = ("AS", "KS", "QS", "JS", "XX")
    with pytest.raises(InvalidCards, match="cannot read card 'XX'"):
        evaluate_high(codes)


def test_a_tuple_of_cards_and_an_unknown_wheel_rule_is_a_clear_error() -> None:
    with pytest.raises(PaiGowError, match="unknown wheel rule 'middle'"):
        evaluate_high(parse_cards("AC 2S 3H 4D 5C"), "middle")


def test_the_fast_and_the_slow_path_give_the_same_rank_object() -> None:
    cards = parse_cards("JK 9H 8H 7H 5H")
    for wheel in WHEELS:
        assert evaluate_high(cards, wheel) is evaluate_high(list(cards), wheel)
        assert evaluate_high(cards, wheel) is evaluate_high(format_cards(cards), wheel)
