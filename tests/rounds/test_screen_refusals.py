"""The console shows the services' refusals in words for people, from the real errors."""

from __future__ import annotations

import pytest

from casino.shared.errors import DomainError
from rounds import services
from rounds.screens.refusals import refusal_text

pytestmark = pytest.mark.django_db


def _refusal(call) -> DomainError:
    with pytest.raises(DomainError) as refused:
        call()
    return refused.value


def test_a_step_out_of_order_says_where_the_round_is(pit_boss, table, seat_player):
    seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    error = _refusal(lambda: services.round_deal(round_id=round_.pk, by=pit_boss))

    text = refusal_text(error, currency="EUR")

    assert text == ("Betting is still open: the banker is not set yet. The step was not "
                    "taken.")
    assert "'betting'" not in text and "State" not in text


def test_a_wager_beyond_the_limits_names_them_in_money(pit_boss, table, seat_player):
    seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    error = _refusal(lambda: services.wager_place(round_id=round_.pk, seat=1, amount=50_000,
                                                  by=pit_boss))

    assert refusal_text(error, currency="EUR") == (
        "A wager at this table is from 2.00 EUR to 100.00 EUR.")


def test_a_wager_beyond_the_players_funds_names_the_player(pit_boss, table, seat_player):
    seat_player(table, 1, funds=500)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    error = _refusal(lambda: services.wager_place(round_id=round_.pk, seat=1, amount=1_000,
                                                  by=pit_boss))

    text = refusal_text(error, currency="EUR", who="Anna")

    assert text == "Anna has 5.00 EUR available; this needs 10.00 EUR. Nothing was changed."
    assert "Account #" not in text and "player:" not in text


def test_a_foul_names_the_cards_with_their_suits(pit_boss, table, seat_player):
    seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    services.round_deal(round_id=round_.pk, by=pit_boss, hands={
        "dealer": "KD KC 9S 7H 4D QH JS", "1": "AS AH KS QC 7C 5D 2C"})
    error = _refusal(lambda: services.hand_set(round_id=round_.pk, position="1", by=pit_boss,
                                               high="KS QC 7C 5D 2C", low="AS AH"))

    assert refusal_text(error).startswith(
        "That split is a foul: the two-card hand A♠ A♥ ranks above the five-card hand K♠ ")


def test_a_message_already_in_words_gets_a_capital_and_a_full_stop(pit_boss, table):
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    error = _refusal(lambda: services.table_update(table_id=table.pk, by=pit_boss,
                                                   changes={"max_bet": 20_000}))

    assert round_.state == "betting"
    assert refusal_text(error) == (
        "Settings change only between rounds: this table has a round in play.")
