"""The buy-in line (CASINO_BUY_IN_APPROVAL_ABOVE): a buy-in that brings the player's buy-ins
at one table in the gaming day above it waits for another pit boss, and moves nothing until
then; and the cage pays out a buy-in's cash only once its table's box is counted, or with a
pit boss's approval. Through the API and the console; the ledger is checked each time."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from casino import roles
from casino.services import staff_create
from casino.shared.approvals import Approval
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Entry
from rounds import services
from tests.rounds.conftest import available
from tests.rounds.test_drop import account, buy_in, confirm, count

pytestmark = pytest.mark.django_db


@pytest.fixture
def witness(db):
    user, _ = staff_create(username="wendy", role=roles.COUNT)
    return user


def approve(client, approval_id, expect=200):
    response = client.post(f"/api/v1/approvals/{approval_id}/approve", {}, format="json")
    assert response.status_code == expect, response.json()
    return response.json()


def box_paid(table) -> int:
    """What the table's drop box paid out to players' accounts (minor units, positive)."""
    return -sum(account("drop_box", table).lines.values_list("amount", flat=True))


def withdraw(client, player, amount):
    return client.post(f"/api/v1/players/{player.pk}/withdrawals", {"amount": amount},
                       format="json")


# --- the line -----------------------------------------------------------------------------------

def test_a_buy_in_past_the_line_waits_and_posts_once_another_pit_boss_approves(
        dealer_client, pit_boss_client, table, seat_player):
    player = seat_player(table, 2, funds=0, name="Anna")

    asked = buy_in(dealer_client, table, 2, "2500.00", expect=202)

    assert asked["action"] == "rounds.buy_in" and asked["status"] == "pending"
    assert asked["summary"] == ("Buy-in of 2,500.00 EUR by Anna at Table 1, seat 2: brings "
                                "Anna's buy-ins at Table 1 today to 2,500.00 EUR, above the "
                                "line of 2,000.00 EUR")
    assert asked["params"]["amount"] == "2500.00"
    assert not Entry.objects.filter(kind="buy_in").exists()
    assert available(player) == 0

    decided = approve(pit_boss_client, asked["id"])

    (entry,) = Entry.objects.filter(kind="buy_in")
    assert decided["status"] == "approved"
    assert decided["result_id"] == entry.pk
    assert decided["result_url"] == f"/api/v1/ledger/entries/{entry.pk}"
    # recorded as the dealer's, who took the cash
    assert entry.created_by is not None
    assert entry.created_by.username == dealer_client.user.username
    assert available(player) == 250_000
    assert box_paid(table) == 250_000


def test_a_rejected_buy_in_moves_nothing(dealer_client, pit_boss_client, table, seat_player):
    player = seat_player(table, 1, funds=0)
    asked = buy_in(dealer_client, table, 1, "3000.00", expect=202)

    rejected = pit_boss_client.post(f"/api/v1/approvals/{asked['id']}/reject",
                                    {"note": "no such cash at the table"}, format="json")

    assert rejected.status_code == 200 and rejected.json()["result_url"] is None
    assert not Entry.objects.filter(kind="buy_in").exists()
    assert available(player) == 0


def test_the_pit_boss_who_took_a_buy_in_past_the_line_cannot_approve_it(
        pit_boss_client, dealer_client, staff_client, table, seat_player):
    player = seat_player(table, 1, funds=0)
    asked = buy_in(pit_boss_client, table, 1, "2500.00", expect=202)

    own = approve(pit_boss_client, asked["id"], expect=403)
    dealer = approve(dealer_client, asked["id"], expect=404)   # not theirs to see or decide

    assert own["error"]["code"] == "own_request"
    assert dealer["error"]["code"] == "not_found"
    assert available(player) == 0
    # another pit boss may
    approve(staff_client(roles.PIT_BOSS), asked["id"])
    assert available(player) == 250_000


def test_the_days_buy_ins_of_the_player_at_the_table_count_together(
        dealer_client, pit_boss, table, make_table, seat_player):
    player = seat_player(table, 1, funds=0)
    other = make_table()

    buy_in(dealer_client, table, 1, "1500.00")
    buy_in(dealer_client, table, 1, "500.00")          # 2,000.00: the line itself
    asked = buy_in(dealer_client, table, 1, "0.01", expect=202)

    assert "today to 2,000.01 EUR" in asked["summary"]
    assert available(player) == 200_000
    # at another table the player's day there starts from nothing
    services.seat_leave(table_id=table.pk, number=1, by=pit_boss)
    services.seat_take(table_id=other.pk, number=1, player_id=player.pk, by=pit_boss)
    buy_in(dealer_client, other, 1, "1000.00")
    assert available(player) == 300_000


def test_a_small_buy_in_goes_through_while_a_big_one_waits(dealer_client, table,
                                                           seat_player):
    player = seat_player(table, 1, funds=0)
    asked = buy_in(dealer_client, table, 1, "2500.00", expect=202)

    small = buy_in(dealer_client, table, 1, "100.00")
    again = buy_in(dealer_client, table, 1, "2000.00", expect=202)   # 2,100.00 today

    assert small["amount"] == "100.00" and available(player) == 10_000
    assert again["id"] != asked["id"]
    assert Approval.objects.filter(action="rounds.buy_in", status="pending").count() == 2


def test_a_buy_in_waiting_is_not_credited_to_whoever_sits_in_the_seat_later(
        dealer_client, pit_boss_client, pit_boss, table, seat_player):
    anna = seat_player(table, 1, funds=0, name="Anna")
    asked = buy_in(dealer_client, table, 1, "2500.00", expect=202)
    services.seat_leave(table_id=table.pk, number=1, by=pit_boss)
    bea = seat_player(table, 1, funds=0, name="Bea")

    refused = approve(pit_boss_client, asked["id"], expect=409)

    assert refused["error"]["code"] == "seat_changed"
    assert "now holds Bea" in refused["error"]["message"]
    assert Approval.objects.get(pk=asked["id"]).status == "pending"
    assert (available(anna), available(bea)) == (0, 0)
    assert not Entry.objects.filter(kind="buy_in").exists()


def test_the_line_holds_whatever_dual_control_says(dealer_client, table, seat_player,
                                                   settings):
    settings.CASINO_DUAL_CONTROL = False
    settings.CASINO_BUY_IN_APPROVAL_ABOVE = "100.00"
    seat_player(table, 1, funds=0)

    buy_in(dealer_client, table, 1, "100.00")
    buy_in(dealer_client, table, 1, "0.50", expect=202)

    assert Entry.objects.filter(kind="buy_in").count() == 1


def test_the_service_refuses_a_buy_in_past_the_line_without_an_approval(table, seat_player):
    from casino.shared.errors import Conflict
    from rounds.services.drop import buy_in_take

    seat_player(table, 1, funds=0)
    dealer, _ = staff_create(username="dan", role=roles.DEALER)

    with pytest.raises(Conflict) as refused:
        buy_in_take(table_id=table.pk, seat=1, amount=250_000, by=dealer)

    assert refused.value.code == "approval_required"
    assert not Entry.objects.filter(kind="buy_in").exists()


# --- the cage pays out a buy-in's cash once the box is counted ---------------------------------

def test_a_withdrawal_drawing_on_buy_ins_not_counted_waits_and_goes_through_after_the_count(
        dealer_client, cage_client, pit_boss_client, witness, table, seat_player):
    anna = seat_player(table, 1, funds=500_000, name="Anna")   # 5,000.00 from the cage
    buy_in(dealer_client, table, 1, "1500.00")

    # from the money the cage took itself: paid at once
    assert withdraw(cage_client, anna, "4000.00").status_code == 201
    # 1,500.00 of the 2,500.00 asked came from the table, not counted yet: it waits
    asked = withdraw(cage_client, anna, "2500.00")

    assert asked.status_code == 202, asked.json()
    assert asked.json()["summary"] == ("Withdrawal of 2,500.00 EUR for Anna: 1,500.00 EUR of "
                                       "Anna's balance came from buy-ins at Table 1 not yet "
                                       "counted")
    assert Entry.objects.filter(kind="withdrawal").count() == 1
    assert available(anna) == 250_000

    # the box counted, but the count awaits its witness: nothing is posted, still waits
    counted = count(cage_client, table, gaming_day_of(), "1500.00", witness.username)
    assert withdraw(cage_client, anna, "2500.00").status_code == 202
    # the witness signs: the count posts, and the same withdrawal goes through without
    # anyone's approval
    witness_client = APIClient()
    witness_client.force_authenticate(witness)
    confirm(witness_client, counted)
    paid = withdraw(cage_client, anna, "2500.00")

    assert paid.status_code == 201, paid.json()
    assert available(anna) == 0
    # the requests filed before the count are still there to decide: nothing left to pay
    assert approve(pit_boss_client, asked.json()["id"],
                   expect=409)["error"]["code"] == "insufficient_funds"


def test_a_pit_boss_approves_a_withdrawal_of_buy_ins_not_counted(
        dealer_client, cage_client, pit_boss_client, table, seat_player):
    anna = seat_player(table, 1, funds=0, name="Anna")
    buy_in(dealer_client, table, 1, "1000.00")
    asked = withdraw(cage_client, anna, "1000.00")
    assert asked.status_code == 202

    decided = approve(pit_boss_client, asked.json()["id"])

    (paid,) = Entry.objects.filter(kind="withdrawal")
    assert decided["result_id"] == paid.pk
    assert available(anna) == 0


# --- the console ---------------------------------------------------------------------------------

def console(role: str, username: str) -> Client:
    user, _ = staff_create(username=username, role=role)
    client = Client()
    client.force_login(user)
    return client


def test_at_the_table_screen_a_buy_in_past_the_line_shows_waiting_and_the_pit_boss_approves_it(
        table, seat_player):
    anna = seat_player(table, 2, funds=0, name="Anna")
    dealer = console(roles.DEALER, "dana")
    boss = console(roles.PIT_BOSS, "boss")

    taken = dealer.post(f"/tables/{table.pk}/buy-ins/",
                        {"seat": "2", "amount": "2500.00", "once": "b1"}, follow=True)

    page = taken.content.decode()
    (asked,) = Approval.objects.filter(action="rounds.buy_in", status="pending")
    assert "It is waiting for a pit boss&#x27;s approval (request #" in page
    assert 'data-testid="buy-in-waiting"' in page
    assert "2,500.00 EUR waiting for a pit boss's approval" in page
    assert f'href="/approvals/#approval-{asked.pk}"' in page
    assert available(anna) == 0

    listed = boss.get("/approvals/").content.decode()
    assert f'id="approval-{asked.pk}"' in listed and "Buy-in of 2,500.00 EUR by Anna" in listed
    decided = boss.post(f"/approvals/{asked.pk}/decide/", {"decision": "approve"},
                        follow=True).content.decode()

    assert f"Request #{asked.pk} is approved" in decided
    assert f'<a href="/tables/{table.pk}/">At the table</a>' in decided
    assert available(anna) == 250_000
    after = dealer.get(f"/tables/{table.pk}/").content.decode()
    assert 'data-testid="buy-in-waiting"' not in after


def test_the_cage_page_says_which_buy_ins_are_not_counted_yet(dealer_client, table,
                                                              seat_player):
    anna = seat_player(table, 1, funds=0, name="Anna")
    buy_in(dealer_client, table, 1, "1200.00")
    clerk = console(roles.CAGE, "clerk")

    page = clerk.get(f"/cage/players/{anna.pk}/").content.decode()

    assert ("1,200.00 EUR of Anna's balance came from buy-ins at Table 1 not yet "
            "counted") in page


# --- two dealers at once cannot both pass the line on one reading -------------------------------

@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_buy_ins_cannot_both_pass_the_line(make_table, seat_player):
    import threading

    from django.db import connections

    from casino.shared.errors import Conflict
    from rounds.services.drop import buy_in_submit

    table = make_table()
    player = seat_player(table, 1, funds=0)
    dealers = [staff_create(username=f"dealer-{n}", role=roles.DEALER)[0] for n in (1, 2)]
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def take(dealer) -> None:
        try:
            start.wait()
            done = buy_in_submit(table_id=table.pk, seat=1, amount=150_000, by=dealer)
            outcomes.append("credited" if done.approval is None else "waits")
        except Conflict as exc:
            outcomes.append(exc.code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=take, args=(d,)) for d in dealers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["credited", "waits"]
    assert Entry.objects.filter(kind="buy_in").count() == 1
    assert available(player) == 150_000


def test_a_count_that_found_the_box_short_confirms_no_buy_in_until_someone_explains_it(
        dealer_client, cage_client, pit_boss_client, witness, table, seat_player):
    # A dealer credits a friend 1,000.00 that never went into the box; the box is counted
    # and found empty, the witness signs: the shortfall is an exception still open. The
    # cage does not pay that money out on one person's word meanwhile.
    anna = seat_player(table, 1, funds=0, name="Anna")
    buy_in(dealer_client, table, 1, "1000.00")
    witness_client = APIClient()
    witness_client.force_authenticate(witness)
    counted = count(cage_client, table, gaming_day_of(), "0.00", witness.username)
    confirm(witness_client, counted)

    asked = withdraw(cage_client, anna, "1000.00")

    assert asked.status_code == 202, asked.json()
    assert not Entry.objects.filter(kind="withdrawal").exists()
    assert available(anna) == 100_000
    # explained by someone other than the counter, the count stands: paid without a request
    explained = pit_boss_client.post(f"/api/v1/drop-counts/{counted['id']}/explain",
                                     {"reason": "cash found in the next box"}, format="json")
    assert explained.status_code == 200, explained.json()
    assert withdraw(cage_client, anna, "1000.00").status_code == 201
    assert available(anna) == 0


def test_buy_ins_of_the_day_before_not_counted_still_wait_after_the_gaming_day_turns(
        dealer_client, cage_client, table, seat_player, monkeypatch):
    # The boxes are counted the morning after: a buy-in credited just before the gaming
    # day turns is not paid out just after it on the dealer's word alone.
    from datetime import timedelta

    import rounds.drop

    anna = seat_player(table, 1, funds=0, name="Anna")
    buy_in(dealer_client, table, 1, "1000.00")
    today = gaming_day_of()
    monkeypatch.setattr(rounds.drop, "gaming_day_of", lambda *a: today + timedelta(days=1))

    asked = withdraw(cage_client, anna, "1000.00")

    assert asked.status_code == 202, asked.json()
    assert "buy-ins at Table 1 not yet counted" in asked.json()["summary"]
    assert not Entry.objects.filter(kind="withdrawal").exists()
    assert available(anna) == 100_000
