"""The showdown against the banker (rules section 5) and the setting rules (section 4)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rounds.paigow import (
    DECK,
    HOUSE_WAYS,
    FoulSetting,
    InvalidCards,
    Setting,
    all_settings,
    house_way,
    parse_cards,
    showdown,
    validate_setting,
)


def setting(high: str, low: str) -> Setting:
    return validate_setting(high=parse_cards(high), low=parse_cards(low))


# The Dutch seed's worked example: the banker holds 5 5 T 4 2 / K Q.
BANKER = setting("5S 5H TS 4S 2S", "KS QS")


def test_player_a_loses_with_a_lower_high_hand_and_a_copied_low_hand() -> None:
    outcome = showdown(player=setting("AH TH 9H 6D 3C", "KH QH"), banker=BANKER)
    assert (outcome.high, outcome.low, outcome.result) == ("loss", "copy", "loss")


def test_player_b_wins_with_a_club_flush_and_ace_two() -> None:
    outcome = showdown(player=setting("KC JC 8C 6C 3C", "AD 2D"), banker=BANKER)
    assert (outcome.high, outcome.low, outcome.result) == ("win", "win", "win")


def test_player_c_pushes_when_the_jack_kicker_wins_and_the_low_hand_is_a_copy() -> None:
    outcome = showdown(player=setting("5D 5C JD 8D 3D", "KD QD"), banker=BANKER)
    assert (outcome.high, outcome.low, outcome.result) == ("win", "copy", "push")


def test_one_win_and_one_loss_is_a_push() -> None:
    outcome = showdown(player=setting("AH AD 9H 6D 3C", "7H 2C"), banker=BANKER)
    assert (outcome.high, outcome.low, outcome.result) == ("win", "loss", "push")


def test_copies_go_to_the_banker() -> None:
    player = setting("5D 5C TD 4D 2D", "KD QD")
    outcome = showdown(player=player, banker=BANKER)
    assert (outcome.high, outcome.low, outcome.result) == ("copy", "copy", "loss")
    # ... from either side: the banker never loses a copied hand.
    reverse = showdown(player=BANKER, banker=player)
    assert reverse.result == "loss"


def test_a_foul_setting_cannot_play() -> None:
    foul = Setting(high=parse_cards("AS 7C 5D 4H 2H"), low=parse_cards("JD TC"))
    assert showdown(player=foul, banker=BANKER).result in {"win", "push", "loss"}
    foul = Setting(high=parse_cards("JS 7C 5D 4H 2H"), low=parse_cards("AD TC"))
    with pytest.raises(FoulSetting, match=r"player's setting .* is foul"):
        showdown(player=foul, banker=BANKER)


def test_player_and_banker_cannot_share_a_card() -> None:
    with pytest.raises(InvalidCards, match="same card: KS"):
        showdown(player=setting("AH AD 9H 6D 3C", "KS 2C"), banker=BANKER)


# --- setting (section 4) ---------------------------------------------------------------------

def test_the_seed_foul_example_is_refused_with_a_clear_error() -> None:
    seven = "AS JD TC 7H 5S 4D 2C"
    with pytest.raises(FoulSetting, match="low hand AS TC outranks the high hand"):
        validate_setting(seven, high="JD 7H 5S 4D 2C", low="AS TC")
    assert validate_setting(seven, high="AS 7H 5S 4D 2C", low="JD TC").low == \
        parse_cards("JD TC")


def test_pair_of_aces_in_front_of_two_pair_is_legal() -> None:
    s = validate_setting("AS AD 9C 3H 3S 2D 2C", high="9C 3H 3S 2D 2C", low="AS AD")
    assert s.foul is False


def test_a_setting_must_use_exactly_the_cards_dealt() -> None:
    with pytest.raises(InvalidCards, match="does not use exactly the cards dealt"):
        validate_setting("AS JD TC 7H 5S 4D 2C", high="AS 7H 5S 4D 3C", low="JD TC")
    with pytest.raises(InvalidCards, match="same card twice"):
        validate_setting(high="AS 7H 5S 4D 2C", low="AS TC")


def test_all_settings_lists_the_21_splits_and_marks_the_fouls() -> None:
    splits = all_settings("AS JD TC 7H 5S 4D 2C")
    assert len(splits) == len(set(splits)) == 21
    legal = [s for s in splits if not s.foul]
    # The ace must stay in back and the front must not beat A 7: J T, J 7... are legal.
    assert all(parse_cards("AS")[0] in s.high for s in legal)
    assert any(s.foul for s in splits)


# --- properties ------------------------------------------------------------------------------

fourteen = st.lists(st.sampled_from(DECK), min_size=14, max_size=14, unique=True)


@settings(max_examples=300)
@given(fourteen, st.sampled_from(sorted(HOUSE_WAYS)), st.sampled_from(["second_highest",
                                                                        "lowest"]))
def test_showdown_is_antisymmetric_except_that_copies_go_to_the_banker(
    cards: list, way: str, wheel: str
) -> None:
    a = house_way(cards[:7], way=way, wheel=wheel)
    b = house_way(cards[7:], way=way, wheel=wheel)
    ab = showdown(player=a, banker=b, wheel=wheel)
    ba = showdown(player=b, banker=a, wheel=wheel)
    flip = {"win": "loss", "loss": "win", "copy": "copy"}
    assert ba.high == flip[ab.high] and ba.low == flip[ab.low]
    copies = (ab.high == "copy") + (ab.low == "copy")
    if copies == 0:
        assert ba.result == {"win": "loss", "loss": "win", "push": "push"}[ab.result]
    else:
        # With a copy nobody can win outright; the copy counts against whoever plays.
        assert "win" not in (ab.result, ba.result)
