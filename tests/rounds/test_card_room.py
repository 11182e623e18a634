"""Card-room mode through the API (docs/rules.md, "Card-room mode"): player-dealers and
proposition players bank, the house earns collection fees, the bank rotates."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest.mock import patch

import pytest
from django.db import IntegrityError
from django.utils import timezone

from casino.models import Player
from casino.selectors import player_balance
from ledger.models import Account, Hold
from ledger.selectors import account_balance
from rounds.accounts import table_ref
from rounds.models import Round, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def card_table(make_table) -> Table:
    return make_table(bank_mode="card_room", commission_rate="0", collection_player=50)


@pytest.fixture
def proposition(cage_client) -> dict[str, Any]:
    """A third-party proposition player registered and funded at the cage, by the API."""
    body = cage_client.post("/api/v1/players", {"name": "Golden Prop LLC", "kind": "proposition",
                                                 "licence": "GEGP-001234"}, format="json")
    assert body.status_code == 201, body.json()
    player = body.json()
    funded = cage_client.post(f"/api/v1/players/{player['id']}/deposits",
                              {"amount": "5000.00"}, format="json")
    assert funded.status_code == 201, funded.json()
    return player


def posted(player: Player | int) -> int:
    """A player's posted balance in minor units (holds resolve at settlement)."""
    if isinstance(player, int):
        player = Player.objects.get(pk=player)
    return player_balance(player).posted


def collection(table: Table) -> int:
    account = Account.objects.get(kind="collection", ref=table_ref(table.pk))
    return account_balance(account_id=account.pk).posted


def worked_round(dealer, card_table, seat_player, proposition) -> tuple[dict, dict]:
    players = {n: seat_player(card_table, n, funds=100_000) for n in (1, 2, 3, 4)}
    round_id = dealer.open_round(card_table)["id"]
    for seat in (2, 3, 4):
        dealer.wager(round_id, seat, "100.00")
    dealer.banker(round_id, seat=1, cover="150.00", third_party=proposition["id"])
    return {"round_id": round_id}, players


# --- the worked round of docs/rules.md ---------------------------------------------------------

def test_the_worked_round_of_the_rules_page_figure_by_figure(dealer, card_table, seat_player,
                                                             proposition):
    # given seats 2, 3, 4 wager 100.00; seat 1 banks covering 150.00; the TPPP the rest
    state, players = worked_round(dealer, card_table, seat_player, proposition)
    before = {n: posted(p) for n, p in players.items()}
    tppp_before = posted(proposition["id"])

    # when seat 2 loses, seat 3 wins, seat 4 loses
    body = dealer.settle(state["round_id"], {"outcomes": {"2": "loss", "3": "win",
                                                           "4": "loss"}})

    # then every party's money, to the cent, against the ledger
    assert posted(players[1]) - before[1] == 4_700
    assert posted(proposition["id"]) - tppp_before == 5_000
    assert [posted(players[n]) - before[n] for n in (2, 3, 4)] == [-10_050, 9_950, -10_050]
    assert collection(card_table) == 450
    settlement = body["settlement"]
    covers = {p["position"]: (p["cover"], p["fee"], p["net"]) for p in settlement["positions"]}
    assert covers == {
        "2": ({"player_dealer": "100.00", "third_party": "0.00", "uncovered": "0.00"},
              "0.50", "-100.50"),
        "3": ({"player_dealer": "50.00", "third_party": "50.00", "uncovered": "0.00"},
              "0.50", "99.50"),
        "4": ({"player_dealer": "0.00", "third_party": "100.00", "uncovered": "0.00"},
              "0.50", "-100.50"),
    }
    assert settlement["banker"] == {"position": "1", "net": "50.00", "commission": "0.00",
                                    "fee": "3.00", "result": "47.00"}
    assert settlement["third_party"] == {"player": proposition["id"], "net": "50.00",
                                         "commission": "0.00", "fee": "0.00",
                                         "result": "50.00"}
    assert settlement["collection"] == {"banker": "3.00", "players": "1.50", "total": "4.50",
                                        "paid_by": "player_dealer"}
    assert body["banker"]["cover"] == "150.00"
    assert body["banker"]["third_party"] == proposition["id"]
    # the same answer when read again
    assert dealer.get(state["round_id"])["settlement"] == settlement


def test_the_cover_is_held_at_the_deal_and_resolved_at_settlement(dealer, card_table,
                                                                  seat_player, proposition):
    state, players = worked_round(dealer, card_table, seat_player, proposition)
    round_id = state["round_id"]

    dealt = dealer.deal(round_id, {"results_only": True})

    # the player-dealer holds their 150.00 and the bank's 3.00 fee; the TPPP its 150.00;
    # each player their wager and its 0.50 fee
    assert player_balance(players[1]).held == 15_300
    assert player_balance(Player.objects.get(pk=proposition["id"])).held == 15_000
    assert [player_balance(players[n]).held for n in (2, 3, 4)] == [10_050] * 3
    assert dealt["solvency"]["required"] == "153.00"
    dealer.settle(round_id, {"outcomes": {"2": "win", "3": "push", "4": "loss"}})
    for player in [*players.values(), Player.objects.get(pk=proposition["id"])]:
        assert player_balance(player).held == 0


def test_a_player_dealer_who_covers_all_the_action_pays_the_fee_on_a_winning_bank(
        dealer, card_table, seat_player):
    players = {n: seat_player(card_table, n, funds=100_000) for n in (1, 2, 3)}
    round_id = dealer.open_round(card_table)["id"]
    dealer.wager(round_id, 2, "60.00")
    dealer.wager(round_id, 3, "50.00")
    before = {n: posted(p) for n, p in players.items()}

    dealer.banker(round_id, seat=1)
    body = dealer.settle(round_id, {"outcomes": {"2": "loss", "3": "loss"}})

    # 110.00 covered: the 3.00 band; each wager 0.50
    assert posted(players[1]) - before[1] == 11_000 - 300
    assert posted(players[2]) - before[2] == -6_050
    assert posted(players[3]) - before[3] == -5_050
    assert collection(card_table) == 400
    assert body["settlement"]["third_party"] is None
    assert body["banker"]["cover"] is None


def test_fees_are_due_on_a_losing_bank_and_on_a_push(dealer, card_table, seat_player):
    players = {n: seat_player(card_table, n, funds=100_000) for n in (1, 2, 3)}
    round_id = dealer.open_round(card_table)["id"]
    dealer.wager(round_id, 2, "80.00")
    dealer.wager(round_id, 3, "20.00")
    before = {n: posted(p) for n, p in players.items()}

    dealer.banker(round_id, seat=1)
    dealer.settle(round_id, {"outcomes": {"2": "win", "3": "push"}})

    # 100.00 covered: the 1.00 band, paid though the bank lost 80.00
    assert posted(players[1]) - before[1] == -8_000 - 100
    assert posted(players[2]) - before[2] == 8_000 - 50
    assert posted(players[3]) - before[3] == -50
    assert collection(card_table) == 200


def test_a_wager_no_one_covers_is_returned_with_no_fee(dealer, card_table, seat_player):
    players = {n: seat_player(card_table, n, funds=100_000) for n in (1, 2, 3)}
    round_id = dealer.open_round(card_table)["id"]
    dealer.wager(round_id, 2, "100.00")
    dealer.wager(round_id, 3, "100.00")
    before = {n: posted(p) for n, p in players.items()}

    # the player-dealer covers 100.00 and no proposition player covers the rest: seat 2
    # (the first on the dealer's left) has action, seat 3 none
    dealer.banker(round_id, seat=1, cover="100.00")
    body = dealer.settle(round_id, {"outcomes": {"2": "loss", "3": "loss"}})

    assert posted(players[1]) - before[1] == 10_000 - 100
    assert posted(players[2]) - before[2] == -10_050
    assert posted(players[3]) - before[3] == 0
    assert player_balance(players[3]).held == 0
    seat3 = next(p for p in body["settlement"]["positions"] if p["position"] == "3")
    assert seat3["cover"] == {"player_dealer": "0.00", "third_party": "0.00",
                              "uncovered": "100.00"}
    assert (seat3["fee"], seat3["net"], seat3["amount"]) == ("0.00", "0.00", "0.00")


def test_wagers_are_covered_from_the_dealers_left_round_the_table(dealer, card_table,
                                                                  seat_player):
    players = {n: seat_player(card_table, n, funds=100_000) for n in (1, 3, 5)}
    round_id = dealer.open_round(card_table)["id"]
    dealer.wager(round_id, 1, "50.00")
    dealer.wager(round_id, 5, "50.00")

    # seat 3 banks (seat 1, offered it first, declines): seat 5 is on its left before seat 1
    bank_passed_to(dealer, round_id, 3)
    dealer.banker(round_id, seat=3, cover="50.00")
    body = dealer.settle(round_id, {"outcomes": {"1": "win", "5": "win"}})

    covered = {p["position"]: p["cover"]["player_dealer"]
               for p in body["settlement"]["positions"]}
    assert covered == {"1": "0.00", "5": "50.00"}
    assert posted(players[1]) == 100_000


def test_every_player_declines_and_the_proposition_player_banks_alone(
        dealer, card_table, seat_player, proposition):
    players = {n: seat_player(card_table, n, funds=100_000) for n in (1, 2)}
    round_id = dealer.open_round(card_table)["id"]
    # the proposition player may not bank alone while a seat is offered the bank
    refused = dealer.banker(round_id, expect=409, third_party=proposition["id"])
    assert refused["error"]["code"] == "bank_not_offered"
    dealer.call("post", f"/api/v1/rounds/{round_id}/banker/decline", {"seat": 1})
    dealer.call("post", f"/api/v1/rounds/{round_id}/banker/decline", {"seat": 2})
    dealer.wager(round_id, 1, "100.00")
    dealer.wager(round_id, 2, "40.00")
    before = {n: posted(p) for n, p in players.items()}
    tppp_before = posted(proposition["id"])

    body = dealer.banker(round_id, third_party=proposition["id"])
    assert body["banker"] == {"house": False, "seat": None, "player": None,
                              "position": "dealer", "cover": None,
                              "third_party": proposition["id"]}
    body = dealer.settle(round_id, {"outcomes": {"1": "loss", "2": "win"}})

    # the proposition player wins 60.00 net and pays the bank's 3.00 fee (140.00 covered)
    assert posted(proposition["id"]) - tppp_before == 10_000 - 4_000 - 300
    assert posted(players[1]) - before[1] == -10_050
    assert posted(players[2]) - before[2] == 4_000 - 50
    assert collection(card_table) == 400
    assert body["settlement"]["collection"]["paid_by"] == "third_party"
    assert body["settlement"]["third_party"]["result"] == "57.00"
    kinds = [(e["kind"], e["data"].get("seat")) for e in dealer.get(round_id)["events"]
             if e["kind"].startswith("bank")]
    assert kinds == [("bank_offered", 1), ("bank_declined", 1), ("bank_offered", 2),
                     ("bank_declined", 2), ("bank_offered", None), ("banker_set", None)]


def test_the_proposition_player_alone_plays_the_dealers_hand_in_a_dealt_round(
        dealer, card_table, seat_player, proposition):
    seat_player(card_table, 1, funds=100_000)
    round_id = dealer.open_round(card_table)["id"]
    dealer.call("post", f"/api/v1/rounds/{round_id}/banker/decline", {"seat": 1})
    dealer.wager(round_id, 1, "100.00")
    dealer.banker(round_id, third_party=proposition["id"])

    dealt = dealer.deal(round_id)
    dealer.hand(round_id, position="1", house_way=True)
    body = dealer.settle(round_id)

    assert {h["position"] for h in dealt["hands"]} == {"dealer", "1"}
    (line,) = body["settlement"]["positions"]
    assert line["cover"]["third_party"] == "100.00" and line["fee"] == "0.50"
    assert body["settlement"]["collection"]["banker"] == "1.00"


# --- the rotation -------------------------------------------------------------------------------

def bank_passed_to(dealer, round_id: int, seat: int) -> None:
    """The seats offered the bank before ``seat`` decline it, in turn (rules §14.1: a seat
    takes the bank only when the offer reaches it)."""
    while True:
        offers = [e["data"]["seat"] for e in dealer.get(round_id)["events"]
                  if e["kind"] == "bank_offered"]
        if offers[-1] in (seat, None):
            return
        dealer.call("post", f"/api/v1/rounds/{round_id}/banker/decline", {"seat": offers[-1]})


def played_bank(dealer, table, seat: int, wager_seat: int, **banker: Any) -> dict:
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, wager_seat, "10.00")
    bank_passed_to(dealer, round_id, seat)
    body = dealer.banker(round_id, seat=seat, **banker)
    dealer.settle(round_id, {"outcomes": {str(wager_seat): "push"}})
    return body


def test_a_third_consecutive_bank_by_the_same_player_is_refused(dealer, card_table,
                                                               seat_player):
    seat_player(card_table, 1)
    seat_player(card_table, 2)
    played_bank(dealer, card_table, 1, 2)
    played_bank(dealer, card_table, 1, 2)

    round_id = dealer.open_round(card_table)["id"]
    dealer.wager(round_id, 2, "10.00")
    refused = dealer.banker(round_id, expect=409, seat=1)

    assert refused["error"]["code"] == "bank_limit_reached"
    assert "2 rounds in a row" in refused["error"]["message"]
    # the bank moves on: seat 2 is offered it (after clearing its wager it may take it)
    offers = [e["data"]["seat"] for e in dealer.get(round_id)["events"]
              if e["kind"] == "bank_offered"]
    assert offers == [2]


def test_the_bank_moves_on_after_the_tables_rotation_minutes(dealer, make_table, seat_player):
    table = make_table(bank_mode="card_room", commission_rate="0", rotation_minutes=40,
                       max_consecutive_banks=5)
    seat_player(table, 1)
    seat_player(table, 2)
    played_bank(dealer, table, 1, 2)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "10.00")

    # 41 minutes after seat 1 took the bank
    later = timezone.now() + timedelta(minutes=41)
    with patch("rounds.selectors.timezone.now", return_value=later):
        refused = dealer.banker(round_id, expect=409, seat=1)

    assert refused["error"]["code"] == "bank_time_up"
    assert "40 minutes" in refused["error"]["message"]
    # before the time is up, it may bank again, once seat 2 (offered it first) declines
    bank_passed_to(dealer, round_id, 1)
    assert dealer.banker(round_id, seat=1)["banker"]["seat"] == 1


# --- what the house may not do, and who may not sit ---------------------------------------------

def test_the_house_may_neither_bank_nor_stake_in_a_card_room(dealer, card_table, seat_player):
    seat_player(card_table, 1)
    seat_player(card_table, 2)
    round_id = dealer.open_round(card_table)["id"]
    dealer.wager(round_id, 2, "10.00")

    house = dealer.banker(round_id, expect=409, house=True)
    stake = dealer.banker(round_id, expect=409, seat=1, house_stake="10.00")

    assert house["error"]["code"] == "house_may_not_bank"
    assert stake["error"]["code"] == "house_may_not_stake"
    assert dealer.get(round_id)["state"] == "betting"


def test_a_casino_table_refuses_a_cover_or_a_proposition_player(dealer, table, seat_player,
                                                               proposition):
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")

    refused = dealer.banker(round_id, expect=409, third_party=proposition["id"])

    assert refused["error"]["code"] == "not_card_room"


def test_a_proposition_player_registers_funds_withdraws_and_never_sits(
        cage_client, pit_boss_client, card_table, proposition):
    assert (proposition["kind"], proposition["licence"]) == ("proposition", "GEGP-001234")
    paid = cage_client.post(f"/api/v1/players/{proposition['id']}/withdrawals",
                            {"amount": "1000.00"}, format="json")
    assert paid.status_code == 201, paid.json()
    assert posted(proposition["id"]) == 400_000

    seated = pit_boss_client.put(f"/api/v1/tables/{card_table.pk}/seats/1",
                                 {"player": proposition["id"]}, format="json")

    assert seated.status_code == 409
    assert seated.json()["error"]["code"] == "proposition_player_not_seated"
    assert "never takes a seat" in seated.json()["error"]["message"]


def test_a_proposition_player_needs_a_licence(cage_client):
    refused = cage_client.post("/api/v1/players", {"name": "No Licence Inc",
                                                   "kind": "proposition"}, format="json")

    assert refused.status_code == 400
    assert "licence" in refused.json()["error"]["detail"]["fields"]
    assert not Player.objects.filter(name="No Licence Inc").exists()


# --- the table's settings -----------------------------------------------------------------------

def test_card_room_settings_through_the_api(pit_boss_client):
    created = pit_boss_client.post("/api/v1/tables", {
        "name": "Card room 1", "bank_mode": "card_room", "commission_rate": "0",
        "collection_banker": [{"up_to": "200.00", "fee": "2.00"},
                              {"up_to": None, "fee": "4.00"}],
        "collection_player": "0.25", "max_consecutive_banks": 3, "rotation_minutes": 40},
        format="json")
    assert created.status_code == 201, created.json()
    body = created.json()

    assert body["bank_mode"] == "card_room"
    assert body["collection_banker"] == [{"up_to": "200.00", "fee": "2.00"},
                                         {"up_to": None, "fee": "4.00"}]
    assert (body["collection_player"], body["max_consecutive_banks"],
            body["rotation_minutes"]) == ("0.25", 3, 40)


@pytest.mark.parametrize("bands", [
    [{"up_to": "100.00", "fee": "1.00"}],                          # last band closed
    [{"up_to": "500.00", "fee": "3.00"}, {"up_to": "100.00", "fee": "1.00"},
     {"up_to": None, "fee": "5.00"}],                              # not ascending
    [{"up_to": None, "fee": "1.00"}, {"up_to": None, "fee": "5.00"}],
    [{"up_to": "100.00", "fee": "1.005"}, {"up_to": None, "fee": "5.00"}],
    [],
    "1.00",
])
def test_fee_bands_that_make_no_schedule_are_refused(pit_boss_client, bands):
    refused = pit_boss_client.post("/api/v1/tables", {"name": "Bad bands", "bank_mode":
                                                      "card_room", "collection_banker": bands},
                                   format="json")

    assert refused.status_code == 400, refused.json()
    assert "collection_banker" in refused.json()["error"]["detail"]["fields"]
    assert not Table.objects.filter(name="Bad bands").exists()


def test_a_card_room_table_has_the_documented_defaults(pit_boss_client):
    body = pit_boss_client.post("/api/v1/tables", {"name": "Defaults", "bank_mode":
                                                   "card_room"}, format="json").json()

    assert body["collection_banker"] == [{"up_to": "100.00", "fee": "1.00"},
                                         {"up_to": "500.00", "fee": "3.00"},
                                         {"up_to": None, "fee": "5.00"}]
    assert (body["collection_player"], body["max_consecutive_banks"],
            body["rotation_minutes"]) == ("0.00", 2, None)
    assert body["commission_rate"] == "0.0000"  # the room's model is the collection


def test_players_who_wagered_are_offered_the_bank_and_decline_it(dealer, card_table,
                                                                 seat_player, proposition):
    for seat in (1, 2):
        seat_player(card_table, seat)
    round_id = dealer.open_round(card_table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.wager(round_id, 2, "10.00")
    # offered the bank with a wager in front of them, they may take it only after clearing it
    refused = dealer.banker(round_id, expect=409, seat=1)
    assert refused["error"]["code"] == "banker_not_allowed"

    for seat in (1, 2):
        dealer.call("post", f"/api/v1/rounds/{round_id}/banker/decline", {"seat": seat})
    body = dealer.banker(round_id, third_party=proposition["id"])

    assert [d["seat"] for d in body["bank_declined"]] == [1, 2]


def test_a_voided_card_room_round_releases_every_hold(dealer, card_table, seat_player,
                                                      proposition, pit_boss_client):
    state, players = worked_round(dealer, card_table, seat_player, proposition)
    dealer.deal(state["round_id"], {"results_only": True})

    voided = pit_boss_client.post(f"/api/v1/rounds/{state['round_id']}/void",
                                  {"reason": "misdeal"}, format="json")
    assert voided.status_code == 200, voided.json()

    everyone = [*players.values(), Player.objects.get(pk=proposition["id"])]
    assert [player_balance(p).held for p in everyone] == [0] * 5
    assert [posted(p) for p in players.values()] == [100_000] * 4


def test_a_table_made_a_card_room_between_rounds_plays_as_one(dealer, table, seat_player,
                                                             pit_boss_client):
    changed = pit_boss_client.patch(f"/api/v1/tables/{table.pk}", {
        "bank_mode": "card_room", "commission_rate": "0", "collection_player": "0.25"},
        format="json")
    assert changed.status_code == 200, changed.json()
    banker, player = seat_player(table, 1), seat_player(table, 2)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "50.00")
    dealer.banker(round_id, seat=1)

    body = dealer.settle(round_id, {"outcomes": {"2": "loss"}})

    assert body["rules"]["collection_player"] == "0.25"
    assert body["rules"]["collection_banker"][0] == {"up_to": "100.00", "fee": "1.00"}
    assert posted(banker) == 100_000 + 5_000 - 100
    assert posted(player) == 100_000 - 5_025
    assert collection(table) == 125


def test_a_dealt_card_room_round_settles_by_the_cards_with_both_banks(
        dealer, card_table, seat_player, proposition):
    state, players = worked_round(dealer, card_table, seat_player, proposition)
    round_id = state["round_id"]
    before = {n: posted(p) for n, p in players.items()}
    tppp_before = posted(proposition["id"])

    dealer.deal(round_id)
    for position in ("2", "3", "4", "1"):  # the player-dealer's hand is set last
        dealer.hand(round_id, position=position, house_way=True)
    body = dealer.settle(round_id)

    lines = {p["position"]: p for p in body["settlement"]["positions"]}
    changes = {n: posted(players[n]) - before[n] for n in (2, 3, 4)}
    for seat, change in changes.items():
        line = lines[str(seat)]
        amount = {"win": 10_000, "push": 0, "loss": -10_000}[line["outcome"]]
        assert change == amount - 50
    bank = posted(players[1]) - before[1]
    third = posted(proposition["id"]) - tppp_before
    assert bank + third + sum(changes.values()) + collection(card_table) == 0
    assert collection(card_table) == 450


def test_a_card_room_round_runs_as_the_runtime_role_and_its_holds_stay_open(
        as_runtime_role, dealer, make_table, seat_player, proposition):
    from tests.rounds.test_runtime_role import released_behind_the_services

    table = make_table(bank_mode="card_room", commission_rate="0", collection_player=50)
    state, _ = worked_round(dealer, table, seat_player, proposition)
    dealer.deal(state["round_id"], {"results_only": True})
    round_ = Round.objects.get(pk=state["round_id"])
    assert round_.third_party_hold_id is not None and len(round_.fee_hold_ids) == 3

    for hold_id in (round_.third_party_hold_id, round_.fee_hold_ids[0]):
        with pytest.raises(IntegrityError, match=f"backs round {round_.pk} still in play"):
            released_behind_the_services(hold_id)

    dealer.settle(round_.pk, {"outcomes": {"2": "loss", "3": "win", "4": "loss"}})
    assert collection(table) == 450
    assert not Hold.objects.filter(status=Hold.Status.OPEN).exists()


def test_a_seated_player_may_decline_before_the_offer_reaches_them(dealer, card_table,
                                                                  seat_player, proposition):
    for seat in (1, 2, 3):
        seat_player(card_table, seat)
    round_id = dealer.open_round(card_table)["id"]
    decline = f"/api/v1/rounds/{round_id}/banker/decline"

    dealer.call("post", decline, {"seat": 3})
    again = dealer.call("post", decline, {"seat": 3}, expect=409)
    dealer.call("post", decline, {"seat": 1})
    dealer.call("post", decline, {"seat": 2})

    assert again["error"]["code"] == "bank_already_declined"
    offers = [e["data"]["seat"] for e in dealer.get(round_id)["events"]
              if e["kind"] == "bank_offered"]
    assert offers == [1, 1, 2, None]
    assert dealer.banker(round_id, third_party=proposition["id"])["state"] == "banker_set"


def test_the_table_screen_names_a_proposition_player_banking_alone(
        dealer, card_table, seat_player, proposition, pit_boss_client):
    from django.test import Client

    seat_player(card_table, 1)
    round_id = dealer.open_round(card_table)["id"]
    dealer.wager(round_id, 1, "10.00")
    dealer.call("post", f"/api/v1/rounds/{round_id}/banker/decline", {"seat": 1})
    dealer.banker(round_id, third_party=proposition["id"])
    screen = Client()
    screen.force_login(pit_boss_client.user)

    page = screen.get(f"/tables/{card_table.pk}/")

    assert page.status_code == 200
    assert "Golden Prop LLC (proposition player)" in page.content.decode()


# --- ratings of card-room play (docs/rules.md §12.2 and §14) -------------------------------

def test_card_room_ratings_count_each_banks_own_cover_and_only_wagers_with_action(
        dealer, card_table, seat_player, proposition, pit_boss_client):
    from decimal import ROUND_HALF_EVEN, Decimal

    from casino.shared.gaming_day import gaming_day_of
    from rounds.edges import EdgeBook

    # the worked round: seat 1 covers 150.00 of 300.00, the proposition player the rest
    state, players = worked_round(dealer, card_table, seat_player, proposition)
    dealer.settle(state["round_id"], {"outcomes": {"2": "loss", "3": "win", "4": "loss"}})
    # then seat 2's 100.00 alone against seat 1 covering 40.00: 60.00 gets no action
    second = dealer.open_round(card_table)["id"]
    dealer.wager(second, 2, "100.00")
    bank_passed_to(dealer, second, 3)
    dealer.banker(second, seat=3, cover="40.00")
    dealer.settle(second, {"outcomes": {"2": "win"}})

    day = gaming_day_of()
    got = pit_boss_client.get(f"/api/v1/ratings?gaming_day={day}").json()
    rows = {r["player"]: r for r in got}
    edge = EdgeBook().of(Round.objects.get(pk=state["round_id"]).rules)

    def theo(amount: str, per_unit: Decimal) -> str:
        exact = Decimal(amount) * per_unit
        return str(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))

    dealer_1, seat_2, seat_3 = players[1].pk, players[2].pk, players[3].pk
    # seat 1 banked once, on its own cover of 150.00; its result less the bank's 3.00 fee
    assert (rows[dealer_1]["rounds_banked"], rows[dealer_1]["action_covered"],
            rows[dealer_1]["actual"]) == (1, "150.00", "47.00")
    assert rows[dealer_1]["theoretical"] == theo("150.00", edge.banker)
    # the proposition player is rated on its own cover, 150.00
    assert (rows[proposition["id"]]["rounds_banked"],
            rows[proposition["id"]]["action_covered"],
            rows[proposition["id"]]["actual"]) == (1, "150.00", "50.00")
    # seat 2: 100.00 with action, then 40.00 of 100.00; fees in its result
    assert (rows[seat_2]["wagered"], rows[seat_2]["wagers"]) == ("140.00", 2)
    assert rows[seat_2]["theoretical"] == theo("140.00", edge.player)
    assert rows[seat_2]["actual"] == "-61.00"      # -100.50, then +40.00 less its 0.50 fee
    # seat 3 banked the second round covering 40.00, and wagered 100.00 in the first
    assert (rows[seat_3]["wagered"], rows[seat_3]["action_covered"]) == ("100.00", "40.00")
