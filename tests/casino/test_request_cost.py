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
from tests.rounds.conftest import Dealer

pytestmark = pytest.mark.django_db

# The token with its user and the user's permissions, by its digest (casino/shared/api/
# authentication.py; knox's own lookup and its sweep of the user's other tokens were two,
# and the permissions a third), the Idempotency-Key's transaction (begin, insert of the key,
# update with the answer, end). The answer reads nothing more: the settlement holds the
# round, its wagers, its hands and its events as it wrote them.
AROUND_THE_SETTLEMENT = 5


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


def test_a_settle_request_sends_five_statements_besides_the_settlements_own(
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

    # then the request sends the settlement's statements and five more
    assert response.status_code == 200, response.json()
    assert response.json()["state"] == "settled"
    (own,) = settlement
    around = [q["sql"] for q in request.captured_queries[:]]
    for query in own.captured_queries:
        around.remove(query["sql"])
    assert len(around) == AROUND_THE_SETTLEMENT, "\n".join(around)


def test_a_replayed_settle_request_reads_the_stored_answer_and_nothing_else(dealt_round):
    # given a settled round
    dealer, round_id = dealt_round
    url = f"/api/v1/rounds/{round_id}/settle"
    first = dealer.client.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="settle-1")

    # when the client sends the same request again
    with CaptureQueriesContext(connection) as request:
        retry = dealer.client.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="settle-1")

    # then it gets the stored answer for the token's lookup, the key's insert and its read
    # (and the transaction around them)
    assert retry["Idempotent-Replayed"] == "true"
    assert retry.json() == first.json()
    assert len(request.captured_queries) == 5, "\n".join(
        q["sql"] for q in request.captured_queries)
