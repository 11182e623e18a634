"""A declined bank is a step of the round (rules §7.1): recorded once through any door, seen
by every door afterwards, and refused for a seat the rotation does not offer it to."""

from __future__ import annotations

import pytest
from django.test import Client

from casino import roles
from casino.services import staff_create
from ledger.models import Hold
from rounds import services
from rounds.errors import BankerNotAllowed
from rounds.models import Round, RoundEvent
from rounds.screens.selectors import banker_offer

pytestmark = pytest.mark.django_db


@pytest.fixture
def rotation_floor(dealer, table, seat_player):
    """Anna (1), Bram (2) and Chris (3) seated; Anna and Bram played against the house last
    round, so the rotation offers the bank to Anna, then Bram; Chris bets this round."""
    players = {n: seat_player(table, n, name=name)
               for n, name in ((1, "Anna"), (2, "Bram"), (3, "Chris"))}
    dealer.house_round(table, {1: "10.00", 2: "20.00"}, {"1": "push", "2": "push"})
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 3, "10.00")
    return {"table": table, "players": players, "round_id": round_id}


def decline(dealer, round_id: int, seat: int, expect: int = 200) -> dict:
    return dealer.call("post", f"/api/v1/rounds/{round_id}/banker/decline", {"seat": seat},
                       expect)


def test_a_declined_bank_is_recorded_and_the_offer_passes_to_the_next_seat(
        dealer, rotation_floor):
    round_id = rotation_floor["round_id"]
    anna = rotation_floor["players"][1]

    body = decline(dealer, round_id, 1)

    # the round's answer says who declined, and its story has the step
    assert body["bank_declined"] == [{"seat": 1, "player": anna.pk}]
    assert body["events"][-1]["kind"] == "bank_declined"
    assert body["events"][-1]["data"] == {"seat": 1, "player": anna.pk}
    assert dealer.get(round_id)["bank_declined"] == [{"seat": 1, "player": anna.pk}]
    # and the offer, read again, stays with Bram
    assert banker_offer(Round.objects.get(pk=round_id)).seat == 2
    # and nothing moved: the only hold is Chris's wager
    assert Hold.objects.filter(ref=f"round:{round_id}", status=Hold.Status.OPEN).count() == 1


def test_only_the_seat_offered_the_bank_may_decline_it(dealer, rotation_floor):
    round_id = rotation_floor["round_id"]

    refused = decline(dealer, round_id, 2, expect=409)

    assert refused["error"]["code"] == "bank_not_offered"
    assert refused["error"]["message"] == (
        "seat 2 cannot decline the bank: the bank is offered to seat 1 (Anna) now")
    assert refused["error"]["detail"] == {"seat": 2, "offered": 1}
    assert not RoundEvent.objects.filter(round_id=round_id, kind="bank_declined").exists()


def test_a_seat_cannot_decline_twice_and_when_nobody_is_left_the_house_banks(
        dealer, rotation_floor):
    round_id = rotation_floor["round_id"]
    decline(dealer, round_id, 1)
    assert decline(dealer, round_id, 1, expect=409)["error"]["code"] == "bank_not_offered"
    decline(dealer, round_id, 2)

    refused = decline(dealer, round_id, 3, expect=409)

    assert refused["error"]["message"] == ("seat 3 cannot decline the bank: the bank is "
                                           "offered to no seat now: the house banks")
    offer = banker_offer(Round.objects.get(pk=round_id))
    assert offer.seat is None
    assert offer.why_none == (
        "No seated player can take the bank this round (seat 1 · Anna declined; seat 2 · "
        "Bram declined; seat 3 · Chris has a wager): the house banks.")
    assert dealer.get(round_id)["bank_declined"] == [
        {"seat": 1, "player": rotation_floor["players"][1].pk},
        {"seat": 2, "player": rotation_floor["players"][2].pk}]


def test_a_seat_that_declined_may_not_take_the_bank_after_all(dealer, rotation_floor):
    round_id = rotation_floor["round_id"]
    decline(dealer, round_id, 1)

    refused = dealer.banker(round_id, seat=1, house_stake="0", expect=409)

    assert refused["error"]["code"] == "banker_not_allowed"
    assert refused["error"]["message"] == "Anna declined the bank this round: it has passed on"
    assert refused["error"]["detail"] == {"seat": 1, "reason": "declined"}
    # Bram, offered next, takes it; the event says Anna passed
    body = dealer.banker(round_id, seat=2, house_stake="0")
    assert body["banker"]["seat"] == 2
    assert body["events"][-1]["data"]["passed"] == [1]


def test_the_bank_is_declined_only_while_the_round_takes_wagers(dealer, rotation_floor):
    round_id = rotation_floor["round_id"]
    dealer.banker(round_id, house=True)

    refused = decline(dealer, round_id, 1, expect=409)

    assert refused["error"]["code"] == "wrong_state"


def test_a_seat_taken_by_another_player_since_the_decline_is_offered_the_bank_again(
        dealer, rotation_floor, pit_boss, seat_player):
    # given Anna declines, then leaves; Dora, who played against the house, is not seated
    round_id = rotation_floor["round_id"]
    table = rotation_floor["table"]
    decline(dealer, round_id, 1)
    services.seat_leave(table_id=table.pk, number=1, by=pit_boss)
    # when a new player sits at seat 1 (eligible only without banker_must_have_played)
    seat_player(table, 1, name="Dora")

    # then seat 1's decline was Anna's, not Dora's: the rotation asks Dora on her merits
    round_ = Round.objects.get(pk=round_id)
    with pytest.raises(BankerNotAllowed, match="Dora may bank only after wagering"):
        services.banker_set(round_id=round_id, seat=1, by=pit_boss)
    assert banker_offer(round_).seat == 2


def test_bad_input_to_the_decline_is_a_400_and_changes_nothing(dealer, rotation_floor):
    round_id = rotation_floor["round_id"]
    for body in ({}, {"seat": 0}, {"seat": "x"}, {"seat": 7}):
        refused = dealer.call("post", f"/api/v1/rounds/{round_id}/banker/decline", body, 400)
        assert refused["error"]["code"] == "invalid"
    assert dealer.call("post", "/api/v1/rounds/999999/banker/decline", {"seat": 1},
                       404)["error"]["code"] == "not_found"
    assert not RoundEvent.objects.filter(round_id=round_id, kind="bank_declined").exists()


def test_an_auditor_may_not_decline_the_bank_for_a_seat(
        auditor_client, rotation_floor):
    round_id = rotation_floor["round_id"]

    response = auditor_client.post(f"/api/v1/rounds/{round_id}/banker/decline", {"seat": 1},
                                   format="json")

    assert response.status_code == 403
    assert not RoundEvent.objects.filter(round_id=round_id, kind="bank_declined").exists()


# --- the console ------------------------------------------------------------------------------

def _dealer_client() -> Client:
    user, _ = staff_create(username="dana", role=roles.DEALER)
    client = Client()
    client.force_login(user)
    return client


def test_the_console_records_a_decline_and_a_reload_shows_the_offer_passed_on(rotation_floor):
    round_id = rotation_floor["round_id"]
    table = rotation_floor["table"]
    client = _dealer_client()
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert "offers the bank to <strong>seat 1 · Anna</strong>" in page
    assert "?declined=" not in page

    response = client.post(f"/rounds/{round_id}/banker/decline/", {"seat": "1"},
                           headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert "Anna declines the bank: it passes on." in response.content.decode()
    event = RoundEvent.objects.get(round_id=round_id, kind="bank_declined")
    assert event.data == {"seat": 1, "player": rotation_floor["players"][1].pk}
    # a plain reload, with nothing in the address, shows the offer with Bram
    reloaded = client.get(f"/tables/{table.pk}/").content.decode()
    assert "offers the bank to <strong>seat 2 · Bram</strong>" in reloaded
    assert "Declined this round: seat 1 · Anna." in reloaded


def test_the_console_refuses_a_decline_for_a_seat_not_offered_in_words(rotation_floor):
    round_id = rotation_floor["round_id"]
    client = _dealer_client()

    response = client.post(f"/rounds/{round_id}/banker/decline/", {"seat": "3"},
                           headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert ("Seat 3 cannot decline the bank: the bank is offered to seat 1 (Anna) now."
            in response.content.decode())
    assert not RoundEvent.objects.filter(round_id=round_id, kind="bank_declined").exists()


@pytest.mark.parametrize("seat", ["", "²", "0", "7", "1,2", "x"])
def test_the_console_answers_a_bad_seat_in_words_and_changes_nothing(rotation_floor, seat):
    round_id = rotation_floor["round_id"]
    client = _dealer_client()

    response = client.post(f"/rounds/{round_id}/banker/decline/", {"seat": seat},
                           headers={"HX-Request": "true"})

    assert response.status_code == 200
    content = response.content.decode()
    assert "Name the seat, 1 to 6." in content or "A seat is a number from 1 to 6." in content
    assert not RoundEvent.objects.filter(round_id=round_id, kind="bank_declined").exists()
