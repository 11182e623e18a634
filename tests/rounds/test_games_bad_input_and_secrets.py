"""Attacks on the self-service games and the player's /me API: every malformed body
answers a 4xx in the one error shape and changes nothing; nobody sees the seed early."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from casino.models import PlayerLimit
from casino.selectors import player_balance
from ledger.models import Entry
from rounds.models import GameSeed, Round

BAD_DEAL_BODIES = [
    [], ["amount", "5.00"], "5.00",
    {"amount": -5}, {"amount": "-5.00"}, {"amount": 5.5}, {"amount": "5.001"},
    {"amount": "1e400"}, {"amount": "NaN"}, {"amount": "Infinity"}, {"amount": 10**30},
    {"amount": "9" * 5000}, {"amount": True}, {"amount": None}, {"amount": {"x": 1}},
    {"amount": "5.00", "client_seed": "x" * 10_000},
    {"amount": "5.00", "client_seed": "a\x00b"},
    {"amount": "5.00", "client_seed": ["x"]},
    {"amount": "5.00", "client_seed": None},
    {"amount": "5.00", "client_seed": {"a": 1}},
]


def _error_shape(response) -> None:
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    body = response.json()
    assert set(body) == {"error"}, body
    assert {"code", "message"} <= set(body["error"]), body


@pytest.mark.parametrize("body", BAD_DEAL_BODIES, ids=range(len(BAD_DEAL_BODIES)))
def test_a_malformed_deal_is_a_clear_4xx_and_changes_nothing(online, make_gamer, body):
    player, client = make_gamer()
    game = client.post("/api/v1/me/games", {"table": online.pk}, format="json").json()
    before = player_balance(player)
    entries = Entry.objects.count()
    response = client.post(f"/api/v1/me/games/{game['id']}/deal", body, format="json")
    _error_shape(response)
    assert Round.objects.get(pk=game["id"]).state == "betting"
    assert player_balance(player) == before and Entry.objects.count() == entries


BAD_OPEN_BODIES = [[], "x", {"table": "x"}, {"table": -1}, {"table": 10**30},
                   {"table": 2**63}, {"table": 1.5}, {"table": None}, {"table": [1]}]


@pytest.mark.parametrize("body", BAD_OPEN_BODIES, ids=range(len(BAD_OPEN_BODIES)))
def test_a_malformed_open_is_a_clear_4xx(online, make_gamer, body):
    _, client = make_gamer()
    response = client.post("/api/v1/me/games", body, format="json")
    _error_shape(response)
    assert not Round.objects.exists()


def _dealt(online, make_gamer):
    player, client = make_gamer()
    game = client.post("/api/v1/me/games", {"table": online.pk}, format="json").json()
    dealt = client.post(f"/api/v1/me/games/{game['id']}/deal", {"amount": "5.00"},
                        format="json").json()
    return player, client, dealt


def _bad_done_bodies(cards):
    not_mine = next(c for c in ("2S", "3H", "4D", "5C", "6S", "7H", "8D", "9C")
                    if c not in cards)
    return [
        [], "x",
        {"low": cards[:1]}, {"low": cards[:3]}, {"low": [cards[0], cards[0]]},
        {"low": [cards[0], not_mine]},
        {"low": [cards[0], "JK"]} if "JK" not in cards else {"low": [cards[0], "ZZ"]},
        {"low": [cards[0], "XX"]}, {"low": [cards[0], 5]}, {"low": [cards[0], None]},
        {"low": "".join(cards[:2])}, {"low": {"a": 1}},
        {"low": cards[:2], "high": cards[:5]},
        {"low": cards[:2], "high": cards[2:6]},
        {"low": cards[:2], "high": [*cards[2:6], cards[0]]},
        {"low": ["x" * 10_000, cards[1]]}, {"low": ["A\x00", cards[1]]},
        {"house_way": "maybe"}, {"house_way": True, "low": cards[:2]}, {"house_way": [True]},
    ]


def test_a_malformed_setting_is_a_clear_4xx_and_changes_nothing(online, make_gamer):
    player, client, dealt = _dealt(online, make_gamer)
    before = player_balance(player)
    failures = []
    for body in _bad_done_bodies(dealt["cards"]):
        response = client.post(f"/api/v1/me/games/{dealt['id']}/done", body, format="json")
        try:
            _error_shape(response)
        except AssertionError as exc:
            failures.append((body, str(exc)[:300]))
        assert Round.objects.get(pk=dealt["id"]).state == "dealt", body
    assert player_balance(player) == before
    assert not failures, failures


BAD_LIMITS = [[], "x", {"wager_per_day": -1}, {"wager_per_day": "-1.00"},
              {"wager_per_day": 1.5}, {"wager_per_day": "1.001"}, {"wager_per_day": "9" * 5000},
              {"wager_per_day": 10**30}, {"wager_per_day": "NaN"}, {"wager_per_day": [1]},
              {"loss_per_day": {"a": 1}}, {"wager_per_day": "0.00"}]


@pytest.mark.parametrize("body", BAD_LIMITS, ids=range(len(BAD_LIMITS)))
def test_a_malformed_limit_is_a_clear_4xx(make_gamer, body):
    _, client = make_gamer()
    for method in (client.post, client.put, client.patch):
        response = method("/api/v1/me/limits", body, format="json")
        if response.status_code == 405:
            continue
        _error_shape(response)
    assert not PlayerLimit.objects.exists()


BAD_EXCL = [[], "x", {"period": "forever-and-ever"}, {"period": ["1d"]}, {"period": None},
            {"period": "x" * 10_000}, {"period": "a\x00"}]


@pytest.mark.parametrize("body", BAD_EXCL, ids=range(len(BAD_EXCL)))
def test_a_malformed_exclusion_is_a_clear_4xx(make_gamer, body):
    _, client = make_gamer()
    response = client.post("/api/v1/me/exclusions", body, format="json")
    _error_shape(response)


BAD_STATEMENT = ["?date_from=x", "?date_from=99999-01-01", "?date_to=2020-13-45",
                 "?date_from=2030-01-01&date_to=2020-01-01", "?date_from=%00",
                 "?date_from=" + "9" * 5000, "?date_from=0001-01-01", "?date_to=9999-12-31"]


@pytest.mark.parametrize("query", BAD_STATEMENT, ids=range(len(BAD_STATEMENT)))
def test_a_malformed_statement_query_is_a_clear_4xx(make_gamer, query):
    _, client = make_gamer()
    response = client.get("/api/v1/me/statement" + query)
    if query in ("?date_from=0001-01-01", "?date_to=9999-12-31"):
        assert response.status_code < 500, response.content[:300]
        return
    _error_shape(response)


BAD_LOGIN = [[], "x", {"username": ["a"], "password": "b"}, {"username": "a\x00", "password": "b"},
             {"username": "x" * 100_000, "password": "y"}, {"username": None, "password": None},
             {"username": 5, "password": 5}, {"username": "a", "password": "b" * 100_000}]


@pytest.mark.django_db
@pytest.mark.parametrize("body", BAD_LOGIN, ids=range(len(BAD_LOGIN)))
def test_a_malformed_login_is_a_clear_4xx(body):
    response = APIClient().post("/api/v1/auth/token", body, format="json")
    _error_shape(response)


def test_a_game_id_past_bigint_is_not_found(online, make_gamer):
    _, client = make_gamer()
    big = "99999999999999999999"
    _error_shape(client.get(f"/api/v1/me/games/{big}"))
    _error_shape(client.post(f"/api/v1/me/games/{big}/deal", {"amount": "5.00"}, format="json"))
    _error_shape(client.post(f"/api/v1/me/games/{big}/done", {"house_way": True},
                             format="json"))


def test_the_seed_is_nowhere_in_the_staff_pages_while_dealt(online, make_gamer, pit_boss):
    from django.test import Client
    _, _, dealt = _dealt(online, make_gamer)
    secret = bytes(GameSeed.objects.get(round_id=dealt["id"]).server_seed).hex()
    web = Client()
    pit_boss.is_staff = True
    pit_boss.is_superuser = True
    pit_boss.save()
    web.force_login(pit_boss)
    leaks = []
    for url in (f"/rounds/{dealt['id']}/", f"/tables/{online.pk}/",
                f"/admin/rounds/round/{dealt['id']}/change/", "/admin/rounds/round/",
                ):
        answer = web.get(url, follow=True)
        assert answer.status_code in (200, 404), (url, answer.status_code)
        if secret in answer.content.decode(errors="replace"):
            leaks.append(url)
    assert not leaks


def test_the_dealers_face_down_hand_of_a_dealt_game_is_shown_to_no_staff(online, make_gamer,
                                                                          pit_boss,
                                                                          auditor_client):
    from django.test import Client

    from rounds.models import Hand
    _, _, dealt = _dealt(online, make_gamer)
    dealer_cards = Hand.objects.get(round_id=dealt["id"], position="dealer").cards.split()
    web = Client()
    web.force_login(pit_boss)
    shown = {}
    for name, answer in (("api", auditor_client.get(f"/api/v1/rounds/{dealt['id']}")),
                         ("console", web.get(f"/rounds/{dealt['id']}/"))):
        assert answer.status_code == 200, (name, answer.status_code)
        text = answer.content.decode(errors="replace")
        shown[name] = (all(card in text for card in dealt["cards"]),
                       all(card in text for card in dealer_cards))
    # the player's seven as a sanity check of the cards' spelling; the dealer's never
    assert shown == {"api": (True, False), "console": (True, False)}, (dealer_cards, shown)


def test_a_game_dealt_just_now_is_not_taken_from_its_player_as_abandoned(online, make_gamer,
                                                                        settings):
    from datetime import timedelta

    from django.utils import timezone

    from rounds.services import games
    # given a game opened long ago (the player looked at the felt) and dealt just now
    _, client = make_gamer()
    game = client.post("/api/v1/me/games", {"table": online.pk}, format="json").json()
    Round.objects.filter(pk=game["id"]).update(
        opened_at=timezone.now() - timedelta(minutes=settings.SELF_SERVICE_FINISH_AFTER_MINUTES
                                             + 1))
    dealt = client.post(f"/api/v1/me/games/{game['id']}/deal", {"amount": "5.00"},
                        format="json")
    assert dealt.status_code == 200, dealt.content
    # then the task finishing abandoned games leaves it to her to set
    assert game["id"] not in games.games_abandoned()


def test_a_dealt_game_voided_by_a_pit_boss_leaves_nothing_held(online, make_gamer, pit_boss):
    from rounds import services
    player, client, dealt = _dealt(online, make_gamer)
    assert player_balance(player).held == 500
    services.round_void(round_id=dealt["id"], reason="the screen froze", by=pit_boss)
    assert player_balance(player).held == 0
    shown = client.get(f"/api/v1/me/games/{dealt['id']}").json()
    assert shown["state"] == "voided" and shown["fairness"]["server_seed"]
    again = client.post("/api/v1/me/games", {"table": online.pk}, format="json")
    assert again.status_code == 201, again.content


def test_a_player_who_excludes_themselves_mid_game_can_still_finish_it(online, make_gamer):
    from casino import exclusions
    player, client, dealt = _dealt(online, make_gamer)
    period = next(iter(exclusions.SELF_PERIODS))
    excluded = client.post("/api/v1/me/exclusions", {"period": period}, format="json")
    assert excluded.status_code in (200, 201), excluded.content
    done = client.post(f"/api/v1/me/games/{dealt['id']}/done", {"house_way": True},
                       format="json")
    assert done.status_code == 200, done.content
    assert player_balance(player).held == 0
