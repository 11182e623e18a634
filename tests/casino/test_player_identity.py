"""Telling players apart (issue 22): the identity the cage records at registration, checked
by the one service whatever the door (API, admin; the cage's screen in
test_cage_screens.py), the database's own constraint, and namesakes named at registration."""

from __future__ import annotations

from datetime import date

import pytest
from django.db import IntegrityError, connection, transaction

from casino.models import Player
from casino.selectors import player_namesakes
from casino.services import Identity, Namesake, player_create, player_identity_check
from casino.shared.errors import ValidationFailed
from ledger.models import Account

pytestmark = pytest.mark.django_db

PASSPORT = {"date_of_birth": "1990-04-12", "id_document_kind": "passport",
            "id_document_number": "nx 123-456"}


def test_the_api_registers_a_player_with_their_identity(cage_client):
    response = cage_client.post("/api/v1/players", {"name": "Anna", "currency": "EUR",
                                                    **PASSPORT, "photo_ref": "cam-2/0412"},
                                format="json")

    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["date_of_birth"], body["id_document_kind"], body["id_document_number"],
            body["photo_ref"]) == ("1990-04-12", "passport", "NX123456", "cam-2/0412")
    assert body["namesakes"] == []
    stored = Player.objects.get(pk=body["id"])
    assert (stored.date_of_birth, stored.id_document_number) == (date(1990, 4, 12), "NX123456")


def test_the_api_registers_a_namesake_and_names_the_others_in_its_answer(cage_client):
    first = player_create(name="Anna", currency="EUR", by=None,
                          identity=Identity(date_of_birth=date(1980, 5, 1),
                                            id_document_kind="id_card",
                                            id_document_number="IDC55555"))

    response = cage_client.post("/api/v1/players", {"name": "ANNA", "currency": "EUR",
                                                    **PASSPORT}, format="json")

    assert response.status_code == 201
    assert response.json()["namesakes"] == [
        {"id": first.pk, "name": "Anna", "date_of_birth": "1980-05-01"}]
    assert Player.objects.filter(name__iexact="anna").count() == 2


@pytest.mark.parametrize("typed, code", [
    ({"date_of_birth": "2999-01-01"}, "invalid_date_of_birth"),
    ({"date_of_birth": "1850-01-01"}, "invalid_date_of_birth"),
    ({"id_document_number": "AB"}, "invalid_id_number"),
    ({"id_document_number": "ÄÖ12345"}, "invalid_id_number"),
    ({"id_document_kind": ""}, "identity_incomplete"),
    ({"date_of_birth": None}, "identity_incomplete"),
    ({"id_document_kind": "library_card"}, "invalid"),
])
def test_the_api_refuses_an_identity_in_the_one_error_shape_and_registers_nobody(
        cage_client, typed, code):
    response = cage_client.post("/api/v1/players", {"name": "Anna", "currency": "EUR",
                                                    **PASSPORT, **typed}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not Player.objects.exists() and not Account.objects.filter(kind="player").exists()


def test_a_minor_is_refused_by_the_service_at_any_door(cage_client, settings):
    settings.CASINO_MIN_PLAYER_AGE = 18
    today = date(2026, 12, 2)
    eighteen_tomorrow = date(2008, 12, 3)

    with pytest.raises(ValidationFailed) as refused:
        player_identity_check(today=today, identity=Identity(
            date_of_birth=eighteen_tomorrow, id_document_kind="passport",
            id_document_number="NX123456"))
    assert refused.value.code == "under_age"
    assert "at least 18 years old" in refused.value.message
    assert player_identity_check(today=today, identity=Identity(
        date_of_birth=date(2008, 12, 2), id_document_kind="passport",
        id_document_number="NX123456")).date_of_birth == date(2008, 12, 2)
    # born on 29 February: of age on 1 March of a year without one
    with pytest.raises(ValidationFailed):
        player_identity_check(today=date(2026, 2, 28), identity=Identity(
            date_of_birth=date(2008, 2, 29), id_document_kind="passport",
            id_document_number="NX123456"))
    # and through the API, with today's date
    born = date.today().replace(year=date.today().year - 10)
    response = cage_client.post("/api/v1/players", {"name": "Kim", "currency": "EUR",
                                                    **PASSPORT,
                                                    "date_of_birth": born.isoformat()},
                                format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "under_age"


def test_the_service_refuses_an_unseen_namesake_and_names_them():
    first = player_create(name="Anna Jansen", currency="EUR", by=None)

    with pytest.raises(Namesake) as refused:
        player_create(name="anna jansen ", currency="EUR", by=None, namesakes_seen=False)

    assert refused.value.status == 409
    assert refused.value.detail == {"players": [{"id": first.pk, "name": "Anna Jansen"}]}
    assert f"Anna Jansen #{first.pk}" in refused.value.message
    assert Player.objects.count() == 1
    player_create(name="anna jansen", currency="EUR", by=None, namesakes_seen=True)
    assert Player.objects.count() == 2


def test_the_database_refuses_half_a_document_or_a_malformed_number():
    player = player_create(name="Anna", currency="EUR", by=None)
    for columns in ("id_document_kind = 'passport'",
                    "id_document_kind = 'passport', id_document_number = 'nx 1'"):
        with pytest.raises(IntegrityError, match="player_id_document_whole"), \
                transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"UPDATE casino_player SET {columns} WHERE id = %s", [player.pk])


def test_the_admin_registers_the_identity_through_the_service(admin_client):
    response = admin_client.post("/admin/casino/player/add/", {
        "name": "Dora", "currency": "EUR", **PASSPORT, "photo_ref": ""})

    assert response.status_code == 302
    dora = Player.objects.get(name="Dora")
    assert dora.id_document_number == "NX123456"
    assert Account.objects.filter(kind="player", ref=f"player:{dora.pk}").exists()


def test_the_admin_refuses_a_minor_in_words_and_warns_of_a_namesake(admin_client):
    born = date.today().replace(year=date.today().year - 5)
    refused = admin_client.post("/admin/casino/player/add/", {
        "name": "Dora", "currency": "EUR", **PASSPORT, "date_of_birth": born.isoformat()})
    assert refused.status_code == 200
    assert "A player must be at least 18 years old" in refused.content.decode()
    assert not Player.objects.filter(name="Dora").exists()

    first = player_create(name="Dora", currency="EUR", by=None)
    added = admin_client.post("/admin/casino/player/add/", {
        "name": "Dora", "currency": "EUR", **PASSPORT}, follow=True)
    assert f"Registered beside players of the same name: Dora #{first.pk}" in (
        added.content.decode())
    assert player_namesakes(name="dora")[-1].id_document_number == "NX123456"
