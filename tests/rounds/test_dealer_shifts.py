"""Dealers sign in at tables and are relieved; each round records who dealt it."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from casino.shared.refusals import Refusal
from rounds.models import DealerShift, Round

pytestmark = pytest.mark.django_db


def sign_in(client, table, body=None):
    return client.post(f"/api/v1/tables/{table.pk}/dealer", body or {}, format="json")


def relieve(client, table):
    return client.post(f"/api/v1/tables/{table.pk}/dealer/relieve", format="json")


def test_a_dealer_signs_in_and_the_rounds_they_open_record_them(dealer, table, seat_player):
    seat_player(table, 1, funds=10_000)
    answer = sign_in(dealer.client, table)
    assert answer.status_code == 201, answer.json()
    shift = answer.json()
    assert (shift["dealer"], shift["table"], shift["ended_at"]) == (
        dealer.client.user.username, table.pk, None)

    body = dealer.house_round(table, {1: "10.00"}, {"1": "win"})

    assert body["dealer"] == dealer.client.user.username
    played = Round.objects.get(pk=body["id"])
    assert (played.dealer_id, played.dealer_shift_id) == (dealer.client.user.pk, shift["id"])


def test_a_round_opened_with_nobody_signed_in_records_who_opened_it(dealer, table,
                                                                     pit_boss_client):
    opened = pit_boss_client.post(f"/api/v1/tables/{table.pk}/rounds", format="json").json()

    played = Round.objects.get(pk=opened["id"])
    assert played.dealer_id == pit_boss_client.user.pk
    assert played.dealer_shift_id is None
    assert opened["dealer"] == pit_boss_client.user.username


def test_a_round_opened_by_a_pit_boss_records_the_dealer_signed_in(dealer, table,
                                                                    pit_boss_client):
    sign_in(dealer.client, table)

    opened = pit_boss_client.post(f"/api/v1/tables/{table.pk}/rounds", format="json").json()

    assert opened["dealer"] == dealer.client.user.username
    assert opened["opened_by"] == pit_boss_client.user.username


def test_the_next_dealer_signing_in_relieves_the_one_before(table, staff_client):
    first, second = staff_client("dealer"), staff_client("dealer")
    before = sign_in(first, table).json()

    after = sign_in(second, table)

    assert after.status_code == 201
    ended = DealerShift.objects.get(pk=before["id"])
    assert ended.ended_at == DealerShift.objects.get(pk=after.json()["id"]).started_at
    assert ended.ended_by_id == second.user.pk
    assert list(DealerShift.objects.filter(ended_at__isnull=True)
                .values_list("dealer_id", flat=True)) == [second.user.pk]


def test_a_pit_boss_signs_in_a_dealer_they_name(table, staff_client, pit_boss_client):
    named = staff_client("dealer")

    answer = sign_in(pit_boss_client, table, {"dealer": named.user.username})

    assert answer.status_code == 201, answer.json()
    assert (answer.json()["dealer"], answer.json()["started_by"]) == (
        named.user.username, pit_boss_client.user.username)


def test_a_dealer_cannot_sign_in_someone_else(table, staff_client):
    me, other = staff_client("dealer"), staff_client("dealer")

    answer = sign_in(me, table, {"dealer": other.user.username})

    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "not_your_shift"
    assert not DealerShift.objects.exists()
    assert Refusal.objects.filter(by=me.user, action="dealer_sign_in",
                                  ref=f"table:{table.pk}").exists()


@pytest.mark.parametrize(("name", "why"), [("nobody-here", "no such staff"),
                                           ("cage1", "a cage clerk runs no rounds")])
def test_a_pit_boss_cannot_name_someone_who_does_not_deal(table, staff_client,
                                                          pit_boss_client, name, why):
    staff_client("cage")

    answer = sign_in(pit_boss_client, table, {"dealer": name})

    assert answer.status_code == 400, why
    assert answer.json()["error"]["code"] == "invalid_dealer"
    assert not DealerShift.objects.exists()


def test_a_dealer_deals_at_one_table_at_a_time(make_table, dealer):
    first, second = make_table(), make_table()
    sign_in(dealer.client, first)

    again = sign_in(dealer.client, first)
    elsewhere = sign_in(dealer.client, second)

    assert (again.status_code, again.json()["error"]["code"]) == (409, "already_dealing")
    assert (elsewhere.status_code, elsewhere.json()["error"]["code"]) == (
        409, "dealing_elsewhere")
    assert first.name in elsewhere.json()["error"]["message"]
    assert DealerShift.objects.count() == 1


def test_nobody_signs_in_at_a_closed_table(make_table, dealer):
    closed = make_table(is_open=False)

    answer = sign_in(dealer.client, closed)

    assert (answer.status_code, answer.json()["error"]["code"]) == (409, "table_closed")


def test_a_dealer_relieves_themselves(dealer, table):
    sign_in(dealer.client, table)

    answer = relieve(dealer.client, table)

    assert answer.status_code == 200, answer.json()
    assert answer.json()["ended_by"] == dealer.client.user.username
    assert not DealerShift.objects.filter(ended_at__isnull=True).exists()
    assert (relieve(dealer.client, table).json()["error"]["code"]) == "no_dealer"


def test_only_the_dealer_or_a_pit_boss_relieves_them(table, staff_client, pit_boss_client):
    dealing, other = staff_client("dealer"), staff_client("dealer")
    sign_in(dealing, table)

    refused = relieve(other, table)
    by_pit = relieve(pit_boss_client, table)

    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "not_your_shift")
    assert by_pit.status_code == 200
    assert by_pit.json()["ended_by"] == pit_boss_client.user.username


def test_the_cage_and_the_auditor_sign_nobody_in(table, cage_client, auditor_client):
    for client in (cage_client, auditor_client):
        assert sign_in(client, table, ["not", "an", "object"]).status_code == 403
        assert relieve(client, table).status_code == 403
    assert not DealerShift.objects.exists()


def test_the_shifts_list_filters_by_table_dealer_and_whether_open(make_table, staff_client,
                                                                 auditor_client):
    one, two = make_table(), make_table()
    anna, bert = staff_client("dealer"), staff_client("dealer")
    sign_in(anna, one)
    sign_in(bert, two)
    relieve(bert, two)

    def rows(query: str) -> list[tuple[str, int]]:
        answer = auditor_client.get(f"/api/v1/dealer-shifts{query}")
        assert answer.status_code == 200, answer.json()
        return [(r["dealer"], r["table"]) for r in answer.json()["results"]]

    assert rows("") == [(bert.user.username, two.pk), (anna.user.username, one.pk)]
    assert rows("?open=true") == [(anna.user.username, one.pk)]
    assert rows(f"?table={two.pk}") == [(bert.user.username, two.pk)]
    assert rows(f"?dealer={anna.user.username}") == [(anna.user.username, one.pk)]
    assert rows(f"?gaming_day={timezone.localdate():%Y-%m-%d}&table={one.pk}") == [
        (anna.user.username, one.pk)]
    assert auditor_client.get("/api/v1/dealer-shifts?tabel=1").status_code == 400
    assert auditor_client.get("/api/v1/dealer-shifts?table=999999").status_code == 404


def test_the_cage_does_not_read_the_shifts(cage_client):
    assert cage_client.get("/api/v1/dealer-shifts").status_code == 403


def test_the_database_keeps_one_open_shift_per_table_and_per_dealer(make_table, staff_client):
    one, two = make_table(), make_table()
    anna, bert = staff_client("dealer").user, staff_client("dealer").user
    now = timezone.now()
    open_shift = {"gaming_day": now.date(), "started_at": now}
    DealerShift.objects.create(table=one, dealer=anna, started_by=anna, **open_shift)

    for table, dealer in ((one, bert), (two, anna)):
        with pytest.raises(IntegrityError), transaction.atomic():
            DealerShift.objects.create(table=table, dealer=dealer, started_by=dealer,
                                       **open_shift)


def test_an_ended_shift_never_changes_nor_is_deleted_as_the_runtime_role(
        as_runtime_role, dealer, table):
    shift_id = sign_in(dealer.client, table).json()["id"]
    relieve(dealer.client, table)

    for sql in ("UPDATE rounds_dealershift SET ended_at = started_at WHERE id = %s",
                "UPDATE rounds_dealershift SET started_at = ended_at WHERE id = %s",
                "DELETE FROM rounds_dealershift WHERE id = %s"):
        with pytest.raises(Exception, match=r"refused|permission denied"), \
                transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [shift_id])

    assert DealerShift.objects.get(pk=shift_id).ended_by_id == dealer.client.user.pk


def test_an_open_shift_changes_only_by_its_end_as_the_runtime_role(as_runtime_role, dealer,
                                                                  table, make_table):
    shift_id = sign_in(dealer.client, table).json()["id"]
    other = make_table()

    with pytest.raises(Exception, match="permission denied"), \
            transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE rounds_dealershift SET table_id = %s WHERE id = %s",
                       [other.pk, shift_id])

    assert DealerShift.objects.get(pk=shift_id).table_id == table.pk
