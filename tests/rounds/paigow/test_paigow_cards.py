"""Card notation (rules section 1)."""

import pickle

import pytest

from rounds.paigow import DECK, JOKER, InvalidCards, PaiGowError, format_cards, parse_cards


def test_notation_round_trips_in_canonical_upper_case() -> None:
    cards = parse_cards("AS kd JK 7c 5H 4D 2S")
    assert format_cards(cards) == "AS KD JK 7C 5H 4D 2S"


def test_ten_is_accepted_as_t() -> None:
    assert format_cards(parse_cards("10h 10S TD")) == "TH TS TD"


def test_a_list_of_strings_is_read_like_one_string() -> None:
    assert parse_cards(["AS", "kd", "jk"]) == parse_cards("AS KD JK")
    assert parse_cards(["AS KD", "JK"]) == parse_cards("AS KD JK")


def test_cards_are_interned_so_parsing_twice_gives_the_same_objects() -> None:
    assert parse_cards("AS")[0] is parse_cards("as")[0]
    assert parse_cards(parse_cards("AS KD")) == parse_cards("AS KD")


def test_the_deck_has_53_distinct_cards_with_one_joker() -> None:
    assert len(DECK) == 53
    assert len({c.code for c in DECK}) == 53
    assert [c for c in DECK if c.is_joker] == [JOKER]
    assert JOKER.code == "JK"


def test_a_card_survives_pickling_as_the_same_object() -> None:
    assert pickle.loads(pickle.dumps(JOKER)) is JOKER  # noqa: S301 (our own bytes)


@pytest.mark.parametrize("text", ["1S", "AX", "A", "JOKER", "ASS", "11H", "KK", "ZZ", "0S"])
def test_unreadable_notation_is_a_clear_error(text: str) -> None:
    with pytest.raises(InvalidCards, match="cannot read card"):
        parse_cards(text)


def test_the_same_card_twice_is_refused() -> None:
    with pytest.raises(InvalidCards, match="same card twice: AS"):
        parse_cards("AS KD as")


def test_a_wrong_number_of_cards_is_refused() -> None:
    with pytest.raises(InvalidCards, match="expected 7 cards, got 2"):
        parse_cards("AS KD", count=7)


def test_domain_errors_are_value_errors() -> None:
    assert issubclass(InvalidCards, PaiGowError)
    assert issubclass(PaiGowError, ValueError)


def test_no_card_can_be_made_besides_the_53_of_the_deck() -> None:
    with pytest.raises(TypeError, match="53 cards exist once each"):
        type(JOKER)(14, "S", 51)


def test_a_card_object_made_around_the_constructor_is_refused() -> None:
    forged = object.__new__(type(JOKER))
    with pytest.raises(InvalidCards, match="not one of the deck's"):
        parse_cards([forged])
