"""Players in the admin: adding one opens their account, as the API does."""

import pytest

from casino.models import Player
from ledger.models import Account

pytestmark = pytest.mark.django_db


def test_a_player_added_in_the_admin_gets_an_account(admin_client):
    response = admin_client.post("/admin/casino/player/add/", {"name": "Dora", "currency": "EUR"})

    assert response.status_code == 302
    player = Player.objects.get(name="Dora")
    assert Account.objects.filter(kind="player", ref=f"player:{player.pk}").exists()
    page = admin_client.get("/admin/casino/player/").content.decode()
    assert "Dora" in page and "0.00 EUR" in page
