"""Two players of one name at a table (issue 22): the table screen's buttons and messages
and the services' refusals name each "Anna #4 (seat 5)", one helper for all
(casino.selectors.player_label); a name nobody else at the table has stays as it is."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from casino import roles
from casino.selectors import player_label
from casino.services import staff_create
from casino.shared.errors import DomainError
from ledger.models import Hold
from rounds import services

pytestmark = pytest.mark.django_db


def _client(role: str, name: str) -> Client:
    user, _ = staff_create(username=name, role=role)
    client = Client()
    client.force_login(user)
    return client


def _buttons(html: str) -> list[str]:
    return re.findall(r"<button type=\"submit\">(Unseat [^<]*)</button>", html)


def test_two_annas_are_told_apart_in_the_buttons_and_the_messages(pit_boss, table,
                                                                  seat_player):
    first = seat_player(table, 1, name="Anna")
    second = seat_player(table, 2, funds=0, name="anna")
    seat_player(table, 3, name="Bram")
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    boss = _client(roles.PIT_BOSS, "petra")

    page = boss.get(f"/tables/{table.pk}/").content.decode()

    assert _buttons(page) == [f"Unseat Anna #{first.pk} (seat 1)",
                              f"Unseat anna #{second.pk} (seat 2)", "Unseat Bram"]

    # a wager the second Anna cannot cover: the message names her, not "Anna"
    refused = boss.post(f"/rounds/{round_.pk}/wagers/", {"seat": 2, "amount": "10"},
                        follow=True).content.decode()
    assert (f"anna #{second.pk} (seat 2) has 0.00 EUR available; this needs 10.00 EUR."
            in refused)
    assert not Hold.objects.filter(ref=f"round:{round_.pk}").exists()


def test_a_service_refusal_names_the_player_apart_from_a_namesake(pit_boss, table,
                                                                  seat_player):
    first = seat_player(table, 1, name="Anna")
    seat_player(table, 2, name="Anna")

    with pytest.raises(DomainError) as refused:
        services.seat_take(table_id=table.pk, number=4, player_id=first.pk, by=pit_boss)

    assert refused.value.message == f"Anna #{first.pk} already sits at seat 1 of this table"


def test_a_name_alone_at_the_table_is_written_as_it_is(pit_boss, table, seat_player):
    anna = seat_player(table, 1, name="Anna")
    seat_player(table, 2, name="Bram")
    boss = _client(roles.PIT_BOSS, "petra")

    page = boss.get(f"/tables/{table.pk}/").content.decode()

    assert _buttons(page) == ["Unseat Anna", "Unseat Bram"]
    assert player_label(anna, seat=1, among=[anna]) == "Anna"
    with pytest.raises(DomainError) as refused:
        services.seat_take(table_id=table.pk, number=4, player_id=anna.pk, by=pit_boss)
    assert refused.value.message == "Anna already sits at seat 1 of this table"
