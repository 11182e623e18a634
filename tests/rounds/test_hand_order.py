"""Rules §4.1 at every door: players set their hands first; once every player's hand is set
the bank's hand shows and no player's hand changes; the bank's hand is set last."""

from __future__ import annotations

import pytest
from django.test import Client

from casino import roles
from casino.services import staff_create
from rounds.models import Hand, RoundEvent

pytestmark = pytest.mark.django_db

# Seat 1's seven cards: re-split, its low hand Q♠ 9♦ becomes Q♠ 5♥ (the finding's example).
HANDS = {"dealer": "KD KC 9S 7H 4D QH JS", "1": "AS AH KS QC 7C 5H 9D",
         "2": "2C 3C 4C 5C 8D TD JD", "3": "6D 6H 7S 8S TC JC 3D"}


def dealt_house_round(dealer, table, seat_player) -> int:
    for seat in (1, 2):
        seat_player(table, seat)
    round_id = dealer.open_round(table)["id"]
    for seat in (1, 2):
        dealer.wager(round_id, seat, "10.00")
    dealer.banker(round_id, house=True)
    dealer.deal(round_id, {"hands": {p: HANDS[p] for p in ("dealer", "1", "2")}})
    return round_id


def test_a_players_hand_is_refused_after_every_players_hand_is_set(dealer, table,
                                                                   seat_player):
    # given a house-banked round whose two players' hands are set: the dealer's now shows
    round_id = dealt_house_round(dealer, table, seat_player)
    dealer.hand(round_id, position="1", high="AS AH KS 7C 5H", low="QC 9D")
    # (seat 1 may still change its mind while seat 2 has not set)
    dealer.hand(round_id, position="1", high="AS AH KS 7C 9D", low="QC 5H")
    dealer.hand(round_id, position="2", house_way=True)
    events = RoundEvent.objects.filter(round_id=round_id).count()
    before = Hand.objects.get(round_id=round_id, position="1")

    # when seat 1 is re-split through the API
    refused = dealer.hand(round_id, position="1", high="AS AH KS 7C 5H", low="QC 9D",
                          expect=409)

    # then it is refused with a code of its own and nothing changes
    assert refused["error"]["code"] == "hands_revealed"
    hand = Hand.objects.get(round_id=round_id, position="1")
    assert (hand.high, hand.low, hand.set_by) == (before.high, before.low, before.set_by)
    assert hand.low.split() == ["QC", "5H"]
    assert RoundEvent.objects.filter(round_id=round_id).count() == events
    assert dealer.settle(round_id)["state"] == "settled"


def test_the_console_refuses_a_re_split_after_the_reveal_in_words(dealer, table,
                                                                  seat_player):
    # given every player's hand set
    round_id = dealt_house_round(dealer, table, seat_player)
    dealer.hand(round_id, position="1", house_way=True)
    dealer.hand(round_id, position="2", house_way=True)
    before = Hand.objects.get(round_id=round_id, position="1")
    user, _ = staff_create(username="console-dealer", role=roles.DEALER)
    client = Client()
    client.force_login(user)

    # when the dealer re-splits seat 1 from the console
    answer = client.post(f"/rounds/{round_id}/hands/1/",
                         {"low": ["QC", "5H"]}, follow=True)

    # then the screen says why in words and the hand is as it was
    assert answer.status_code == 200
    text = answer.content.decode()
    assert "can no longer change" in text
    after = Hand.objects.get(round_id=round_id, position="1")
    assert (after.high, after.low, after.set_by) == (before.high, before.low, before.set_by)


def test_a_player_bankers_hand_is_set_last(dealer, table, seat_player):
    # given a player-banked round: seat 1 banks against seats 2 and 3
    for seat in (1, 2, 3):
        seat_player(table, seat)
    dealer.house_round(table, {1: "10.00"}, {"1": "push"})  # seat 1 may bank next
    round_id = dealer.open_round(table)["id"]
    for seat in (2, 3):
        dealer.wager(round_id, seat, "10.00")
    dealer.banker(round_id, seat=1, house_stake="0")
    dealer.deal(round_id, {"hands": {p: HANDS[p] for p in ("1", "2", "3")}})

    # when the banker's hand is set before every player's
    dealer.hand(round_id, position="2", house_way=True)
    refused = dealer.hand(round_id, position="1", house_way=True, expect=409)

    # then it is refused, and taken once the players are set
    assert refused["error"]["code"] == "bank_sets_last"
    assert Hand.objects.get(round_id=round_id, position="1").set_by == ""
    dealer.hand(round_id, position="3", house_way=True)
    assert dealer.hand(round_id, position="1", house_way=True)["state"] == "dealt"
    assert dealer.settle(round_id)["state"] == "settled"


def test_the_api_shows_no_card_of_the_bank_nor_of_the_shoe_while_players_set(
        dealer, pit_boss_client, auditor_client, table, seat_player):
    # given an electronic deal at a house-banked table, seat 2 still to set its hand
    for seat in (1, 2):
        seat_player(table, seat)
    round_id = dealer.open_round(table)["id"]
    for seat in (1, 2):
        dealer.wager(round_id, seat, "10.00")
    dealer.banker(round_id, house=True)
    dealer.deal(round_id)
    dealer.hand(round_id, position="1", house_way=True)

    # then no role's answer holds the dealer's cards, the burnt cards or the stacks
    for client in (dealer.client, pit_boss_client, auditor_client):
        answer = client.get(f"/api/v1/rounds/{round_id}")
        assert answer.status_code == 200
        body = answer.json()
        dealer_hand = next(h for h in body["hands"] if h["position"] == "dealer")
        assert (dealer_hand["cards"], dealer_hand["high"], dealer_hand["low"]) == (None,) * 3
        assert body["deal"]["burnt"] is None
        dealt = next(e for e in body["events"] if e["kind"] == "dealt")
        assert not {"stacks", "burnt", "hands"} & set(dealt["data"])
        # a player's own hand shows
        assert next(h for h in body["hands"] if h["position"] == "1")["cards"]

    # when the last player sets, the dealer's hand shows; after settlement, everything
    dealer.hand(round_id, position="2", house_way=True)
    shown = dealer.get(round_id)
    dealer_cards = Hand.objects.get(round_id=round_id, position="dealer").cards.split()
    assert next(h for h in shown["hands"] if h["position"] == "dealer")["cards"] == dealer_cards
    assert shown["deal"]["burnt"] is None
    settled = dealer.settle(round_id)
    assert settled["deal"]["burnt"] and len(settled["deal"]["burnt"]) == 4
    assert "stacks" in next(e for e in settled["events"] if e["kind"] == "dealt")["data"]
