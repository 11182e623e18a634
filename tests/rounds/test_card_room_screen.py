"""The card room at the console (docs/rules.md §14): the bank offered in rotation, the
proposition player alone once every seat declined, refusals in words, the cage's
registration of a proposition player and the table settings."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any
from unittest.mock import patch

import pytest
from django.test import Client
from django.utils import timezone

from casino import roles
from casino.models import Player
from casino.services import player_create, player_deposit, staff_create
from rounds import services
from rounds.models import Round, Table
from rounds.paigow.rotation import bank_offer
from rounds.selectors import round_bank_table

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def console() -> Client:
    user, _ = staff_create(username="dana", role=roles.DEALER)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def card_table(make_table) -> Table:
    return make_table(bank_mode="card_room", commission_rate="0", collection_player=50,
                      deal_modes=["electronic", "physical", "results"])


@pytest.fixture
def prop(pit_boss) -> Player:
    player = player_create(name="Golden Prop LLC", currency="EUR", by=pit_boss,
                           kind=Player.Kind.PROPOSITION, licence="GEGP-001234")
    player_deposit(player_id=player.pk, amount=500_000, by=pit_boss)
    return player


def _text(page: Any) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.content.decode())))


def _played(round_: Round, pit_boss: Any, seat: int, wagers: dict[int, int]) -> None:
    for n, amount in wagers.items():
        services.wager_place(round_id=round_.pk, seat=n, amount=amount, by=pit_boss)
    # The seats offered the bank before ``seat`` decline it, in turn (rules §14.1).
    while (offered := bank_offer(round_bank_table(round_)).seat) is not None \
            and offered != seat:
        services.round_bank_decline(round_id=round_.pk, seat=offered, by=pit_boss)
    services.banker_set(round_id=round_.pk, seat=seat, by=pit_boss)
    services.round_settle(round_id=round_.pk, by=pit_boss,
                          outcomes={str(n): "loss" for n in wagers})


def test_every_seat_declines_and_the_proposition_player_banks_alone(
        console, pit_boss, card_table, seat_player, prop):
    seat_player(card_table, 1)
    seat_player(card_table, 2)
    round_ = services.round_open(table_id=card_table.pk, by=pit_boss)
    page = console.get(f"/tables/{card_table.pk}/")
    assert "The house banks" not in _text(page)
    for seat in (1, 2):
        console.post(f"/rounds/{round_.pk}/banker/decline/", {"seat": seat}, headers=HTMX)
    services.wager_place(round_id=round_.pk, seat=1, amount=10_000, by=pit_boss)

    page = console.get(f"/tables/{card_table.pk}/")
    text = _text(page)
    assert "Every player declined: the proposition player banks alone." in text
    assert "Golden Prop LLC · licence GEGP-001234 · 5,000.00 EUR available" in text
    console.post(f"/rounds/{round_.pk}/banker/", {"third_party": prop.pk}, headers=HTMX)

    round_.refresh_from_db()
    assert (round_.state, round_.banker_seat, round_.third_party_id) == (
        Round.State.BANKER_SET, None, prop.pk)
    text = _text(console.get(f"/tables/{card_table.pk}/"))
    assert "Golden Prop LLC (proposition player) banks alone" in text
    # the proposition player holds the cover and the bank's fee (1.00 on 100.00)
    assert "Proposition player Golden Prop LLC must hold (cover and fee) 101.00 EUR" in text


def test_a_third_consecutive_bank_is_refused_in_words(console, pit_boss, card_table,
                                                      seat_player):
    for n in (1, 2):
        seat_player(card_table, n)
    for _ in range(2):
        _played(services.round_open(table_id=card_table.pk, by=pit_boss), pit_boss, 1,
                {2: 1_000})
    round_ = services.round_open(table_id=card_table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=1_000, by=pit_boss)

    page = console.post(f"/rounds/{round_.pk}/banker/", {"seat": 1}, headers=HTMX)

    text = _text(page)
    assert "banked 2 rounds in a row" in text
    assert "bank_limit_reached" not in text
    round_.refresh_from_db()
    assert round_.state == Round.State.BETTING


def test_an_insolvent_player_dealer_is_named_with_the_shortfall(console, pit_boss, card_table,
                                                                seat_player):
    seat_player(card_table, 1, funds=5_000, name="Anna")
    seat_player(card_table, 2)
    round_ = services.round_open(table_id=card_table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=10_000, by=pit_boss)
    console.post(f"/rounds/{round_.pk}/banker/", {"seat": 1, "cover": ""}, headers=HTMX)
    assert "No deal yet: Anna cannot cover the wagers, 51.00 EUR short" in _text(
        console.get(f"/tables/{card_table.pk}/"))

    page = console.post(f"/rounds/{round_.pk}/deal/", headers=HTMX)

    assert ("Anna, the player-dealer, cannot cover their share and the bank's fee: "
            "51.00 EUR short (101.00 EUR needed, 50.00 EUR available). Nothing was "
            "changed.") in _text(page)


def test_the_cage_registers_a_proposition_player_with_its_licence(db):
    cashier, _ = staff_create(username="cara", role=roles.CAGE)
    client = Client()
    client.force_login(cashier)

    refused = client.post("/cage/players/new/", {"name": "Prop Co", "currency": "EUR",
                                                 "kind": "proposition", "licence": ""})
    assert refused.status_code == 400
    assert "registered with its state licence" in _text(refused)
    client.post("/cage/players/new/", {"name": "Prop Co", "currency": "EUR",
                                       "kind": "proposition", "licence": "GEGP-77"})

    player = Player.objects.get(name="Prop Co")
    assert (player.kind, player.licence) == (Player.Kind.PROPOSITION, "GEGP-77")


def test_the_settings_screen_takes_the_card_room_settings_in_money(pit_boss, card_table):
    client = Client()
    client.force_login(pit_boss)
    page = client.get(f"/tables/{card_table.pk}/settings/")
    assert "The players' fee: each wager with action (EUR)" in _text(page)
    assert 'value="0.50"' in page.content.decode()
    assert 'name="band-0-up_to" value="100.00"' in page.content.decode()
    form = page.context["form"]
    sent = {name: form[name].value() for name in form.fields}
    sent = {k: v for k, v in sent.items() if v is not None and v is not False}
    sent["collection_player"] = "0.25"
    sent.update({"band-0-up_to": "200.00", "band-0-fee": "2.00", "band-1-up_to": "",
                 "band-1-fee": "4.00", "band-2-up_to": "", "band-2-fee": ""})
    sent["rotation_minutes"] = "40"

    saved = client.post(f"/tables/{card_table.pk}/settings/", sent)

    assert saved.status_code == 302, _text(saved)
    card_table.refresh_from_db()
    assert (card_table.collection_player, card_table.rotation_minutes) == (25, 40)
    assert card_table.collection_banker == [{"up_to": 20_000, "fee": 200},
                                            {"up_to": None, "fee": 400}]


def test_the_rounds_story_tells_the_rotation(pit_boss, card_table, seat_player, prop):
    seat_player(card_table, 1)
    seat_player(card_table, 2, name="Bram")
    round_ = services.round_open(table_id=card_table.pk, by=pit_boss)
    services.round_bank_decline(round_id=round_.pk, seat=1, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=5_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, seat=2, cover=2_000, third_party=prop.pk,
                        by=pit_boss)

    boss = Client()
    boss.force_login(pit_boss)
    text = _text(boss.get(f"/rounds/{round_.pk}/"))

    assert "The bank is offered to Seat 1" in text
    assert "declines the bank" in text
    assert (f"Seat 2 · Bram takes the bank as player-dealer, covering up to 20.00 EUR; "
            f"proposition player #{prop.pk} covers the rest.") in text


def test_the_bank_held_past_the_rotation_time_is_refused_in_words(console, pit_boss,
                                                                  make_table, seat_player):
    table = make_table(bank_mode="card_room", commission_rate="0", rotation_minutes=40,
                       max_consecutive_banks=5)
    for n in (1, 2):
        seat_player(table, n)
    _played(services.round_open(table_id=table.pk, by=pit_boss), pit_boss, 1, {2: 1_000})
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=1_000, by=pit_boss)

    # 41 minutes after seat 1 took the bank (the clock the rotation reads)
    later = timezone.now() + timedelta(minutes=41)
    with patch("rounds.selectors.timezone.now", return_value=later):
        page = console.post(f"/rounds/{round_.pk}/banker/", {"seat": 1}, headers=HTMX)

    text = _text(page)
    assert "40 minutes" in text and "bank_time_up" not in text
    round_.refresh_from_db()
    assert round_.state == Round.State.BETTING


def test_the_floor_shows_a_proposition_player_banking_alone(pit_boss, card_table,
                                                            seat_player, prop):
    seat_player(card_table, 1)
    round_ = services.round_open(table_id=card_table.pk, by=pit_boss)
    services.round_bank_decline(round_id=round_.pk, seat=1, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=2_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, third_party=prop.pk, by=pit_boss)
    boss = Client()
    boss.force_login(pit_boss)

    page = boss.get("/")

    assert page.status_code == 200
    assert "Golden Prop LLC (proposition player) banks alone" in _text(page)
