"""Tables and seats through the API: settings change only between rounds, and are recorded."""

from __future__ import annotations

import pytest

from rounds.models import TableSettingsChange
from tests.players import make_player
from tests.rounds.conftest import Dealer

pytestmark = pytest.mark.django_db


def test_a_pit_boss_opens_a_table_with_the_rules_defaults(pit_boss_client):
    response = pit_boss_client.post("/api/v1/tables", {"name": "Pai Gow 7"}, format="json")

    assert response.status_code == 201
    body = response.json()
    assert {k: body[k] for k in (
        "currency", "min_bet", "max_bet", "commission_rate", "commission_rounding", "wheel",
        "house_way", "bank_rotation", "banker_must_have_played", "house_stake_cap",
        "foul_policy", "co_banking", "first_stack")} == {
        "currency": "EUR", "min_bet": "2.00", "max_bet": "100.00", "commission_rate": "0.0500",
        "commission_rounding": "exact", "wheel": "second_highest", "house_way": "foxwoods",
        "bank_rotation": "alternate", "banker_must_have_played": True,
        "house_stake_cap": "last_wager", "foul_policy": "house_way", "co_banking": False,
        "first_stack": "after_counted"}
    assert [s["number"] for s in body["seats"]] == [1, 2, 3, 4, 5, 6]


def test_a_dealer_may_not_open_or_configure_tables(dealer_client, table):
    assert dealer_client.post("/api/v1/tables", {"name": "X"}, format="json").status_code == 403
    response = dealer_client.patch(f"/api/v1/tables/{table.pk}", {"max_bet": "200"},
                                   format="json")
    assert response.status_code == 403


def test_settings_changes_are_recorded_with_who_and_what(pit_boss_client, table):
    response = pit_boss_client.patch(
        f"/api/v1/tables/{table.pk}", {"max_bet": "250.00", "wheel": "lowest"}, format="json")

    assert response.status_code == 200
    assert response.json()["max_bet"] == "250.00"
    change = TableSettingsChange.objects.get(table=table)
    assert change.changes == {"max_bet": [10_000, 25_000], "wheel": ["second_highest", "lowest"]}
    assert change.changed_by == pit_boss_client.user


def test_settings_do_not_change_while_a_round_is_in_play(pit_boss_client, dealer, table):
    dealer.open_round(table)

    response = pit_boss_client.patch(f"/api/v1/tables/{table.pk}", {"max_bet": "250.00"},
                                     format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "round_in_progress"
    table.refresh_from_db()
    assert table.max_bet == 10_000
    assert not TableSettingsChange.objects.exists()


@pytest.mark.parametrize("body", [
    {"min_bet": "50", "max_bet": "10"},
    {"house_way": "nowhere"},
    {"commission_rate": "1.5"},
    {"min_bet": "0"},
    {"wheel": "sideways"},
])
def test_bad_settings_are_refused_with_400_and_change_nothing(pit_boss_client, table, body):
    response = pit_boss_client.patch(f"/api/v1/tables/{table.pk}", body, format="json")

    assert response.status_code == 400
    table.refresh_from_db()
    assert (table.min_bet, table.max_bet, table.house_way) == (200, 10_000, "foxwoods")


def test_a_seat_holds_one_player_and_a_player_one_seat(dealer, pit_boss_client, table,
                                                      seat_player):
    pit = Dealer(pit_boss_client)  # seating is the pit's
    anna = seat_player(table, 1)
    bram = seat_player(table, 2)

    taken = pit.call("put", f"/api/v1/tables/{table.pk}/seats/1", {"player": bram.pk},
                        expect=409)
    twice = pit.call("put", f"/api/v1/tables/{table.pk}/seats/3", {"player": anna.pk},
                        expect=409)

    assert taken["error"]["code"] == twice["error"]["code"] == "seat_unavailable"
    left = dealer.call("delete", f"/api/v1/tables/{table.pk}/seats/1")
    assert left["seats"][0]["player"] is None
    assert pit.call("put", f"/api/v1/tables/{table.pk}/seats/7", {"player": anna.pk},
                       expect=400)["error"]["code"] == "invalid"


def test_a_player_with_a_wager_cannot_leave_the_seat(dealer, table, seat_player):
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10")

    body = dealer.call("delete", f"/api/v1/tables/{table.pk}/seats/1", expect=409)

    assert "has a wager" in body["error"]["message"]


def test_rounds_of_a_table_filter_by_state_and_gaming_day(dealer, auditor_client, table,
                                                          seat_player):
    seat_player(table, 1)
    dealer.house_round(table, {1: "10"}, {"1": "win"})
    open_round = dealer.open_round(table)

    settled = auditor_client.get(f"/api/v1/tables/{table.pk}/rounds?state=settled").json()
    today = open_round["gaming_day"]
    by_day = auditor_client.get(f"/api/v1/tables/{table.pk}/rounds?gaming_day={today}").json()
    bad = auditor_client.get(f"/api/v1/tables/{table.pk}/rounds?gaming_day=yesterday")

    assert [r["number"] for r in settled["results"]] == [1]
    assert [r["number"] for r in by_day["results"]] == [2, 1]
    assert bad.status_code == 400


def test_an_auditor_reads_rounds_but_cannot_play(auditor_client, table):
    assert auditor_client.get(f"/api/v1/tables/{table.pk}").status_code == 200
    response = auditor_client.post(f"/api/v1/tables/{table.pk}/rounds", {}, format="json")
    assert response.status_code == 403


# --- who and when (rules §10): opening a table, taking and leaving a seat ---------------------

def test_opening_a_table_records_who_opened_it(pit_boss_client):
    from rounds.models import Table

    response = pit_boss_client.post("/api/v1/tables", {"name": "Pai Gow 8"}, format="json")

    table = Table.objects.get(pk=response.json()["id"])
    assert table.created_by == pit_boss_client.user
    assert table.created_at is not None


def test_taking_and_leaving_a_seat_are_recorded_with_who_and_when(dealer, pit_boss_client,
                                                                  table):
    from rounds.models import SeatChange

    anna = make_player(name="Anna", currency=table.currency, by=None)
    Dealer(pit_boss_client).call("put", f"/api/v1/tables/{table.pk}/seats/2",
                                 {"player": anna.pk})
    dealer.call("delete", f"/api/v1/tables/{table.pk}/seats/2")
    # leaving an empty seat changes nothing and records nothing
    dealer.call("delete", f"/api/v1/tables/{table.pk}/seats/2")

    changes = list(SeatChange.objects.filter(table=table).order_by("id"))
    assert [(c.number, c.player_id, c.kind, c.by_id) for c in changes] == [
        (2, anna.pk, "took", pit_boss_client.user.pk),
        (2, anna.pk, "left", dealer.client.user.pk),
    ]
    assert changes[0].at <= changes[1].at


def test_a_dealer_cannot_seat_a_player_whose_money_they_would_then_deal_for(dealer, table):
    # an absent player, seated by a dealer, could be made to wager at a deal the dealer runs

    absent = make_player(name="Absent", currency=table.currency, by=None)

    refused = dealer.call("put", f"/api/v1/tables/{table.pk}/seats/1", {"player": absent.pk},
                          expect=403)

    assert refused["error"]["code"] == "permission_denied"
    assert not table.seats.filter(player=absent).exists()
