"""The console's step views: bad input is a message or a 4xx, never a 5xx, and changes
nothing; each step is guarded by the permission the API uses for it."""

from __future__ import annotations

import pytest
from django.test import Client

from casino import roles
from casino.services import staff_create
from ledger.models import Entry, Hold
from rounds import services
from rounds.models import Round, RoundEvent

pytestmark = pytest.mark.django_db

GARBAGE = [{}, {"seat": "x", "amount": "1e3"}, {"seat": "9", "amount": "-5"},
           {"amount": "NaN", "seat": "1"}, {"house_stake": "abc", "seat": "0"},
           {"low": ["ZZ", "AS"], "house_way": "maybe"}, {"hand_1": "AS AS AS", "pick": "??",
                                                         "choose": "7", "unpick": "<b>"},
           {"number": "0", "player": "-1"}, {"reason": ""}, {"min_bet": "-1", "max_bet": "x"}]


def _client(role: str, name: str) -> Client:
    user, _ = staff_create(username=name, role=role)
    client = Client()
    client.force_login(user)
    return client


def _urls(table_id: int, round_id: int) -> list[str]:
    r = f"/rounds/{round_id}"
    return [f"/tables/{table_id}/rounds/open/", f"{r}/wagers/", f"{r}/wagers/clear/",
            f"{r}/wagers/rebet/", f"{r}/wagers/1/clear/", f"{r}/wagers/9/rebet/",
            f"{r}/banker/", f"{r}/banker/decline/", f"{r}/deal/", f"{r}/deal/draft/pick/",
            f"{r}/deal/draft/undo/", f"{r}/deal/draft/clear/", f"{r}/deal/physical/",
            f"{r}/hands/1/", f"{r}/hands/nowhere/", f"{r}/settle/", f"{r}/void/",
            f"{r}/reverse/", f"/tables/{table_id}/seats/", f"/tables/{table_id}/seats/9/leave/",
            f"/tables/{table_id}/settings/"]


@pytest.mark.slow  # seconds of fuzzing, sampling or waiting: make test runs it
def test_garbage_posted_to_every_step_is_never_a_server_error(pit_boss, table, seat_player):
    seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    client = _client(roles.PIT_BOSS, "petra")
    events = RoundEvent.objects.order_by("-id").values_list("id", flat=True).first()
    for url in _urls(table.pk, round_.pk):
        for i, body in enumerate(GARBAGE):
            # every other one as htmx sends it, answered with the screen's partial
            headers = {"HX-Request": "true"} if i % 2 else {}
            response = client.post(url, body, headers=headers)
            assert response.status_code < 500, (url, body, response.status_code)
    # garbage can take only the steps that need no input (Clear), and moves no money
    round_.refresh_from_db()
    assert round_.state == Round.State.BETTING  # never voided: a void needs a reason
    assert not Entry.objects.filter(ref=f"round:{round_.pk}").exists()
    assert set(RoundEvent.objects.filter(id__gt=events).values_list("kind", flat=True)) <= {
        "wager_cleared"}


def test_a_missing_round_or_table_is_a_404_page(pit_boss):
    client = _client(roles.PIT_BOSS, "petra")
    for url in ("/tables/999/", *_urls(999, 999)):
        response = client.post(url, {"reason": "x"}) if "/rounds/" in url or url.endswith(
            ("/open/", "/seats/", "/leave/")) else client.get(url)
        assert response.status_code == 404, url
        assert b"Page not found" in response.content


def test_a_dealer_cannot_post_the_pit_bosses_steps(pit_boss, table, seat_player):
    seat_player(table, 1)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    client = _client(roles.DEALER, "dana")
    for url, body in ((f"/rounds/{round_.pk}/void/", {"reason": "x"}),
                      (f"/tables/{table.pk}/seats/1/leave/", {}),
                      (f"/tables/{table.pk}/seats/", {"number": 2, "player": 1}),
                      (f"/tables/{table.pk}/settings/", {"name": "x"})):
        response = client.post(url, body)
        assert response.status_code == 403, url
        assert b"Not allowed" in response.content
    round_.refresh_from_db()
    assert round_.state == Round.State.BETTING
    assert Hold.objects.filter(ref=f"round:{round_.pk}", status="open").count() == 1


def test_the_cage_and_people_not_signed_in_cannot_run_a_round(pit_boss, table):
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    response = Client().post(f"/rounds/{round_.pk}/settle/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    cage = _client(roles.CAGE, "carl")
    assert cage.post(f"/rounds/{round_.pk}/wagers/", {"seat": 1, "amount": "5"}
                     ).status_code == 403
    assert cage.get(f"/tables/{table.pk}/").status_code == 403
    # the floor sends the cage to its own screen (issue 22)
    page = cage.get("/")
    assert page.status_code == 302 and page["Location"] == "/cage/"


def test_the_demo_floor_opens_on_the_console(settings):
    # what `make run` shows a dealer who signs in: the demo table with its seated players
    from django.core.management import call_command

    settings.DEBUG = True
    call_command("seed_demo")
    client = Client()
    # signed in through the console's own login page, as a dealer does
    signed_in = client.post("/login/", {"username": "dealer", "password": "dealer-demo-2026"})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/"
    page = client.get("/").content.decode()
    assert "Demo table 1" in page
    for name in ("Anna", "Bram", "Chris"):
        assert name in page


# --- found by review: protection, least privilege, odd input ----------------------------------

DEALT = {
    "dealer": "5S 5H TD 4C 2S KD QC",
    "1": "AH TS 9C 6D 3H KS QH",
    "2": "KC JC 8C 6C 3C AS 2D",
}


def test_the_bankers_hand_cannot_be_set_or_named_before_every_players_hand(
    pit_boss, make_table, seat_player
):
    # given a dealt round, Bram at seat 2 banking against Anna's wager at seat 1
    table = make_table(banker_must_have_played=False, bank_rotation="open")
    seat_player(table, 1, name="Anna")
    seat_player(table, 2, name="Bram")
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, seat=2, house_stake=0, by=pit_boss)
    services.round_deal(round_id=round_.pk, hands={p: DEALT[p] for p in ("1", "2")},
                        by=pit_boss)
    client = _client(roles.DEALER, "dana")

    # when the dealer posts the banker's split with cards not in it, or its House Way
    for body in ({"low": ["AH", "KS"]}, {"house_way": "on"}):
        response = client.post(f"/rounds/{round_.pk}/hands/2/", body, follow=True)

        # then it is refused in words that name none of the banker's cards
        html = response.content.decode()
        assert "Set every player" in html
        assert 'data-card="KC"' not in html and "K♣" not in html
    assert not round_.hands.get(position="2").set_by


def _refusals(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_hand_form_answers_one_way_whatever_cards_are_picked(pit_boss, make_table,
                                                                 seat_player):
    # given a dealt round, Bram at seat 2 banking against Anna's wager at seat 1, no hand set
    table = make_table(banker_must_have_played=False, bank_rotation="open")
    seat_player(table, 1, name="Anna")
    seat_player(table, 2, name="Bram")
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, seat=2, house_stake=0, by=pit_boss)
    services.round_deal(round_id=round_.pk, hands={p: DEALT[p] for p in ("1", "2")},
                        by=pit_boss)
    client = _client(roles.DEALER, "dana")

    for position, hidden in (("2", DEALT["2"].split()), ("dealer", DEALT["dealer"].split())):
        # when the dealer posts two cards of the hidden hand, then two that are not in it
        inside = client.post(f"/rounds/{round_.pk}/hands/{position}/",
                             {"low": hidden[:2]}, follow=True)
        outside = client.post(f"/rounds/{round_.pk}/hands/{position}/",
                              {"low": ["AH", "KS"] if "AH" not in hidden else ["JD", "JH"]},
                              follow=True)

        # then both are refused with the same words: the answer tells no hidden card
        assert _refusals(inside) == _refusals(outside) != []
    assert not round_.hands.exclude(position="dealer").filter(set_by__gt="").exists()


def test_a_dealer_sees_no_balances_at_a_table_they_do_not_run(pit_boss, table, seat_player):
    seat_player(table, 1, name="Anna", funds=123_456)
    dealer = _client(roles.DEALER, "dana")
    boss = _client(roles.PIT_BOSS, "petra")

    assert "1,234.56 EUR" not in dealer.get(f"/tables/{table.pk}/").content.decode()
    assert "1,234.56 EUR" in boss.get(f"/tables/{table.pk}/").content.decode()
    # once the dealer runs the table (opens its round), its players' funds show
    dealer.post(f"/tables/{table.pk}/rounds/open/")
    assert "1,234.56 EUR" in dealer.get(f"/tables/{table.pk}/").content.decode()


def test_a_huge_exponent_in_the_table_limits_is_refused_in_words(pit_boss, table):
    client = _client(roles.PIT_BOSS, "petra")

    response = client.post(f"/tables/{table.pk}/settings/", {"max_bet": "1e999999999"})

    assert response.status_code < 500
    table.refresh_from_db()
    assert table.max_bet == 10_000
