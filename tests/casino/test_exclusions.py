"""Exclusions through the API: recorded by the cage or a pit boss, refused at every door that
seats a player, takes their wager, buy-in or deposit, or gives them the bank (409
player_excluded, in words), lifted by a pit boss (a barring) or by two people (a
self-exclusion before its end); the record changes only by its lift, for the owner and the
runtime role alike."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, transaction

from casino.models import Exclusion, Player
from casino.selectors import player_balance
from casino.services import player_deposit
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Entry
from rounds.models import Round, Seat
from tests.players import make_player
from tests.rounds.conftest import Dealer, make_table, pit_boss, seat_player, table

__all__ = ["make_table", "pit_boss", "seat_player", "table"]

pytestmark = pytest.mark.django_db


def _exclude(client, player: Player, kind: str = "self", until: str | None = None,
             expect: int = 201) -> dict:
    answer = client.post(f"/api/v1/players/{player.pk}/exclusions",
                         {"kind": kind, "until": until, "reason": "Asked at the cage"},
                         format="json")
    assert answer.status_code == expect, answer.json()
    return answer.json()


def _refused_as_excluded(answer, name: str, doing: str) -> None:
    assert answer.status_code == 409, answer.json()
    error = answer.json()["error"]
    assert error["code"] == "player_excluded"
    assert error["message"].startswith(f"{name} is ")
    assert error["message"].endswith(f"and cannot {doing}.")


# --- recording and reading --------------------------------------------------------------------

def test_the_cage_records_a_self_exclusion_and_it_is_listed(cage_client, pit_boss_client):
    anna = make_player(name="Anna Meyer")
    until = (gaming_day_of() + timedelta(days=180)).isoformat()

    body = _exclude(cage_client, anna, until=until)

    assert (body["player"], body["kind"], body["until"], body["state"]) == (
        anna.pk, "self", until, "in_force")
    assert body["in_words"] == f"Anna Meyer is self-excluded until {until}"
    assert body["recorded_by"] == cage_client.user.username
    listed = pit_boss_client.get("/api/v1/exclusions").json()
    assert [e["id"] for e in listed] == [body["id"]]
    assert pit_boss_client.get("/api/v1/exclusions?kind=barred").json() == []
    mine = cage_client.get(f"/api/v1/players/{anna.pk}/exclusions").json()
    assert [e["id"] for e in mine] == [body["id"]]


def test_a_pit_boss_bars_a_player_for_good(pit_boss_client):
    body = _exclude(pit_boss_client, make_player(name="Bea"), kind="barred")

    assert body["until"] is None
    assert body["in_words"] == "Bea is barred for good"


@pytest.mark.parametrize("body, field", [
    ({"kind": "maybe", "reason": "x"}, "kind"),
    ({"kind": "self", "reason": ""}, "reason"),
    ({"kind": "self", "reason": "x", "until": "2001-01-01"}, "until"),
    ({"kind": "self", "reason": "x", "starts": "2001-01-01"}, "starts"),
])
def test_a_bad_exclusion_is_refused_in_words_and_records_nothing(cage_client, body, field):
    anna = make_player(name="Anna")

    answer = cage_client.post(f"/api/v1/players/{anna.pk}/exclusions", body, format="json")

    assert answer.status_code == 400, answer.json()
    assert field in answer.json()["error"]["detail"]["fields"]
    assert not Exclusion.objects.exists()


def test_a_dealer_may_neither_record_nor_read_exclusions(dealer_client):
    anna = make_player(name="Anna")

    assert dealer_client.post(f"/api/v1/players/{anna.pk}/exclusions", "not json",
                              content_type="text/plain").status_code == 403
    assert dealer_client.get("/api/v1/exclusions").status_code == 403


def test_an_ended_or_lifted_exclusion_is_listed_only_under_all(cage_client, pit_boss_client):
    anna = make_player(name="Anna")
    barred = _exclude(pit_boss_client, anna, kind="barred")
    pit_boss_client.post(f"/api/v1/exclusions/{barred['id']}/lift", {"reason": "Reviewed"},
                         format="json")

    assert cage_client.get("/api/v1/exclusions").json() == []
    every = cage_client.get("/api/v1/exclusions?status=all").json()
    assert [(e["id"], e["state"]) for e in every] == [(barred["id"], "lifted")]
    assert cage_client.get("/api/v1/exclusions?status=later").status_code == 400


# --- every door refuses an excluded player ---------------------------------------------------

def test_an_excluded_player_is_not_seated(pit_boss_client, table):
    anna = make_player(name="Anna")
    _exclude(pit_boss_client, anna)

    answer = pit_boss_client.put(f"/api/v1/tables/{table.pk}/seats/1", {"player": anna.pk},
                                 format="json")

    _refused_as_excluded(answer, "Anna", "be seated")
    assert not Seat.objects.filter(player=anna).exists()


def test_an_excluded_player_deposits_nothing_but_is_paid_out(cage_client, pit_boss_client):
    anna = make_player(name="Anna")
    player_deposit(player_id=anna.pk, amount=50_000, by=None)
    _exclude(pit_boss_client, anna, kind="barred")
    entries = Entry.objects.count()

    answer = cage_client.post(f"/api/v1/players/{anna.pk}/deposits", {"amount": "100.00"},
                              format="json")

    _refused_as_excluded(answer, "Anna", "deposit at the cage")
    assert Entry.objects.count() == entries
    # the money is theirs: a withdrawal is paid
    paid = cage_client.post(f"/api/v1/players/{anna.pk}/withdrawals", {"amount": "500.00"},
                            format="json")
    assert paid.status_code == 201, paid.json()
    assert player_balance(anna).posted == 0


def test_a_deposit_above_the_cap_is_refused_before_it_waits_for_a_pit_boss(
        cage_client, pit_boss_client):
    anna = make_player(name="Anna")
    _exclude(pit_boss_client, anna)

    answer = cage_client.post(f"/api/v1/players/{anna.pk}/deposits", {"amount": "20000.00"},
                              format="json")

    _refused_as_excluded(answer, "Anna", "deposit at the cage")
    assert pit_boss_client.get("/api/v1/approvals").json()["results"] == []


def test_a_player_excluded_while_seated_places_no_wager_and_buys_in_nothing(
        dealer_client, pit_boss_client, table, seat_player):
    anna = seat_player(table, 1, name="Anna", funds=10_000)
    seat_player(table, 2)
    dealer = Dealer(dealer_client)
    round_id = dealer.open_round(table)["id"]
    _exclude(pit_boss_client, anna, until=gaming_day_of().isoformat())
    entries = Entry.objects.count()

    wager = dealer_client.post(f"/api/v1/rounds/{round_id}/wagers",
                               {"seat": 1, "amount": "10.00"}, format="json")
    buy_in = dealer_client.post(f"/api/v1/tables/{table.pk}/buy-ins",
                                {"seat": 1, "amount": "50.00"}, format="json")

    _refused_as_excluded(wager, "Anna", "place a wager")
    _refused_as_excluded(buy_in, "Anna", "buy in")
    assert Entry.objects.count() == entries
    assert player_balance(anna).held == 0 and player_balance(anna).posted == 10_000
    # the pit unseats them: leaving is never refused
    assert dealer_client.delete(f"/api/v1/tables/{table.pk}/seats/1").status_code == 200


def test_a_player_excluded_while_seated_is_not_given_the_bank(dealer_client, pit_boss_client,
                                                              table, seat_player):
    anna = seat_player(table, 1, name="Anna")
    seat_player(table, 2)
    dealer = Dealer(dealer_client)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 2, "10.00")
    _exclude(pit_boss_client, anna, kind="barred")

    answer = dealer_client.post(f"/api/v1/rounds/{round_id}/banker", {"seat": 1},
                                format="json")

    _refused_as_excluded(answer, "Anna", "take the bank")
    assert Round.objects.get(pk=round_id).state == Round.State.BETTING


def test_a_player_dealer_excluded_is_not_given_a_card_rooms_bank(
        dealer_client, pit_boss_client, make_table, seat_player):
    card = make_table(bank_mode="card_room", commission_rate="0")
    anna = seat_player(card, 1, name="Anna")
    seat_player(card, 2)
    dealer = Dealer(dealer_client)
    round_id = dealer.open_round(card)["id"]
    dealer.wager(round_id, 2, "10.00")
    _exclude(pit_boss_client, anna)

    answer = dealer_client.post(f"/api/v1/rounds/{round_id}/banker", {"seat": 1},
                                format="json")

    _refused_as_excluded(answer, "Anna", "take the bank")


def test_an_exclusion_that_starts_later_does_not_refuse_today(cage_client, pit_boss_client,
                                                              table):
    anna = make_player(name="Anna")
    starts = (gaming_day_of() + timedelta(days=1)).isoformat()
    body = cage_client.post(f"/api/v1/players/{anna.pk}/exclusions",
                            {"kind": "self", "starts": starts, "reason": "From tomorrow"},
                            format="json").json()

    assert body["state"] == "starts_later"
    seated = pit_boss_client.put(f"/api/v1/tables/{table.pk}/seats/1", {"player": anna.pk},
                                 format="json")
    assert seated.status_code == 200, seated.json()


# --- lifting ----------------------------------------------------------------------------------

def test_a_pit_boss_lifts_a_barring_alone(pit_boss_client, table):
    anna = make_player(name="Anna")
    barred = _exclude(pit_boss_client, anna, kind="barred")

    lifted = pit_boss_client.post(f"/api/v1/exclusions/{barred['id']}/lift",
                                  {"reason": "Reviewed with security"}, format="json")

    assert lifted.status_code == 200, lifted.json()
    body = lifted.json()
    assert (body["state"], body["lifted_by"], body["lift_reason"], body["lift_approved_by"]) \
        == ("lifted", pit_boss_client.user.username, "Reviewed with security", None)
    seated = pit_boss_client.put(f"/api/v1/tables/{table.pk}/seats/1", {"player": anna.pk},
                                 format="json")
    assert seated.status_code == 200


def test_the_cage_may_not_lift_a_barring_whatever_it_sends(cage_client, pit_boss_client):
    barred = _exclude(pit_boss_client, make_player(name="Anna"), kind="barred")

    for body in ({"reason": "Please"}, ["not", "an", "object"]):
        answer = cage_client.post(f"/api/v1/exclusions/{barred['id']}/lift", body,
                                  format="json")
        assert answer.status_code == 403, answer.json()
    assert Exclusion.objects.get(pk=barred["id"]).lifted_at is None


def test_lifting_a_self_exclusion_before_its_end_waits_for_a_second_person(
        cage_client, pit_boss_client, staff_client, table):
    anna = make_player(name="Anna")
    own = _exclude(cage_client, anna)
    lift = f"/api/v1/exclusions/{own['id']}/lift"

    asked = cage_client.post(lift, {"reason": "The player asked again"}, format="json")

    assert asked.status_code == 202, asked.json()
    request = asked.json()
    assert request["status"] == "pending"
    assert Exclusion.objects.get(pk=own["id"]).lifted_at is None
    # it still holds: seating is refused while the request waits
    _refused_as_excluded(pit_boss_client.put(f"/api/v1/tables/{table.pk}/seats/1",
                                             {"player": anna.pk}, format="json"),
                         "Anna", "be seated")
    # a second lift is not asked while one waits
    again = pit_boss_client.post(lift, {"reason": "Me too"}, format="json")
    assert again.json()["error"]["code"] == "approval_pending"
    # the one who asked may not approve; a second person may
    assert cage_client.post(f"/api/v1/approvals/{request['id']}/approve", {},
                            format="json").status_code == 403
    approved = pit_boss_client.post(f"/api/v1/approvals/{request['id']}/approve", {},
                                    format="json")
    assert approved.status_code == 200, approved.json()

    lifted = Exclusion.objects.get(pk=own["id"])
    assert lifted.lifted_at is not None
    assert (lifted.lifted_by, lifted.lift_approved_by) == (cage_client.user,
                                                           pit_boss_client.user)
    assert pit_boss_client.put(f"/api/v1/tables/{table.pk}/seats/1", {"player": anna.pk},
                               format="json").status_code == 200


def test_a_second_clerk_may_approve_lifting_a_self_exclusion(cage_client, staff_client):
    other = staff_client("cage")
    own = _exclude(cage_client, make_player(name="Anna"))
    asked = cage_client.post(f"/api/v1/exclusions/{own['id']}/lift", {"reason": "Asked"},
                             format="json").json()

    assert other.post(f"/api/v1/approvals/{asked['id']}/approve", {},
                      format="json").status_code == 200
    assert Exclusion.objects.get(pk=own["id"]).lift_approved_by == other.user


def test_a_self_exclusion_is_never_lifted_on_one_persons_word(cage_client):
    from casino.exclusions import exclusion_lift
    from casino.shared.errors import Conflict

    own = _exclude(cage_client, make_player(name="Anna"))

    with pytest.raises(Conflict) as refused:
        exclusion_lift(exclusion_id=own["id"], reason="Alone", by=cage_client.user)

    assert refused.value.code == "approval_required"
    assert Exclusion.objects.get(pk=own["id"]).lifted_at is None


def test_a_lifted_exclusion_is_not_lifted_again(pit_boss_client):
    barred = _exclude(pit_boss_client, make_player(name="Anna"), kind="barred")
    lift = f"/api/v1/exclusions/{barred['id']}/lift"
    pit_boss_client.post(lift, {"reason": "Once"}, format="json")

    again = pit_boss_client.post(lift, {"reason": "Twice"}, format="json")

    assert again.status_code == 409
    assert again.json()["error"]["code"] == "exclusion_lifted"


# --- PostgreSQL holds the record, around the ORM ----------------------------------------------

def sql(statement: str, params: list | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])


@contextmanager
def refused(match: str) -> Iterator[None]:
    with pytest.raises(DatabaseError, match=match), transaction.atomic():
        yield


@pytest.mark.parametrize("role", ["owner", "runtime"])
@pytest.mark.parametrize("change", [
    "reason = 'edited'", "kind = 'self'", "until = starts", "player_id = player_id + 0 + 1",
])
def test_an_exclusion_never_changes_but_by_its_lift(pit_boss_client, runtime_role, role,
                                                    change):
    barred = _exclude(pit_boss_client, make_player(name="Anna"), kind="barred")
    make_player(name="Other")
    if role == "runtime":
        sql(f"SET LOCAL ROLE {runtime_role}")

    with refused("casino_exclusion|permission denied"):
        sql(f"UPDATE casino_exclusion SET {change} WHERE id = %s", [barred["id"]])
    with refused("casino_exclusion|permission denied"):
        sql("DELETE FROM casino_exclusion WHERE id = %s", [barred["id"]])

    # the lift, the one change, goes through for the runtime role too
    sql("UPDATE casino_exclusion SET lifted_at = now(), lifted_by_id = recorded_by_id, "
        "lift_reason = 'Reviewed' WHERE id = %s", [barred["id"]])
    with refused("was lifted and changes no more"):
        sql("UPDATE casino_exclusion SET lift_reason = 'Again' WHERE id = %s", [barred["id"]])


# --- a record and a seating at the same moment -----------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_a_seating_at_the_moment_of_an_exclusion_waits_for_it_or_went_first():
    import threading

    from django.db import connections

    from casino import roles
    from casino.exclusions import PlayerExcluded, exclusion_record
    from casino.services import staff_create
    from rounds import services

    # given a pit boss about to seat Anna while the cage records her self-exclusion
    boss, _ = staff_create(username="boss-race", role=roles.PIT_BOSS)
    clerk, _ = staff_create(username="cage-race", role=roles.CAGE)
    race = services.table_create(by=boss, name="Race")
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def seat(player_id: int) -> None:
        try:
            start.wait(timeout=30)
            services.seat_take(table_id=race.pk, number=2, player_id=player_id, by=boss)
            outcomes.append("seated")
        except PlayerExcluded:
            outcomes.append("player_excluded")
        except BaseException as other:  # a deadlock, anything else
            outcomes.append(repr(other))
        finally:
            connections.close_all()

    def record(player_id: int) -> None:
        try:
            start.wait(timeout=30)
            exclusion_record(player_id=player_id, kind="self", reason="Asked", by=clerk)
            outcomes.append("recorded")
        except BaseException as other:
            outcomes.append(repr(other))
        finally:
            connections.close_all()

    for n in range(5):
        anna = make_player(name=f"Anna {n}", by=boss)
        outcomes.clear()
        threads = [threading.Thread(target=step, args=(anna.pk,)) for step in (seat, record)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        # then the seating found the exclusion, or it was seated before the record began:
        # the player's row is locked by both, so neither reads past the other
        assert "recorded" in outcomes and len(outcomes) == 2, outcomes
        seated = Seat.objects.filter(player=anna).first()
        exclusion = Exclusion.objects.get(player=anna)
        if "seated" in outcomes:
            assert seated is not None and seated.since is not None
            assert seated.since < exclusion.recorded_at
            Seat.objects.filter(pk=seated.pk).update(player=None, since=None)
        else:
            assert outcomes.count("player_excluded") == 1 and seated is None
