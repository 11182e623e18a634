"""What each step of a round costs through the API, in SQL statements: the same at one seat
as at a full table (six seats and the dealer: seven hands), and a whole round of six seats
within the line of the issue that retired the timed aims (240 statements).

A count, not a time: it is the same on any machine, however busy. A step that starts
reading per seat, or a door that starts re-reading the round, shows up here."""

from __future__ import annotations

from collections import defaultdict

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rounds.models import Table
from tests.rounds.conftest import Dealer

pytestmark = pytest.mark.django_db

# Each request of a house-banked round, electronically dealt, every hand by the house way:
# its statements, at any number of seats (authentication and permissions included; no
# Idempotency-Key), as a server sends them outside a test's transaction. bench/round_trips.py
# prints the same figures.
# Each begins with who is calling: knox's token lookup (2) and Django's permissions (2); a
# wager and the banker read the round's currency to parse the amount (1); each ends with
# the round as round_for reads it (1: rounds.round_view's one read). Between them,
# the step: open 5 (the table's lock, the last number and any round in play, the dealer
# signed in there, the round, its event), a wager 8 (the round's lock, the seat's, the
# player's exclusions, whether the seat has a wager, the account, the hold, the wager, its
# event), the banker 3 (the lock, the round, its event), the deal 7 (the lock, the wagers,
# any request pending, the hands, the draft cleared, the round, its event), a hand 4 (the
# lock, the hands, the hand, its event), the settlement 9 (the lock, the wagers, the hands,
# the accounts, the entry, the hands' outcomes, the parties, the round, its event).
PER_REQUEST = {"open": 10, "wager": 14, "banker": 9, "deal": 12, "hand": 9, "settle": 14}
A_ROUND_AT_MOST = 240


def _round(dealer: Dealer, table: Table, seats: int) -> dict[str, list[int]]:
    """One round at ``table`` with ``seats`` wagers: each request's statements, by kind."""
    counts: dict[str, list[int]] = defaultdict(list)

    def counted(kind: str, call, *args, **kwargs):
        with CaptureQueriesContext(connection) as statements:
            answer = call(*args, **kwargs)
        # The test's own transaction makes each step's atomic block a savepoint, which a
        # request outside a test does not send: left out, so the counts are the service's.
        counts[kind].append(sum(1 for q in statements.captured_queries
                                if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))))
        return answer

    round_id = counted("open", dealer.open_round, table)["id"]
    for seat in range(1, seats + 1):
        counted("wager", dealer.wager, round_id, seat, "20.00")
    counted("banker", dealer.banker, round_id, house=True)
    dealt = counted("deal", dealer.deal, round_id)
    for hand in dealt["hands"]:
        if hand["position"] != "dealer":
            counted("hand", dealer.hand, round_id, position=hand["position"], house_way=True)
    assert counted("settle", dealer.settle, round_id)["state"] == "settled"
    return counts


def test_each_step_sends_as_many_statements_at_one_seat_as_at_a_full_table(
        dealer, make_table, seat_player):
    one, six = make_table(name="One seat"), make_table(name="Six seats")
    seat_player(one, 1, funds=100_000)
    for seat in range(1, 7):
        seat_player(six, seat, funds=100_000)

    at_one = _round(dealer, one, 1)
    at_six = _round(dealer, six, 6)

    for kind in PER_REQUEST:
        assert set(at_six[kind]) == set(at_one[kind]), (kind, at_one[kind], at_six[kind])
    # pinned: a statement more on any step shows
    assert {kind: at_six[kind][0] for kind in PER_REQUEST} == PER_REQUEST
    total = sum(sum(counts) for counts in at_six.values())
    assert total <= A_ROUND_AT_MOST, total
