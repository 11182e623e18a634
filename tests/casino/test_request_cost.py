"""What a settle request costs around the settlement itself, in SQL statements.

The settlement's own statements are round_settle's (pinned with the service); everything
else a settle request sends is pinned here, so a middleware, an authentication or a
serializer that starts querying on every request shows up as a failing count.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rounds import services
from rounds.models import Round
from tests.rounds.conftest import Dealer

pytestmark = pytest.mark.django_db

# knox's token lookup twice (the tokens under the key with their user, then the user's
# tokens, swept for expired ones): once by the Idempotency-Key middleware, which scopes the
# key to the user, once by the view; the user's permissions, Django's ModelBackend's two
# (their own, their groups'); the Idempotency-Key's (its read, the insert in a savepoint
# and its release: get_or_create; the update with the answer); and the answer, the round as
# rounds.round_view.round_for reads it (one statement). (The savepoint of the request's
# transaction is the test's, not counted.)
AROUND_THE_SETTLEMENT = 12


@pytest.fixture
def dealt_round(dealer_client, table, seat_player) -> tuple[Dealer, int]:
    """A house-banked round with six wagers, dealt electronically, every hand set."""
    dealer = Dealer(dealer_client)
    for seat in range(1, 7):
        seat_player(table, seat, funds=100_000)
    round_id = dealer.open_round(table)["id"]
    for seat in range(1, 7):
        dealer.wager(round_id, seat, "20.00")
    dealer.banker(round_id, house=True)
    for hand in dealer.deal(round_id)["hands"]:
        if hand["position"] != "dealer":
            dealer.hand(round_id, position=hand["position"], house_way=True)
    return dealer, round_id


def test_a_settle_request_sends_twelve_statements_besides_the_settlements_own(
    dealt_round, monkeypatch
):
    # given a dealt round and a count of what round_settle itself sends
    dealer, round_id = dealt_round
    settlement: list[CaptureQueriesContext] = []
    round_settle = services.round_settle

    def counted(**kwargs: Any) -> Any:
        with CaptureQueriesContext(connection) as own:
            result = round_settle(**kwargs)
        settlement.append(own)
        return result

    monkeypatch.setattr(services, "round_settle", counted)

    # when the dealer settles it, with an Idempotency-Key as a client retrying safely sends
    with CaptureQueriesContext(connection) as request:
        response = dealer.client.post(f"/api/v1/rounds/{round_id}/settle", {}, format="json",
                                      HTTP_IDEMPOTENCY_KEY="settle-1")

    # then the request sends the settlement's statements and ten more
    assert response.status_code == 200, response.json()
    assert response.json()["state"] == "settled"
    (own,) = settlement
    around = [q["sql"] for q in request.captured_queries[:]]
    for query in own.captured_queries:
        around.remove(query["sql"])
    around.remove(next(q for q in around if q.startswith("SAVEPOINT")))
    around.remove(next(q for q in around if q.startswith("RELEASE SAVEPOINT")))
    assert len(around) == AROUND_THE_SETTLEMENT, "\n".join(around)


def test_a_replayed_settle_request_reads_the_stored_answer_and_nothing_else(dealt_round):
    # given a settled round
    dealer, round_id = dealt_round
    url = f"/api/v1/rounds/{round_id}/settle"
    first = dealer.client.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="settle-1")

    # when the client sends the same request again
    with CaptureQueriesContext(connection) as request:
        retry = dealer.client.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="settle-1")

    # then it gets the stored answer for the token's lookup (knox's two statements, by the
    # middleware; the view is never reached) and the key's read (and the transaction's
    # savepoint around it, the test's)
    assert retry["Idempotent-Replayed"] == "true"
    assert retry.json() == first.json()
    assert len(request.captured_queries) == 5, "\n".join(
        q["sql"] for q in request.captured_queries)


# A step answers with the whole round, read after it by rounds.round_view.round_for: to the
# byte what a later read shows. (Each step's statements are pinned with the others in
# tests/rounds/test_step_statements.py.)


def _request(dealer: Dealer, url: str, body: dict[str, Any],
             expect: int) -> tuple[dict[str, Any], list[str]]:
    """The answer and the statements sent. A successful step's answer must be, to the byte,
    the round as a later read shows it (its settings' keys in the database's order too)."""
    with CaptureQueriesContext(connection) as request:
        response = dealer.client.post(url, body, format="json")
    assert response.status_code == expect, response.json()
    sent = [q["sql"] for q in request.captured_queries
            if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    if expect in (200, 201):
        round_id = response.json()["id"]
        assert response.content == dealer.client.get(f"/api/v1/rounds/{round_id}").content
    return response.json(), sent


def test_a_wager_and_a_hand_answer_the_round_as_a_later_read_shows_it(
    dealer_client, table, seat_player
):
    # given a round with two seated players
    dealer = Dealer(dealer_client)
    for seat in (1, 2):
        seat_player(table, seat, funds=100_000)

    # when the dealer opens the round, places each wager, the house banks, the round is
    # dealt and each hand set
    opened, _ = _request(dealer, f"/api/v1/tables/{table.pk}/rounds", {}, 201)
    round_id = opened["id"]
    # then the opening answers with the round as read afterwards: its "opened" event in it
    assert opened == dealer.get(round_id)
    assert [e["kind"] for e in opened["events"]] == ["opened"]
    for seat in (1, 2):
        answer, _ = _request(dealer, f"/api/v1/rounds/{round_id}/wagers",
                                {"seat": seat, "amount": "20.00"}, 201)
        # and each answer is the round as read afterwards: the new wager and its event in it
        assert answer == dealer.get(round_id)
        assert [w["seat"] for w in answer["wagers"]] == list(range(1, seat + 1))
        assert answer["events"][-1]["kind"] == "wager_placed"
    banked, _ = _request(dealer, f"/api/v1/rounds/{round_id}/banker", {"house": True}, 200)
    assert banked == dealer.get(round_id)
    assert banked["events"][-1]["kind"] == "banker_set"
    dealt, _ = _request(dealer, f"/api/v1/rounds/{round_id}/deal", {}, 200)
    assert dealt == dealer.get(round_id)
    assert dealt["events"][-1]["kind"] == "dealt"
    positions = [h["position"] for h in dealt["hands"] if h["position"] != "dealer"]
    for position in positions:
        answer, _ = _request(dealer, f"/api/v1/rounds/{round_id}/hands",
                                {"position": position, "house_way": True}, 200)
        assert answer == dealer.get(round_id)
        shown = next(h for h in answer["hands"] if h["position"] == position)
        assert shown["high"] and shown["low"]
        assert answer["events"][-1]["kind"] == "hand_set"


def test_a_refused_wager_and_hand_change_nothing_and_answer_in_the_one_error_shape(
    dealer_client, table, seat_player
):
    # given a round with a seated player whose wager is placed
    dealer = Dealer(dealer_client)
    seat_player(table, 1, funds=100_000)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "20.00")
    before = dealer.get(round_id)

    # when a second wager for the seat and a hand before the deal are sent
    again, _ = _request(dealer, f"/api/v1/rounds/{round_id}/wagers",
                        {"seat": 1, "amount": "20.00"}, 409)
    early, _ = _request(dealer, f"/api/v1/rounds/{round_id}/hands",
                        {"position": "1", "house_way": True}, 409)

    # then both are refused in words and the round is as it was
    assert again["error"]["code"] == "wager_exists"
    assert early["error"]["message"]
    assert dealer.get(round_id) == before


def test_a_card_room_round_opens_with_its_offer_of_the_bank_in_the_answer(
    dealer_client, make_table, seat_player
):
    # given a card-room table with two seated players
    table = make_table(bank_mode="card_room", commission_rate="0", collection_player=50)
    dealer = Dealer(dealer_client)
    for seat in (1, 2):
        seat_player(table, seat, funds=100_000)

    # when the dealer opens a round there
    opened, _ = _request(dealer, f"/api/v1/tables/{table.pk}/rounds", {}, 201)

    # then the answer is the round as read afterwards, the rotation's offer of the bank in it
    assert opened == dealer.get(opened["id"])
    assert [e["kind"] for e in opened["events"]] == ["opened", "bank_offered"]


def test_a_round_opens_only_at_an_open_table_with_no_round_in_play(dealer_client, table,
                                                                  make_table, seat_player):
    # given a table with a round in play
    dealer = Dealer(dealer_client)
    seat_player(table, 1, funds=100_000)
    first = dealer.open_round(table)

    # when a second round is opened there, one at a closed table and one at a table that
    # does not exist
    busy, _ = _request(dealer, f"/api/v1/tables/{table.pk}/rounds", {}, 409)
    closed_table = make_table(is_open=False)
    closed, _ = _request(dealer, f"/api/v1/tables/{closed_table.pk}/rounds", {}, 409)
    missing, _ = _request(dealer, f"/api/v1/tables/{table.pk + 1000}/rounds", {}, 404)

    # then each is refused in words, and the round in play is the table's only one
    assert busy["error"]["message"].endswith("has a round in play; settle or void it first")
    assert closed["error"]["code"] == "table_closed"
    assert not Round.objects.filter(table=closed_table).exists()
    assert missing["error"]["message"] == f"no table #{table.pk + 1000}"
    listed = dealer.client.get(f"/api/v1/tables/{table.pk}/rounds").json()["results"]
    assert [r["id"] for r in listed] == [first["id"]]


def _after_a_house_round(dealer: Dealer, table: Any, seat_player: Any, *, wager: str) -> int:
    """A round open after a house-banked round both seats played (a player-banker's house
    stake is capped by their last wager against the house), seat 2 wagering ``wager``."""
    for seat in (1, 2):
        seat_player(table, seat, funds=100_000)
    dealer.house_round(table, {1: "20.00", 2: "20.00"}, {"1": "push", "2": "push"})
    round_id: int = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, wager)
    return round_id


def test_a_player_banker_answers_with_the_round_as_a_later_read_shows_it(
    dealer_client, table, seat_player
):
    # given a round with two seated players who played the house before, seat 2 wagering
    dealer = Dealer(dealer_client)
    round_id = _after_a_house_round(dealer, table, seat_player, wager="20.00")

    # when seat 1 takes the bank with a house stake
    banked, _ = _request(dealer, f"/api/v1/rounds/{round_id}/banker",
                         {"seat": 1, "house_stake": "10.00"}, 200)

    # then the answer is the round as read afterwards, the banker and its event in it
    assert banked == dealer.get(round_id)
    assert banked["banker"]["seat"] == 1 and banked["house_stake"] == "10.00"
    assert banked["events"][-1]["kind"] == "banker_set"


@pytest.mark.parametrize("deal", ["electronic", "results"])
def test_a_player_banked_deal_answers_with_its_cover_as_a_later_read_shows_it(
    dealer_client, table, seat_player, deal
):
    # given seat 1 banking against seat 2's wager, seat 1 having played the house before
    dealer = Dealer(dealer_client)
    round_id = _after_a_house_round(dealer, table, seat_player, wager="30.00")
    dealer.banker(round_id, seat=1, house_stake="10.00")

    # when the round is dealt, the banker's cover checked and held first
    dealt, _ = _request(dealer, f"/api/v1/rounds/{round_id}/deal",
                        {"results_only": deal == "results"}, 200)

    # then the answer (checked against a later read by _request) shows the cover and the deal
    assert dealt["solvency"]["required"] == "40.00"
    assert [e["kind"] for e in dealt["events"]][-2:] == ["solvency_checked", "dealt"]
    assert dealt["deal"]["kind"] == deal
    assert bool(dealt["hands"]) == (deal == "electronic")


def test_a_card_room_banker_and_deal_answer_as_a_later_read_shows_them(
    dealer_client, make_table, seat_player
):
    # given a card-room table with three seated players, two of them wagering
    table = make_table(bank_mode="card_room", commission_rate="0", collection_player=50)
    dealer = Dealer(dealer_client)
    for seat in (1, 2, 3):
        seat_player(table, seat, funds=100_000)
    round_id = dealer.open_round(table)["id"]
    for seat in (2, 3):
        dealer.wager(round_id, seat, "20.00")

    # when seat 1 takes the bank, then takes it again with a cover, and the round is dealt
    first, _ = _request(dealer, f"/api/v1/rounds/{round_id}/banker", {"seat": 1}, 200)
    again, _ = _request(dealer, f"/api/v1/rounds/{round_id}/banker",
                        {"seat": 1, "cover": "40.00"}, 200)
    dealt, _ = _request(dealer, f"/api/v1/rounds/{round_id}/deal", {}, 200)

    # then each answer is the round as read afterwards (checked by _request)
    assert first["banker"]["seat"] == again["banker"]["seat"] == 1
    assert again["banker"]["cover"] == "40.00"
    assert dealt["state"] == "dealt" and dealt["hands"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("key", [None, "short-1"])
def test_a_wager_beyond_the_players_funds_is_refused_over_the_api_and_changes_nothing(
    dealer_client, table, seat_player, key
):
    # given a player with 5.00 in seat 1 (committed, no test transaction around the request)
    dealer = Dealer(dealer_client)
    player = seat_player(table, 1, funds=500)
    round_id = dealer.open_round(table)["id"]
    before = dealer.get(round_id)

    # when the dealer wagers 10.00 for them, with and without an Idempotency-Key
    extra = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    refused = dealer.client.post(f"/api/v1/rounds/{round_id}/wagers",
                                 {"seat": 1, "amount": "10.00"}, format="json", **extra)

    # then it is refused with the player's name and the figures, and nothing changed
    assert refused.status_code == 409, refused.json()
    error = refused.json()["error"]
    assert error["code"] == "insufficient_funds"
    assert error["message"].startswith(f"{player.name} (account #")
    assert "has 5.00 EUR available; this needs 10.00 EUR." in error["message"]
    assert dealer.get(round_id) == before
    # and a wager within the funds goes through
    dealer.wager(round_id, 1, "5.00")
