"""A card room's bank goes "to every seated player in seat order" (docs/rules.md §14.1): a
seat takes it when the offer reaches it. Seat 1 taking the bank offered to seat 2 before seat
2 declines is refused, 409 bank_not_offered, at every door (API, console, the service), and
nothing changes; once seat 2 declines, seat 1 takes it."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from casino import roles
from casino.services import staff_create
from casino.shared.errors import Conflict
from rounds import services
from rounds.models import Round, RoundEvent
from rounds.paigow.rotation import bank_offer
from rounds.selectors import round_bank_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def card_table(make_table):
    return make_table(bank_mode="card_room", commission_rate="0")


@pytest.fixture
def offered_to_seat_2(card_table, seat_player, pit_boss) -> Round:
    """Seat 1 banked the last round, so this round's bank is offered to seat 2 first."""
    for n in (1, 2, 3):
        seat_player(card_table, n, name=f"Seat {n}")
    first = services.round_open(table_id=card_table.pk, by=pit_boss)
    services.wager_place(round_id=first.pk, seat=2, amount=1_000, by=pit_boss)
    services.banker_set(round_id=first.pk, seat=1, by=pit_boss)
    services.round_settle(round_id=first.pk, by=pit_boss, outcomes={"2": "push"})
    round_ = services.round_open(table_id=card_table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=3, amount=1_000, by=pit_boss)
    assert bank_offer(round_bank_table(round_)).seat == 2
    return round_


def _unchanged(round_: Round) -> None:
    round_.refresh_from_db()
    assert (round_.state, round_.banker_seat) == (Round.State.BETTING, None)
    assert not RoundEvent.objects.filter(round=round_, kind="banker_set").exists()


def test_the_api_refuses_the_bank_to_a_seat_before_the_one_offered(dealer_client,
                                                                   offered_to_seat_2):
    round_ = offered_to_seat_2

    answer = dealer_client.post(f"/api/v1/rounds/{round_.pk}/banker", {"seat": 1},
                                format="json")

    assert answer.status_code == 409
    error = answer.json()["error"]
    assert error["code"] == "bank_not_offered"
    assert error["message"].startswith("the bank is offered to seat 2 (Seat 2) now: seat 1 "
                                       "(Seat 1) takes it only when the offer reaches them")
    assert error["detail"] == {"seat": 1, "offered": 2}
    _unchanged(round_)


def test_once_the_seat_offered_declines_the_next_takes_the_bank(dealer_client,
                                                                offered_to_seat_2):
    round_ = offered_to_seat_2
    declined = dealer_client.post(f"/api/v1/rounds/{round_.pk}/banker/decline", {"seat": 2},
                                  format="json")
    assert declined.status_code == 200, declined.json()

    # seat 3 has a wager: the offer passes to it, then seat 1 after it declines
    assert dealer_client.post(f"/api/v1/rounds/{round_.pk}/banker", {"seat": 1},
                              format="json").json()["error"]["code"] == "bank_not_offered"
    dealer_client.post(f"/api/v1/rounds/{round_.pk}/banker/decline", {"seat": 3},
                       format="json")
    taken = dealer_client.post(f"/api/v1/rounds/{round_.pk}/banker", {"seat": 1},
                               format="json")

    assert taken.status_code == 200, taken.json()
    assert taken.json()["banker"]["seat"] == 1


def test_the_service_refuses_it_whoever_calls(pit_boss, offered_to_seat_2):
    with pytest.raises(Conflict) as refused:
        services.banker_set(round_id=offered_to_seat_2.pk, seat=1, by=pit_boss)

    assert refused.value.code == "bank_not_offered"
    _unchanged(offered_to_seat_2)


def test_the_console_refuses_it_in_words(offered_to_seat_2):
    user, _ = staff_create(username="dana", role=roles.DEALER)
    console = Client()
    console.force_login(user)

    page = console.post(f"/rounds/{offered_to_seat_2.pk}/banker/", {"seat": 1},
                        headers={"HX-Request": "true"})

    text = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ",
                                                     page.content.decode())))
    assert "The bank is offered to seat 2 (Seat 2) now: seat 1 (Seat 1) takes it only" in text
    assert "bank_not_offered" not in text
    _unchanged(offered_to_seat_2)
