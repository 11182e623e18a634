"""Whole rounds through the REST API, figure by figure from the rules page (§5-§7)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.core.management import call_command

from ledger.models import Entry, Hold
from rounds.models import Round, RoundEvent, Wager
from tests.rounds.conftest import Dealer, available, balances

pytestmark = pytest.mark.django_db


def played_house_round(dealer, table, seat, amount="100.00"):
    """A house-banked round in which ``seat`` wagers (and pushes): it makes the seat's
    player eligible to bank next (banker_must_have_played) with that wager as stake cap."""
    return dealer.house_round(table, {seat: amount}, {str(seat): "push"})


def test_the_dutch_seed_example_the_player_banker_pays_one_euro_commission(
    dealer, table, seat_player
):
    # given a player-banker at seat 1 and four players
    banker = seat_player(table, 1, funds=100_000)
    p2, p3, p4, p5 = (seat_player(table, n, funds=50_000) for n in (2, 3, 4, 5))
    played_house_round(dealer, table, 1)
    before = balances(banker, p2, p3, p4, p5)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "100.00")
    dealer.wager(round_id, 5, "60.00")
    dealer.wager(round_id, 3, "100.00")
    dealer.wager(round_id, 4, "40.00")
    dealer.banker(round_id, seat=1, house_stake="0")

    # when the bank wins €160 from seats 2 and 5 and pays €140 to seats 3 and 4
    body = dealer.settle(round_id, {"outcomes": {"2": "loss", "5": "loss",
                                                 "3": "win", "4": "win"}})

    # then the house takes 5% x (160 - 140) = €1 from the banker, and 5% of each win
    settlement = body["settlement"]
    assert settlement["banker"] == {"position": "1", "net": "20.00", "commission": "1.00"}
    by_position = {p["position"]: p for p in settlement["positions"]}
    assert by_position["3"]["commission"] == "5.00" and by_position["3"]["net"] == "95.00"
    assert by_position["4"]["commission"] == "2.00" and by_position["4"]["net"] == "38.00"
    assert by_position["2"]["amount"] == "-100.00" and by_position["5"]["amount"] == "-60.00"
    assert settlement["house"]["commission_income"] == "8.00"
    after = balances(banker, p2, p3, p4, p5)
    assert [a[0] - b[0] for a, b in zip(after, before, strict=True)] == [
        2_000 - 100, -10_000, 9_500, 3_800, -6_000]
    assert all(held == 0 for _, held in after)
    assert Entry.objects.filter(ref=f"round:{round_id}").count() == 1


def test_players_a_b_and_c_against_the_banker_5_5_t_4_2_over_k_q(dealer, table, seat_player):
    # given the Dutch seed's showdown, house-banked, recorded from a physical table
    a, b, c = (seat_player(table, n, funds=10_000) for n in (1, 2, 3))
    round_id = dealer.open_round(table)["id"]
    for seat in (1, 2, 3):
        dealer.wager(round_id, seat, "20.00")
    dealer.banker(round_id, house=True)
    dealer.deal(round_id, {"hands": {
        "dealer": ["5S", "5H", "TD", "4C", "2S", "KD", "QC"],
        "1": ["AH", "TS", "9C", "6D", "3H", "KS", "QH"],
        "2": ["KC", "JC", "8C", "6C", "3C", "AS", "2D"],
        "3": ["5D", "5C", "JH", "8S", "3D", "KH", "QD"],
    }})

    # when each player sets their hand as in the example
    dealer.hand(round_id, position="1", high="AH TS 9C 6D 3H", low="KS QH")
    dealer.hand(round_id, position="2", high="KC JC 8C 6C 3C", low="AS 2D")
    dealer.hand(round_id, position="3", high="5D 5C JH 8S 3D", low="KH QD")
    body = dealer.settle(round_id)

    # then the dealer's hand was set by the house way, and A loses, B wins, C pushes
    dealer_hand = next(h for h in body["hands"] if h["position"] == "dealer")
    assert sorted(dealer_hand["high"]) == sorted(["5S", "5H", "TD", "4C", "2S"])
    assert sorted(dealer_hand["low"]) == ["KD", "QC"]
    results = {p["position"]: (p["outcome"], p["high"], p["low"])
               for p in body["settlement"]["positions"]}
    assert results == {"1": ("loss", "loss", "copy"), "2": ("win", "win", "win"),
                       "3": ("push", "win", "copy")}
    assert [available(p) for p in (a, b, c)] == [8_000, 11_900, 10_000]


def test_copies_go_to_the_banker(dealer, table, seat_player):
    # given a player whose hands exactly equal the dealer's, rank for rank
    player = seat_player(table, 1, funds=10_000)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)
    dealer.deal(round_id, {"hands": {
        "dealer": ["KS", "KH", "9D", "7C", "4S", "QC", "JD"],
        "1": ["KD", "KC", "9S", "7H", "4D", "QH", "JS"],
    }})

    dealer.hand(round_id, position="1", high="KD KC 9S 7H 4D", low="QH JS")
    body = dealer.settle(round_id)

    position = body["settlement"]["positions"][0]
    assert (position["outcome"], position["high"], position["low"]) == ("loss", "copy", "copy")
    assert available(player) == 9_000


def test_an_electronic_house_banked_round_runs_from_deal_to_settlement(
    dealer, table, seat_player
):
    players = [seat_player(table, n, funds=10_000) for n in (2, 5)]
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "10")
    dealer.wager(round_id, 5, "25.50")
    dealer.banker(round_id, house=True)

    body = dealer.deal(round_id)

    assert body["state"] == "dealt"
    assert len(body["deal"]["dice"]) == 3 and 3 <= body["deal"]["dice_total"] <= 18
    assert body["deal"]["counted_position"] in ("dealer", "1", "2", "3", "4", "5", "6")
    # game protection: the burnt cards and the dealer's stay hidden while players set
    assert body["deal"]["burnt"] is None
    assert {h["position"] for h in body["hands"]} == {"dealer", "2", "5"}
    assert [h["cards"] for h in body["hands"] if h["position"] == "dealer"] == [None]
    dealer.hand(round_id, position="2", house_way=True)
    dealer.hand(round_id, position="5", house_way=True)
    settled = dealer.settle(round_id)
    assert settled["state"] == "settled"
    assert len(settled["deal"]["burnt"]) == 4
    cards = [c for h in settled["hands"] for c in h["cards"]] + settled["deal"]["burnt"]
    assert len(cards) == 3 * 7 + 4 and len(set(cards)) == len(cards)
    assert [e["kind"] for e in settled["events"]] == [
        "opened", "wager_placed", "wager_placed", "banker_set", "dealt",
        "hand_set", "hand_set", "settled"]
    positions = {p["position"]: p for p in settled["settlement"]["positions"]}
    # an entry exists exactly when money moved (a round of pushes moves none)
    moved = any(p["outcome"] != "push" for p in positions.values())
    assert bool(settled["settlement"]["entry"]) == moved
    # 5% of €25.50 is 127.5 cents, rounded half up to 128
    for player, seat, wager, commission in ((players[0], "2", 1_000, 50),
                                            (players[1], "5", 2_550, 128)):
        expected = {"win": wager - commission, "push": 0, "loss": -wager}
        assert available(player) - 10_000 == expected[positions[seat]["outcome"]]


def test_an_insolvent_banker_cannot_start_the_deal_and_nothing_changes(
    dealer, table, seat_player
):
    # given a banker with €150 facing €100 + €80 of wagers
    banker = seat_player(table, 1, funds=25_000)
    p2, p3 = seat_player(table, 2), seat_player(table, 3)
    played_house_round(dealer, table, 1)
    dealer.call("post", f"/api/v1/players/{banker.pk}/withdrawals",
                {"amount": "100.00"}, expect=403)  # a dealer is not the cage
    from casino.services import player_withdraw

    player_withdraw(player_id=banker.pk, amount=10_000, by=None)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "100.00")
    dealer.wager(round_id, 3, "80.00")
    dealer.banker(round_id, seat=1, house_stake="0")
    before = balances(banker, p2, p3)
    holds_before = Hold.objects.count()

    # when
    body = dealer.deal(round_id, expect=409)

    # then the refusal states the figures and nothing changed
    assert body["error"]["code"] == "banker_insolvent"
    assert body["error"]["detail"] == {"required": "180.00", "available": "150.00",
                                       "shortfall": "30.00"}
    assert balances(banker, p2, p3) == before
    assert Hold.objects.count() == holds_before
    assert dealer.get(round_id)["state"] == "banker_set"


def test_the_house_stake_counts_in_the_solvency_check(dealer, table, seat_player):
    banker = seat_player(table, 1, funds=14_900)
    seat_player(table, 2)
    played_house_round(dealer, table, 1, amount="50.00")
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "100.00")
    dealer.banker(round_id, seat=1, house_stake="50.00")

    body = dealer.deal(round_id, expect=409)

    assert body["error"]["detail"] == {"required": "150.00", "available": "149.00",
                                       "shortfall": "1.00"}
    assert available(banker) == 14_900


def test_a_banker_whose_funds_are_held_cannot_spend_them_elsewhere(
    dealer, cage_client, pit_boss_client, table, make_table, seat_player
):
    # given a banker whose €200 is held as cover for a €100 wager and a €100 house stake
    banker = seat_player(table, 1, funds=20_000)
    seat_player(table, 2)
    played_house_round(dealer, table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "100.00")
    dealer.banker(round_id, seat=1, house_stake="100.00")
    body = dealer.deal(round_id, {"results_only": True})
    assert body["solvency"]["required"] == "200.00"
    assert available(banker) == 0

    # when the banker tries to cash out, or to sit at another table to wager there
    withdrawal = cage_client.post(f"/api/v1/players/{banker.pk}/withdrawals",
                                  {"amount": "1.00"}, format="json")
    other = make_table(name="Other table")
    seat = Dealer(pit_boss_client).call("put", f"/api/v1/tables/{other.pk}/seats/1",
                                        {"player": banker.pk}, expect=409)
    # then both are refused (a player sits at one table at a time)
    assert withdrawal.status_code == 409
    assert withdrawal.json()["error"]["code"] == "insufficient_funds"
    assert seat["error"]["code"] == "player_seated_elsewhere"


@pytest.mark.parametrize("amount", ["1.99", "100.01", "0", "-5.00"])
def test_wagers_outside_the_table_limits_are_refused(dealer, table, seat_player, amount):
    player = seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]

    body = dealer.wager(round_id, 1, amount, expect=400)

    assert body["error"]["code"] == "out_of_limits"
    assert body["error"]["detail"]["min_bet"] == "2.00"
    assert available(player) == 100_000
    assert dealer.get(round_id)["wagers"] == []


@pytest.mark.parametrize("amount", [12.5, "12.555", "twelve", True, None])
def test_malformed_amounts_are_refused_with_400(dealer, table, seat_player, amount):
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]

    response = dealer.client.post(f"/api/v1/rounds/{round_id}/wagers",
                                  {"seat": 1, "amount": amount}, format="json")

    assert response.status_code == 400
    assert set(response.json()["error"]) == {"code", "message", "detail"}


@pytest.mark.parametrize("round_id", [999_999, 2**63, 2**70])
def test_a_wager_for_a_round_that_does_not_exist_is_404(dealer, round_id):
    # The amount is read in the round's currency, asked first: a missing round, even one
    # beyond the key's range, is a 404 in the one error shape.
    response = dealer.client.post(f"/api/v1/rounds/{round_id}/wagers",
                                  {"seat": 1, "amount": "10.00"}, format="json")

    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "not_found"


def test_out_of_order_steps_are_refused_and_change_nothing(dealer, table, seat_player):
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]

    assert dealer.deal(round_id, expect=409)["error"]["code"] == "wrong_state"
    assert dealer.settle(round_id, expect=409)["error"]["code"] == "wrong_state"
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)
    assert dealer.wager(round_id, 1, "10.00", expect=409)["error"]["code"] == "wrong_state"
    dealer.settle(round_id, {"outcomes": {"1": "win"}})
    assert dealer.deal(round_id, expect=409)["error"]["code"] == "wrong_state"
    assert dealer.call("post", f"/api/v1/rounds/{round_id}/void", {"reason": "late"},
                       expect=403)  # voiding is a pit boss's call
    assert Round.objects.get(pk=round_id).state == "settled"


def test_a_foul_setting_is_refused_and_a_live_foul_follows_the_table_policy(
    dealer, make_table, seat_player
):
    table = make_table(foul_policy="forfeit")
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)
    dealer.deal(round_id, {"hands": {
        "dealer": ["2S", "3H", "5D", "7C", "9S", "JC", "KD"],
        "1": ["AS", "JH", "TD", "7H", "5S", "4D", "2H"],
    }})

    # the ace in front outranks the high hand: refused through the service...
    refused = dealer.hand(round_id, position="1", high="JH TD 7H 5S 4D", low="AS 2H",
                          expect=400)
    assert refused["error"]["code"] == "foul_setting"
    # ...but recorded as played at a live table, it forfeits
    body = dealer.hand(round_id, position="1", high="JH TD 7H 5S 4D", low="AS 2H",
                       as_played=True)
    assert next(h for h in body["hands"] if h["position"] == "1")["set_by"] == "foul_forfeit"
    assert dealer.settle(round_id)["settlement"]["positions"][0]["outcome"] == "loss"


def test_results_only_settlement_pays_each_position_by_its_outcome(dealer, table, seat_player):
    p1, p2, p3 = (seat_player(table, n, funds=10_000) for n in (1, 2, 3))

    body = dealer.house_round(table, {1: "20.00", 2: "20.00", 3: "20.00"},
                              {"1": "win", "2": "push", "3": "loss"})

    assert body["deal"]["kind"] == "results"
    assert [available(p) for p in (p1, p2, p3)] == [11_900, 10_000, 8_000]
    assert body["settlement"]["house"]["commission_income"] == "1.00"


def test_void_before_settlement_leaves_every_balance_as_before(
    dealer, pit_boss_client, table, seat_player
):
    banker = seat_player(table, 1, funds=50_000)
    p2 = seat_player(table, 2)
    played_house_round(dealer, table, 1)
    before = balances(banker, p2)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "80.00")
    dealer.banker(round_id, seat=1, house_stake="0")
    dealer.deal(round_id)

    response = pit_boss_client.post(f"/api/v1/rounds/{round_id}/void",
                                    {"reason": "misdeal"}, format="json")

    assert response.status_code == 200
    assert response.json()["state"] == "voided"
    assert balances(banker, p2) == before
    assert not Hold.objects.filter(status="open").exists()


def test_reversal_after_settlement_leaves_every_balance_as_before(
    dealer, pit_boss_client, table, seat_player
):
    banker = seat_player(table, 1, funds=50_000)
    p2, p3 = seat_player(table, 2), seat_player(table, 3)
    played_house_round(dealer, table, 1)
    before = balances(banker, p2, p3)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "80.00")
    dealer.wager(round_id, 3, "30.00")
    dealer.banker(round_id, seat=1, house_stake="0")
    dealer.settle(round_id, {"outcomes": {"2": "loss", "3": "win"}})
    assert balances(banker, p2, p3) != before

    response = pit_boss_client.post(f"/api/v1/rounds/{round_id}/reverse",
                                    {"reason": "wrong outcome keyed"}, format="json")

    body = response.json()
    assert response.status_code == 200 and body["state"] == "reversed"
    assert body["settlement"]["entry"] and body["settlement"]["reversal_entry"]
    assert balances(banker, p2, p3) == before


def test_settling_twice_returns_the_first_settlement(dealer, table, seat_player):
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)
    first = dealer.settle(round_id, {"outcomes": {"1": "win"}})

    second = dealer.settle(round_id, {"outcomes": {"1": "win"}})
    third = dealer.settle(round_id, {})

    assert second["settlement"] == first["settlement"] == third["settlement"]
    assert Entry.objects.filter(ref=f"round:{round_id}").count() == 1


def test_settling_a_settled_round_with_other_outcomes_is_refused(dealer, table, seat_player):
    player = seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.banker(round_id, house=True)
    first = dealer.settle(round_id, {"outcomes": {"1": "win"}})
    before = balances(player)

    error = dealer.settle(round_id, {"outcomes": {"1": "loss"}}, expect=409)["error"]

    assert error["code"] == "already_settled"
    assert error["detail"] == {"state": "settled", "outcomes": {"1": "win"}}
    assert balances(player) == before
    assert dealer.get(round_id)["settlement"] == first["settlement"]
    assert Entry.objects.filter(ref=f"round:{round_id}").count() == 1


def test_the_ledger_verifies_clean_after_rounds(dealer, table, seat_player, capsys):
    for n in (1, 2, 3):
        seat_player(table, n)
    dealer.house_round(table, {1: "50", 2: "20", 3: "7.30"}, {"1": "win", "2": "loss",
                                                                "3": "win"})
    dealer.house_round(table, {1: "50"}, {"1": "loss"})

    call_command("ledger_verify")

    assert "OK" in capsys.readouterr().out


def test_a_rounds_rules_give_the_limits_as_decimal_strings(dealer, table):
    round_id = dealer.open_round(table)["id"]

    rules = dealer.get(round_id)["rules"]

    assert (rules["min_bet"], rules["max_bet"]) == ("2.00", "100.00")
    assert rules["commission_rate"] == "0.0500" and rules["wheel"] == "second_highest"


@pytest.mark.parametrize("banker", ["house", "seat"])
def test_the_settle_answer_is_the_round_as_read_afterwards(dealer, table, seat_player, banker):
    # given: a full table dealt electronically, one wager cleared before the deal (the
    # answer lists it; the settlement does not read it), every hand set by the house way
    for seat in range(1, 7):
        seat_player(table, seat, funds=50_000)
    if banker == "seat":
        dealer.house_round(table, {1: "10.00"}, {"1": "push"})  # seat 1 may bank next
    round_id = dealer.open_round(table)["id"]
    for seat in range(2, 7) if banker == "seat" else range(1, 7):
        dealer.wager(round_id, seat, f"{seat * 5}.00")
    dealer.call("delete", f"/api/v1/rounds/{round_id}/wagers/4")
    if banker == "seat":
        dealer.banker(round_id, seat=1, house_stake="0")
    else:
        dealer.banker(round_id, house=True)
    dealt = dealer.deal(round_id)
    bank = dealt["banker"]["position"]
    # (the players' hands first, the bank's last: rules §4.1)
    for hand in sorted(dealt["hands"], key=lambda h: h["position"] == bank):
        if hand["position"] != "dealer":
            dealer.hand(round_id, position=hand["position"], house_way=True)

    # when
    settled = dealer.settle(round_id)

    # then: the same answer, figure by figure, as the round read again
    assert settled == dealer.get(round_id)
    assert settled["state"] == "settled" and settled["events"][-1]["kind"] == "settled"
    assert any(w["state"] == "cleared" for w in settled["wagers"])
    assert len(settled["settlement"]["positions"]) == (5 if banker == "house" else 4)
    # and a retry answers the same settlement, from the round as locked
    assert dealer.settle(round_id) == dealer.get(round_id) == settled


def test_a_rounds_times_are_given_in_the_casinos_time_zone(dealer, table, seat_player):
    # given a round settled through the API
    seat_player(table, 1, funds=10_000)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "20.00")
    dealer.banker(round_id, house=True)
    body = dealer.settle(round_id, {"outcomes": {"1": "win"}})

    # then every time in the answer is the stored instant, with the casino's offset
    casino = ZoneInfo(settings.TIME_ZONE)
    stored = Round.objects.get(pk=round_id)
    wager = Wager.objects.get(round_id=round_id)
    events = list(RoundEvent.objects.filter(round_id=round_id).order_by("pk"))
    shown = [body["opened_at"], body["settled_at"], body["wagers"][0]["placed_at"],
             *(e["at"] for e in body["events"])]
    expected = [stored.opened_at, stored.settled_at, wager.placed_at, *(e.at for e in events)]
    for text, instant in zip(shown, expected, strict=True):
        given = datetime.fromisoformat(text)
        assert given == instant
        assert given.utcoffset() == instant.astimezone(casino).utcoffset()
