"""The bank's rotation (rules §7.1) on its own: plain values, no database."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rounds.paigow import UnknownOption
from rounds.paigow.rotation import (
    BankTable,
    Reason,
    bank_offer,
    bank_refusal,
    offer_order,
    passed_before,
)

SEATED = {1: "Anna", 2: "Bram", 3: "Chris", 5: "Eva"}


def table(**changes: object) -> BankTable:
    """Four players seated (seat 4 and 6 empty), every one of whom played against the
    house last round, which the house banked: anyone may bank."""
    base = BankTable(rotation="alternate", must_have_played=True, seated=SEATED,
                     played_against_house=frozenset(SEATED), previous_round=1)
    return replace(base, **changes)  # type: ignore[arg-type]


# --- the order of the offer ------------------------------------------------------------------

def test_the_offer_starts_at_seat_1_when_no_player_has_banked():
    assert offer_order(table()) == (1, 2, 3, 4, 5, 6)


def test_the_offer_starts_after_the_last_player_who_banked_and_goes_round_again():
    assert offer_order(table(last_banker_seat=3)) == (4, 5, 6, 1, 2, 3)
    assert offer_order(table(last_banker_seat=6)) == (1, 2, 3, 4, 5, 6)


def test_the_bank_is_offered_to_the_first_seated_player_in_that_order():
    offer = bank_offer(table(last_banker_seat=3))
    # seat 4 is empty: passed over without a word, as nobody sits there to pass it on
    assert (offer.seat, offer.passed) == (5, ())


def test_a_declined_offer_passes_to_the_next_seat_that_may_bank():
    offer = bank_offer(table(declined=(1,), wagering=frozenset({2})))

    assert offer.seat == 3
    assert [(r.seat, r.reason) for r in offer.passed] == [(1, Reason.DECLINED),
                                                          (2, Reason.HAS_WAGER)]


def test_when_every_seat_declines_the_house_banks_and_the_screen_says_why():
    offer = bank_offer(table(declined=(1, 2, 3), wagering=frozenset({5})))

    assert offer.seat is None
    assert offer.why_none == (
        "No seated player can take the bank this round (seat 1 · Anna declined; seat 2 · "
        "Bram declined; seat 3 · Chris declined; seat 5 · Eva has a wager): the house banks.")


def test_the_seats_before_the_banker_in_the_offer_order_passed():
    assert passed_before(table(last_banker_seat=2), 1) == [3, 5]
    assert passed_before(table(), 1) == []


def test_an_empty_table_offers_the_bank_to_nobody():
    offer = bank_offer(table(seated={}))
    assert (offer.seat, offer.why_none) == (None, "No player is seated: the house banks.")


# --- every reason a seat may not bank ------------------------------------------------------------

def test_nobody_sitting_at_the_seat():
    refusal = bank_refusal(table(), 4)
    assert refusal is not None and refusal.reason == Reason.NOT_SEATED
    assert refusal.message == "nobody sits at seat 4"


def test_the_seat_declined_this_round():
    refusal = bank_refusal(table(declined=(2,)), 2)
    assert refusal is not None and refusal.reason == Reason.DECLINED
    assert refusal.message == "Bram declined the bank this round: it has passed on"


def test_the_seat_has_a_wager_of_its_own():
    refusal = bank_refusal(table(wagering=frozenset({3})), 3)
    assert refusal is not None and refusal.reason == Reason.HAS_WAGER
    assert "places no wager of their own: clear seat 3's wager first" in refusal.message


def test_alternate_the_house_banks_after_a_player_banked():
    after_player = table(previous_round=7, previous_banker_seat=2, last_banker_seat=2)

    refusals = [bank_refusal(after_player, seat) for seat in SEATED]

    assert {r.reason for r in refusals if r} == {Reason.HOUSE_TURN} and None not in refusals
    assert refusals[0] is not None and refusals[0].message == (
        "with alternate rotation the bank returns to the house every other round, and "
        "round 7 was banked by a player")
    assert bank_offer(after_player).why_none == (
        "The bank returns to the house this round: round 7 was banked by a player.")


def test_alternate_after_a_house_banked_round_the_bank_goes_on_after_the_last_player_banker():
    after_house = table(previous_round=8, previous_banker_seat=None, last_banker_seat=2)
    assert bank_refusal(after_house, 1) is None
    assert bank_offer(after_house).seat == 3


def test_circle_only_a_later_seat_may_bank_after_a_player_banked():
    circle = table(rotation="circle", previous_round=4, previous_banker_seat=2,
                   last_banker_seat=2)

    for seat in (1, 2):
        refusal = bank_refusal(circle, seat)
        assert refusal is not None and refusal.reason == Reason.CIRCLE_MOVED_ON
        assert "moves on after seat 2" in refusal.message
    assert bank_refusal(circle, 3) is None
    assert bank_offer(circle).seat == 3


def test_circle_complete_the_house_banks_then_any_seat_may_start_again():
    circle_done = table(rotation="circle", previous_round=4, previous_banker_seat=5,
                        last_banker_seat=5)
    assert bank_offer(circle_done).seat is None
    assert "seat 1 · Anna was passed in this circle" in bank_offer(circle_done).why_none

    restarted = replace(circle_done, previous_round=5, previous_banker_seat=None)
    assert bank_offer(restarted).seat == 1


def test_open_rotation_lets_a_player_bank_right_after_a_player_banked():
    open_table = table(rotation="open", previous_round=4, previous_banker_seat=2,
                       last_banker_seat=2)
    assert bank_refusal(open_table, 2) is None
    assert bank_offer(open_table).seat == 3


def test_a_player_who_did_not_play_against_the_house_may_not_bank():
    refusal = bank_refusal(table(played_against_house=frozenset({2})), 1)
    assert refusal is not None and refusal.reason == Reason.NOT_PLAYED
    assert refusal.message == ("Anna may bank only after wagering against the house in the "
                               "last house-banked round at this table")
    assert bank_refusal(table(played_against_house=frozenset(), must_have_played=False),
                        1) is None


@pytest.mark.parametrize(("changes", "reason"), [
    ({"declined": (1,), "wagering": frozenset({1})}, Reason.DECLINED),
    ({"wagering": frozenset({1}), "previous_banker_seat": 3}, Reason.HAS_WAGER),
    ({"previous_banker_seat": 3, "played_against_house": frozenset()}, Reason.HOUSE_TURN),
])
def test_the_first_reason_that_applies_is_the_one_given(changes, reason):
    refusal = bank_refusal(table(**changes), 1)
    assert refusal is not None and refusal.reason == reason


def test_an_unknown_rotation_is_refused():
    with pytest.raises(UnknownOption, match="unknown bank rotation 'sometimes'"):
        table(rotation="sometimes")
