"""Idempotency-Key on every API POST: one effect, however many times a request is sent."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone
from rest_framework.test import APIClient

from casino import roles
from casino.services import staff_create
from casino.shared.idempotency import IdempotencyKey, idempotency_keys_purge
from casino.tasks import purge_idempotency_keys
from ledger.models import Entry
from rounds import services
from rounds.models import Wager
from tests.players import IDENTITY_FIELDS, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def player(db):
    return make_player(name="Anna", currency="EUR", by=None)


def deposit(client, player, amount="10.00", key="key-1", **headers):
    return client.post(f"/api/v1/players/{player.pk}/deposits", {"amount": amount},
                       format="json", HTTP_IDEMPOTENCY_KEY=key, **headers)


def test_a_retry_with_the_same_key_and_body_replays_the_first_answer(cage_client, player):
    first = deposit(cage_client, player)
    retry = deposit(cage_client, player)

    assert first.status_code == retry.status_code == 201
    assert retry.json() == first.json()
    assert retry["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert Entry.objects.filter(kind="deposit").count() == 1


def test_one_key_moves_money_once_however_the_path_spells_the_players_id(cage_client,
                                                                         player):
    # given one key and one body, sent to the same operation spelt three ways
    answers = [cage_client.post(f"/api/v1/players/{spelling}/deposits", {"amount": "10.00"},
                                format="json", HTTP_IDEMPOTENCY_KEY="spelt")
               for spelling in (str(player.pk), f"0{player.pk}", f"00{player.pk}")]

    # then the deposit is made once and the other two are its replays
    assert [a.status_code for a in answers] == [201] * 3
    assert [a.get("Idempotent-Replayed") for a in answers] == [None, "true", "true"]
    assert Entry.objects.filter(kind="deposit").count() == 1
    assert list(IdempotencyKey.objects.values_list("path", flat=True)) == [
        f"/api/v1/players/{player.pk}/deposits"]


def test_the_same_body_with_keys_in_another_order_is_the_same_request(cage_client, player):
    url = f"/api/v1/players/{player.pk}/deposits"
    cage_client.post(url, '{"amount": "5.00", "reference": "r"}',
                     content_type="application/json", HTTP_IDEMPOTENCY_KEY="k")
    retry = cage_client.post(url, '{"reference":"r","amount":"5.00"}',
                             content_type="application/json", HTTP_IDEMPOTENCY_KEY="k")
    assert retry["Idempotent-Replayed"] == "true"


def test_the_same_key_with_a_different_body_is_a_422(cage_client, player):
    deposit(cage_client, player, amount="10.00")

    response = deposit(cage_client, player, amount="20.00")

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "idempotency_key_reused"
    assert Entry.objects.filter(kind="deposit").count() == 1


def test_keys_are_scoped_to_the_user_and_the_path(staff_client, player):
    cage_1, cage_2 = staff_client(roles.CAGE), staff_client(roles.CAGE)
    deposit(cage_1, player)
    other_user = deposit(cage_2, player)
    other_path = cage_1.post(f"/api/v1/players/{player.pk}/withdrawals", {"amount": "1.00"},
                             format="json", HTTP_IDEMPOTENCY_KEY="key-1")

    assert other_user.status_code == 201 and "Idempotent-Replayed" not in other_user
    assert other_path.status_code == 201 and "Idempotent-Replayed" not in other_path
    assert Entry.objects.filter(kind="deposit").count() == 2


def test_a_failed_request_keeps_nothing_so_the_key_can_be_retried(cage_client, player):
    refused = cage_client.post(f"/api/v1/players/{player.pk}/withdrawals", {"amount": "5.00"},
                               format="json", HTTP_IDEMPOTENCY_KEY="w-1")
    assert refused.status_code == 409
    assert not IdempotencyKey.objects.exists()

    deposit(cage_client, player, key="d-1")
    retried = cage_client.post(f"/api/v1/players/{player.pk}/withdrawals", {"amount": "5.00"},
                               format="json", HTTP_IDEMPOTENCY_KEY="w-1")
    assert retried.status_code == 201 and "Idempotent-Replayed" not in retried


def test_a_key_longer_than_255_characters_is_a_400(cage_client, player):
    response = deposit(cage_client, player, key="k" * 256)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_idempotency_key"
    assert deposit(cage_client, player, key="k" * 255).status_code == 201


def test_posts_without_a_key_are_not_deduplicated(cage_client, player):
    url = f"/api/v1/players/{player.pk}/deposits"
    cage_client.post(url, {"amount": "1.00"}, format="json")
    cage_client.post(url, {"amount": "1.00"}, format="json")
    assert Entry.objects.filter(kind="deposit").count() == 2


def test_a_replayed_create_keeps_its_status_and_location(cage_client):
    bo = {"name": "Bo", **IDENTITY_FIELDS}
    first = cage_client.post("/api/v1/players", bo, format="json", HTTP_IDEMPOTENCY_KEY="p-1")
    retry = cage_client.post("/api/v1/players", bo, format="json", HTTP_IDEMPOTENCY_KEY="p-1")
    assert retry.status_code == 201 and retry.json()["id"] == first.json()["id"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.xdist_group("celery")
def test_keys_are_kept_a_day_then_purged(cage_client, player, celery_worker):
    deposit(cage_client, player, key="old")
    deposit(cage_client, player, key="new", amount="2.00")
    IdempotencyKey.objects.filter(key="old").update(
        created_at=timezone.now() - timedelta(hours=24, minutes=1))
    IdempotencyKey.objects.filter(key="new").update(
        created_at=timezone.now() - timedelta(hours=23, minutes=59))

    assert purge_idempotency_keys.delay().get(timeout=60) == 1
    assert list(IdempotencyKey.objects.values_list("key", flat=True)) == ["new"]
    with pytest.raises(ValueError):
        idempotency_keys_purge(older_than=timedelta(hours=1))


@pytest.mark.django_db(transaction=True)
def test_eight_simultaneous_retries_make_exactly_one_entry():
    # given a cage user and a player, committed so that every thread sees them
    _, token = staff_create(username="cage-threads", role=roles.CAGE)
    player = make_player(name="Anna", currency="EUR", by=None)
    start = threading.Barrier(8)
    answers: list = []

    def send() -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            start.wait()
            response = deposit(client, player, amount="50.00", key="same-key")
            answers.append((response.status_code, response.json(),
                            response.get("Idempotent-Replayed")))
        finally:
            connections.close_all()

    # when eight threads send the same deposit with the same key at the same moment
    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # then one of them made the deposit and the seven others got its answer replayed
    assert [status for status, _, _ in answers] == [201] * 8
    assert len({body["id"] for _, body, _ in answers}) == 1
    assert sorted(str(replayed) for _, _, replayed in answers) == ["None"] + ["true"] * 7
    assert Entry.objects.filter(kind="deposit").count() == 1


def test_a_deeply_nested_json_body_with_an_idempotency_key_is_refused_not_a_server_error(
    table, pit_boss_client
):
    round_ = services.round_open(table_id=table.pk, by=pit_boss_client.user)
    pit_boss_client.raise_request_exception = False

    response = pit_boss_client.post(f"/api/v1/rounds/{round_.pk}/wagers", "[" * 100_000,
                                    content_type="application/json",
                                    HTTP_IDEMPOTENCY_KEY="deep-1")

    assert response.status_code == 400, response.status_code


def test_an_idempotency_key_on_a_long_but_valid_path_places_the_wager_once(
    table, seat_player, pit_boss_client
):
    # given a wager route written with leading zeros in the round id (Django's <int:> reads it)
    player = seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss_client.user)
    path = "/api/v1/rounds/" + "0" * 600 + f"{round_.pk}/wagers"
    pit_boss_client.raise_request_exception = False

    # when it is posted with an Idempotency-Key
    response = pit_boss_client.post(path, {"seat": 1, "amount": "10"}, format="json",
                                    HTTP_IDEMPOTENCY_KEY="long-path")

    # then it is refused with a 4xx, never a 500
    assert 400 <= response.status_code < 500, response.status_code
    assert Wager.objects.filter(player=player).count() <= 1
