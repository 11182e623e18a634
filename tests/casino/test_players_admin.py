"""Players in the admin: adding one opens their account, as the API does."""

import pytest
from django.contrib.auth.models import Group

from casino.models import Player
from ledger.models import Account
from tests.players import make_player

pytestmark = pytest.mark.django_db


def test_a_player_added_in_the_admin_gets_an_account(admin_client):
    response = admin_client.post("/admin/casino/player/add/", {"name": "Dora", "currency": "EUR"})

    assert response.status_code == 302
    player = Player.objects.get(name="Dora")
    assert Account.objects.filter(kind="player", ref=f"player:{player.pk}").exists()
    page = admin_client.get("/admin/casino/player/").content.decode()
    assert "Dora" in page and "0.00 EUR" in page


def test_the_admin_offers_no_deletion_the_services_database_role_would_refuse(admin_client,
                                                                              django_user_model):
    # Players, staff and the roles' groups are kept: the runtime role has no DELETE on them
    # and no write on groups (casino/shared/db_roles.py), so the admin must not offer it (no 500).
    admin_client.post("/admin/casino/player/add/", {"name": "Dora", "currency": "EUR"})
    player = Player.objects.get(name="Dora")
    staff = django_user_model.objects.create_user("someone")
    group = Group.objects.get(name="dealer")

    assert admin_client.get(f"/admin/casino/player/{player.pk}/delete/").status_code == 403
    assert admin_client.get(f"/admin/auth/user/{staff.pk}/delete/").status_code == 403
    assert admin_client.get(f"/admin/auth/group/{group.pk}/delete/").status_code == 403
    assert admin_client.post(f"/admin/auth/group/{group.pk}/change/",
                             {"name": "renamed"}).status_code == 403
    assert Group.objects.filter(pk=group.pk, name=group.name).exists()


def test_a_rename_in_the_admin_goes_through_the_service_and_the_account_follows(admin_client):
    admin_client.post("/admin/casino/player/add/", {"name": "Dora", "currency": "EUR"})
    player = Player.objects.get(name="Dora")

    response = admin_client.post(f"/admin/casino/player/{player.pk}/change/",
                                 {"name": "  Dorothea  "})

    assert response.status_code == 302
    player.refresh_from_db()
    assert player.name == "Dorothea"  # trimmed, as the service registers names
    account = Account.objects.get(kind="player", ref=f"player:{player.pk}")
    assert account.name == "Dorothea"


def test_a_blank_name_is_refused_by_the_service():
    from casino.services import player_rename
    from casino.shared.errors import ValidationFailed

    player = make_player(name="Dora", currency="EUR", by=None)

    with pytest.raises(ValidationFailed):
        player_rename(player_id=player.pk, name="   ", by=None)
    player.refresh_from_db()
    assert player.name == "Dora"


def test_a_players_page_shows_the_balance_in_the_currency_never_minor_units(admin_client):
    import re

    from casino.services import player_deposit

    admin_client.post("/admin/casino/player/add/", {"name": "Dora", "currency": "EUR"})
    player = Player.objects.get(name="Dora")
    player_deposit(player_id=player.pk, amount=16050, by=None)

    page = admin_client.get(f"/admin/casino/player/{player.pk}/change/").content.decode()
    listing = admin_client.get("/admin/casino/player/").content.decode()

    assert "available 160.50 EUR" in page and "160.50 EUR" in listing
    assert not re.search(r"\b16050\b", page + listing)


def test_a_proposition_player_registers_in_the_admin_only_with_its_licence(admin_client):
    refused = admin_client.post("/admin/casino/player/add/",
                                {"name": "Prop Co", "currency": "EUR", "kind": "proposition"})
    assert refused.status_code == 200
    assert "registered with its state licence" in refused.content.decode()
    assert not Player.objects.filter(name="Prop Co").exists()

    response = admin_client.post("/admin/casino/player/add/", {
        "name": "Prop Co", "currency": "EUR", "kind": "proposition", "licence": "TP-77"})

    assert response.status_code == 302
    player = Player.objects.get(name="Prop Co")
    assert (player.kind, player.licence) == ("proposition", "TP-77")
