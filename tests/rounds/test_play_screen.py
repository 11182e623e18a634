"""The player's game screen, /play/, is a player's own page (casino.shared.guards.player_only):
the signed-out are sent to the players' sign-in page, staff are refused in words, and a
player gets the table's frame, their account shown, and the CSRF token the page's writes
send."""

from __future__ import annotations

from html import unescape

from django.test import Client
from django.urls import reverse

from casino import roles
from casino.player_logins import player_login_give
from casino.services import player_deposit, staff_create
from casino.shared.guards import PLAYERS_ONLY
from tests.players import make_player


def test_the_signed_out_are_sent_to_the_players_sign_in_page(db):
    answer = Client().get("/play/")
    assert answer.status_code == 302
    assert answer["Location"] == f"{reverse('console:play-login')}?next=/play/"


def test_staff_are_refused_in_words(db):
    # given a pit boss, who holds every table permission but plays no games
    pit_boss, _ = staff_create(username="paula", role=roles.PIT_BOSS)
    client = Client()
    client.force_login(pit_boss)

    # then the game screen refuses them, saying whose page it is
    refused = client.get("/play/")
    assert refused.status_code == 403
    assert PLAYERS_ONLY in unescape(refused.content.decode())


def test_a_player_gets_the_table_with_their_account_and_the_csrf_token(db):
    # given Greta, 120.00 EUR on her account and a login of her own
    pit_boss, _ = staff_create(username="pat", role=roles.PIT_BOSS)
    player = make_player(name="Greta", currency="EUR", by=pit_boss)
    player_deposit(player_id=player.pk, amount=12_000, by=pit_boss)
    clerk, _ = staff_create(username="cleo", role=roles.CAGE)
    user = player_login_give(player_id=player.pk, username="greta",
                             password="A long passphrase 7", by=clerk).user
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    # when she opens the game screen
    page = client.get("/play/")

    # then it is the table, her account as it opened, and the token its writes send
    assert page.status_code == 200
    html = page.content.decode()
    assert "120.00 EUR" in html and "Greta" in html
    assert f'data-csrf="{page.context["csrf_token"]}"' in html
    assert "play/play.js" in html and "<script>" not in html
    assert "csrftoken" in page.cookies
