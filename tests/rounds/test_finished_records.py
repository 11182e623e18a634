"""Finished records do not change, for the owner and the service's runtime role alike,
whatever path a change takes (rounds/migrations/0018, docs/rounds.md "What PostgreSQL
guards"): a finished round but for a settled round's reversal, a settled hand, a drop count
but for its witness's confirmation or refusal, explaining its variance (by someone other
than its counter) and marking it corrected with the count that corrects it.
Each guard is shown refusing raw SQL, and the service's own transitions still run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from casino import roles
from casino.services import staff_create
from casino.shared.gaming_day import gaming_day_of
from ledger.models import Entry
from rounds.models import DropCount, Hand, Round, RoundParty
from rounds.services.drop import (
    drop_count_confirm,
    drop_count_correct,
    drop_count_explain,
    drop_count_record,
)

pytestmark = pytest.mark.django_db

ROLES = ["owner", "runtime"]


def sql(statement: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


@contextmanager
def refused(match: str) -> Iterator[None]:
    """A savepoint, so the test's transaction survives; deferred guards speak at its end, as
    at COMMIT. A trigger's refusal is an IntegrityError, a missing privilege a
    ProgrammingError: both are DatabaseErrors, told apart by ``match``."""
    with pytest.raises(DatabaseError, match=match), transaction.atomic():
        yield
        sql("SET CONSTRAINTS ALL IMMEDIATE")


@pytest.fixture(params=ROLES)
def as_role(request, runtime_role) -> str:
    """Every test below runs as the tables' owner and as the service's runtime role."""
    if request.param == "runtime":
        sql(f"SET LOCAL ROLE {runtime_role}")
    return request.param


@pytest.fixture
def settled(dealer, table, seat_player) -> Round:
    """A house-banked round seat 1 won and seat 2 lost, settled."""
    seat_player(table, 1, funds=10_000)
    seat_player(table, 2, funds=10_000)
    body = dealer.house_round(table, {1: "50.00", 2: "20.00"}, {"1": "win", "2": "loss"})
    return Round.objects.get(pk=body["id"])


# --- a finished round ------------------------------------------------------------------------

@pytest.mark.parametrize("change", [
    "state = 'dealt'",
    "house_stake = house_stake + 100",
    "entry_id = NULL",
    "gaming_day = gaming_day - 1",
    "closed_reason = 'edited'",
    "state = 'voided', closed_reason = 'hidden'",
])
def test_a_settled_round_never_changes_but_for_its_reversal(settled, as_role, change):
    with refused("round .* is settled and never changes, but for its reversal"):
        sql(f"UPDATE rounds_round SET {change} WHERE id = %s", [settled.pk])

    assert Round.objects.get(pk=settled.pk).state == "settled"


def test_a_settled_round_is_reversed_only_by_the_reversal_of_its_settlement(settled, as_role):
    other = Entry.objects.exclude(pk=settled.entry_id).order_by("pk").first()
    assert other is not None

    # another entry than the reversal of its settlement
    with refused("is reversed by the reversal of its settlement"):
        sql("UPDATE rounds_round SET state = 'reversed', reversal_entry_id = %s,"
            " closed_reason = 'wrong' WHERE id = %s", [other.pk, settled.pk])
    # no entry at all, while the settlement moved money
    with refused("is reversed by the reversal of its settlement"):
        sql("UPDATE rounds_round SET state = 'reversed', closed_reason = 'wrong'"
            " WHERE id = %s", [settled.pk])
    # no reason, or a figure changed with it
    with refused("never changes, but for its reversal"):
        sql("UPDATE rounds_round SET state = 'reversed', closed_reason = ' '"
            " WHERE id = %s", [settled.pk])
    with refused("never changes, but for its reversal"):
        sql("UPDATE rounds_round SET state = 'reversed', closed_reason = 'wrong',"
            " settled_at = settled_at - interval '1 hour' WHERE id = %s", [settled.pk])


@pytest.mark.parametrize("change", ["state = 'settled', reversal_entry_id = NULL",
                                    "closed_reason = 'edited'", "house_stake = 1"])
def test_a_reversed_round_never_changes(settled, pit_boss_client, runtime_role, as_role,
                                        change):
    sql("RESET ROLE")
    assert pit_boss_client.post(f"/api/v1/rounds/{settled.pk}/reverse", {"reason": "wrong"},
                                format="json").status_code == 200
    if as_role == "runtime":
        sql(f"SET LOCAL ROLE {runtime_role}")

    with refused("round .* is reversed and never changes"):
        sql(f"UPDATE rounds_round SET {change} WHERE id = %s", [settled.pk])


@pytest.mark.parametrize("change", ["state = 'betting', closed_reason = ''",
                                    "closed_reason = 'edited'"])
def test_a_voided_round_is_final(dealer, pit_boss_client, table, seat_player, runtime_role,
                                 as_role, change):
    sql("RESET ROLE")
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "10.00")
    assert pit_boss_client.post(f"/api/v1/rounds/{round_id}/void", {"reason": "misdeal"},
                                format="json").status_code == 200
    if as_role == "runtime":
        sql(f"SET LOCAL ROLE {runtime_role}")

    with refused("round .* is voided and never changes"):
        sql(f"UPDATE rounds_round SET {change} WHERE id = %s", [round_id])


def test_no_finished_round_is_deleted(settled, as_role):
    match = "permission denied" if as_role == "runtime" else "round .* is settled and part of"
    with refused(match):
        sql("DELETE FROM rounds_round WHERE id = %s", [settled.pk])


def test_a_round_in_play_still_changes_as_its_steps_change_it(dealer, table, seat_player,
                                                               runtime_role, as_role):
    sql("RESET ROLE")
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    if as_role == "runtime":
        sql(f"SET LOCAL ROLE {runtime_role}")

    sql("UPDATE rounds_round SET house_stake = 0 WHERE id = %s", [round_id])

    assert Round.objects.get(pk=round_id).state == "betting"


# --- a settled hand --------------------------------------------------------------------------

@pytest.fixture
def dealt_and_settled(dealer, table, seat_player) -> Round:
    """A house-banked round dealt by the service, its hands set by the house way, settled."""
    seat_player(table, 1, funds=10_000)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "50.00")
    dealer.banker(round_id, house=True)
    dealer.deal(round_id)
    dealer.hand(round_id, position="1", house_way=True)
    dealer.settle(round_id)
    return Round.objects.get(pk=round_id)


@pytest.mark.parametrize(("position", "change"), [
    ("1", "outcome = CASE outcome WHEN 'loss' THEN 'win' ELSE 'loss' END"),
    ("1", "cards = 'AS KS QS JS TS 9S 8S'"), ("1", "high_result = 'edited'"),
    ("1", "high = low"),
    # the bank's hand: no outcome of its own, its cards and setting all the same
    ("dealer", "set_by = 'player'"), ("dealer", "low = 'AS KS'"),
])
@pytest.mark.parametrize("as_role", ROLES)
def test_a_settled_rounds_hand_never_changes(dealt_and_settled, runtime_role, as_role,
                                             position, change):
    hand = Hand.objects.get(round=dealt_and_settled, position=position)
    if as_role == "runtime":
        sql(f"SET LOCAL ROLE {runtime_role}")

    with refused(f"round {dealt_and_settled.pk} is finished and its hands are part of"):
        sql(f"UPDATE rounds_hand SET {change} WHERE id = %s", [hand.pk])
    match = "permission denied" if as_role == "runtime" else "is finished and its hands"
    with refused(match):
        sql("DELETE FROM rounds_hand WHERE id = %s", [hand.pk])


@pytest.mark.parametrize("as_role", ROLES)
def test_no_hand_is_added_to_a_finished_round(dealt_and_settled, runtime_role, as_role):
    if as_role == "runtime":
        sql(f"SET LOCAL ROLE {runtime_role}")

    with refused(f"round {dealt_and_settled.pk} is finished and its hands are part of"):
        sql("INSERT INTO rounds_hand (round_id, position, cards, high, low, set_by,"
            " high_result, low_result, outcome) VALUES (%s, '6', '', '', '', '', '', '', '')",
            [dealt_and_settled.pk])


# --- a drop count ----------------------------------------------------------------------------

@pytest.fixture
def counter():
    counter, _ = staff_create(username="carl", role=roles.COUNT)
    return counter


@pytest.fixture
def wendy():
    wendy, _ = staff_create(username="wendy", role=roles.COUNT)
    return wendy


def _counted(table, counter, wendy) -> DropCount:
    """Today's count of the table's box: 5.00 found where nothing was recorded, confirmed by
    its witness, unexplained."""
    waiting = drop_count_record(table_id=table.pk, gaming_day=gaming_day_of(), counted=500,
                                witness="wendy", by=counter)
    return drop_count_confirm(count_id=waiting.pk, by=wendy)


@pytest.fixture
def short_count(table, counter, wendy) -> DropCount:
    return _counted(table, counter, wendy)


@pytest.fixture
def waiting_count(table, counter, wendy) -> DropCount:
    """Today's count of 5.00, awaiting its witness."""
    return drop_count_record(table_id=table.pk, gaming_day=gaming_day_of(), counted=500,
                             witness="wendy", by=counter)


@pytest.mark.parametrize("change", [
    "counted = counted + 100, variance = variance + 100",
    "recorded = 100, variance = counted - 100",
    "witness_id = counted_by_id",
    "entry_id = NULL",
    "gaming_day = gaming_day - 1",
    "status = 'balanced', variance = 0, counted = recorded",
])
def test_a_drop_counts_figures_and_people_never_change(short_count, as_role, change):
    # the runtime role may not even name the columns no change of status sets; the guard
    # refuses the rest, and refuses the owner
    named = not any(column in change for column in ("counted =", "witness_id",
                                                    "gaming_day"))
    with refused("changes only by its witness's confirmation or refusal, by explaining"
                 if as_role == "owner" or named else "permission denied"):
        sql(f"UPDATE rounds_dropcount SET {change} WHERE id = %s",
            [short_count.pk])
    match = "permission denied" if as_role == "runtime" else "is part of the record"
    with refused(match):
        sql("DELETE FROM rounds_dropcount WHERE id = %s", [short_count.pk])


def test_a_variance_is_explained_once_and_only_with_its_reason_who_and_when(
        short_count, counter, wendy, as_role):
    # explaining it and changing something else with it
    with refused("changes only by its witness's confirmation|permission denied"):
        sql("UPDATE rounds_dropcount SET status = 'explained', reason = 'a tip',"
            " explained_by_id = %s, explained_at = now(), counted = 0, variance = -recorded"
            " WHERE id = %s", [wendy.pk, short_count.pk])
    # explained by its own counter: one person closing their own exception
    with refused("changes only by its witness's confirmation"):
        sql("UPDATE rounds_dropcount SET status = 'explained', reason = 'a tip',"
            " explained_by_id = %s, explained_at = now() WHERE id = %s",
            [counter.pk, short_count.pk])

    # the transition the service makes, around the ORM
    sql("UPDATE rounds_dropcount SET status = 'explained', reason = 'a tip left in the box',"
        " explained_by_id = %s, explained_at = now() WHERE id = %s",
        [wendy.pk, short_count.pk])

    # and once explained, its reason stays, and it is not unexplained again
    with refused("changes only by its witness's confirmation"):
        sql("UPDATE rounds_dropcount SET reason = 'another story' WHERE id = %s",
            [short_count.pk])
    with refused("changes only by its witness's confirmation"):
        sql("UPDATE rounds_dropcount SET status = 'unexplained', reason = '',"
            " explained_by_id = NULL, explained_at = NULL WHERE id = %s", [short_count.pk])


def test_a_count_is_marked_corrected_only_with_the_count_that_corrects_it(short_count,
                                                                         as_role):
    # marked corrected alone: its variance would leave the exceptions with nothing instead
    with refused(f"drop count {short_count.pk} is marked corrected without a count that"):
        sql("UPDATE rounds_dropcount SET status = 'corrected' WHERE id = %s", [short_count.pk])
    assert DropCount.objects.get(pk=short_count.pk).status == "unexplained"


def test_a_corrected_count_never_changes(table, counter, wendy, runtime_role, as_role):
    sql("RESET ROLE")
    boss, _ = staff_create(username="petra", role=roles.PIT_BOSS)
    first = _counted(table, counter, wendy)
    drop_count_correct(count_id=first.pk, counted=0, witness="wendy", reason="miscounted",
                       by=boss)
    if as_role == "runtime":
        sql(f"SET LOCAL ROLE {runtime_role}")

    for change in ("status = 'unexplained'", "reason = 'x'"):
        with refused("changes only by its witness's confirmation or refusal, by explaining"):
            sql(f"UPDATE rounds_dropcount SET {change} WHERE id = %s",
                [first.pk])


# --- the service's own transitions still run, as the runtime role ----------------------------

def test_the_services_explain_and_correct_counts_as_the_runtime_role(as_runtime_role, table,
                                                                     counter, wendy):
    boss, _ = staff_create(username="petra", role=roles.PIT_BOSS)
    first = _counted(table, counter, wendy)

    explained = drop_count_explain(count_id=first.pk, reason="a tip left in the box",
                                   by=wendy)
    second = drop_count_correct(count_id=first.pk, counted=0, witness="wendy",
                                reason="miscounted: the tip was a chip", by=boss)
    sql("SET CONSTRAINTS ALL IMMEDIATE")  # the correction's deferred check, as at COMMIT
    second = drop_count_confirm(count_id=second.pk, by=wendy)

    assert explained.status == "explained" and explained.explained_at is not None
    assert explained.explained_at <= timezone.now()
    assert DropCount.objects.get(pk=first.pk).status == "corrected"
    assert (second.corrects_id, second.status) == (first.pk, "balanced")


def test_a_count_awaiting_its_witness_is_confirmed_or_refused_and_nothing_else(
        waiting_count, counter, as_role):
    # its figures, its people, its entries do not change while it waits
    for change in ("counted = 400", "witness_id = counted_by_id", "note = 'later'",
                   "status = 'balanced'", "status = 'corrected'",
                   "status = 'refused', reason = ''",
                   "status = 'refused', reason = 'no', counted = 1"):
        with refused("changes only by its witness's confirmation|permission denied|"
                     "drop_count_posted_when_witnessed|drop_count_status_follows_variance"):
            sql(f"UPDATE rounds_dropcount SET {change}, witnessed_at = now() WHERE id = %s",
                [waiting_count.pk])
    # the witness's refusal, around the ORM: why and when, nothing else
    sql("UPDATE rounds_dropcount SET status = 'refused', reason = 'not seen',"
        " witnessed_at = now() WHERE id = %s", [waiting_count.pk])
    # and refused, it stays so
    for change in ("status = 'awaiting_witness', reason = '', witnessed_at = NULL",
                   "reason = 'another story'"):
        with refused("changes only by its witness's confirmation"):
            sql(f"UPDATE rounds_dropcount SET {change} WHERE id = %s", [waiting_count.pk])
    assert DropCount.objects.get(pk=waiting_count.pk).status == "refused"


def test_the_services_settle_and_reverse_rounds_as_the_runtime_role(
        as_runtime_role, dealer, pit_boss_client, table, seat_player):
    seat_player(table, 1, funds=10_000)
    body = dealer.house_round(table, {1: "50.00"}, {"1": "win"})
    reversed_ = pit_boss_client.post(f"/api/v1/rounds/{body['id']}/reverse",
                                     {"reason": "wrong outcome"}, format="json")

    assert reversed_.status_code == 200, reversed_.json()
    round_ = Round.objects.get(pk=body["id"])
    assert round_.state == "reversed"
    assert round_.reversal_entry_id is not None
    assert Entry.objects.get(pk=round_.reversal_entry_id).reverses_id == round_.entry_id
    # a second reversal of a reversed round answers with it and changes nothing
    again = pit_boss_client.post(f"/api/v1/rounds/{body['id']}/reverse",
                                 {"reason": "wrong outcome"}, format="json")
    assert again.status_code == 200


# --- a settled round's parties -------------------------------------------------------------

@pytest.mark.parametrize("change", ["won = won + 100", "commission = 0", "role = 'house'"])
def test_a_settled_rounds_parties_never_change(settled, as_role, change):
    party = RoundParty.objects.filter(round=settled, role="seat").first()
    assert party is not None

    # the runtime role may only append (casino.shared.db_roles); the owner meets the trigger
    denied = "permission denied" if as_role == "runtime" else None
    with refused(denied or "a settled round's figures never change: UPDATE refused"):
        sql(f"UPDATE rounds_roundparty SET {change} WHERE id = %s", [party.pk])
    with refused(denied or "a settled round's figures never change: DELETE refused"):
        sql("DELETE FROM rounds_roundparty WHERE id = %s", [party.pk])


def test_no_party_is_added_to_a_finished_round(settled, as_role):
    with refused(f"a party added to finished round {settled.pk} refused"):
        sql("INSERT INTO rounds_roundparty (round_id, role, position, player_id, account_id,"
            " wager, covered, covered_by_player_dealer, won, paid, commission, fee)"
            " VALUES (%s, 'house', 'dealer', NULL, NULL, 0, 0, 0, 10000, 0, 0, 0)",
            [settled.pk])

    assert RoundParty.objects.filter(round=settled, role="house").count() == 1
