"""Tables in the admin (rounds/admin_tables.py): limits in the currency's units, seats and
the settings history, settings changed through the service and refused in words."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from casino import roles
from ledger.models import Account
from rounds.models import Seat, Table, TableSettingsChange
from tests.rounds.test_admin import TABLES, change_form_data, login, open_round_with_wagers

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss() -> Client:
    return login(roles.PIT_BOSS)


@pytest.fixture
def players(table, seat_player) -> list[Any]:
    return [seat_player(table, n, funds=10_000) for n in (1, 2, 3)]


def test_the_table_list_shows_limits_and_seats_taken(boss, table, players):
    html = boss.get(TABLES).content.decode()

    assert "2.00\N{EN DASH}100.00" in html and "3 of 6" in html


def test_the_table_page_shows_the_seats_and_the_settings(boss, table, players):
    html = boss.get(f"{TABLES}{table.pk}/change/").content.decode()

    assert all(p.name in html for p in players)
    assert 'name="min_bet" value="2.00"' in html and 'name="max_bet" value="100.00"' in html


def test_a_dealer_sees_the_table_read_only_with_limits_in_euros(table, players):
    dealer = login(roles.DEALER)

    response = dealer.get(f"{TABLES}{table.pk}/change/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "2.00 EUR" in html and "100.00 EUR" in html and 'name="min_bet"' not in html


def test_a_settings_change_in_the_admin_is_recorded(boss, table):
    page = boss.get(f"{TABLES}{table.pk}/change/")

    response = boss.post(f"{TABLES}{table.pk}/change/",
                         change_form_data(page, max_bet="250.00", foul_policy="forfeit"))

    assert response.status_code == 302, response.context["adminform"].form.errors
    table.refresh_from_db()
    assert (table.max_bet, table.foul_policy) == (25_000, "forfeit")
    change = TableSettingsChange.objects.get(table=table)
    assert change.changes == {"max_bet": [10_000, 25_000], "foul_policy": ["house_way",
                                                                          "forfeit"]}
    assert change.changed_by == boss.user
    history = boss.get(f"{TABLES}{table.pk}/change/").content.decode()
    assert "Maximum bet: 100.00 EUR → 250.00 EUR" in history


def test_a_settings_change_while_a_round_is_in_play_is_refused_on_the_form(
    boss, table, players, pit_boss
):
    open_round_with_wagers(table, pit_boss)
    page = boss.get(f"{TABLES}{table.pk}/change/")

    response = boss.post(f"{TABLES}{table.pk}/change/",
                         change_form_data(page, max_bet="250.00"))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Not saved" in html and "only between rounds" in html
    assert 'name="max_bet" value="250.00"' in html  # what was typed stays on the form
    table.refresh_from_db()
    assert table.max_bet == 10_000
    assert not TableSettingsChange.objects.filter(table=table).exists()


def test_a_setting_the_service_refuses_is_shown_on_its_field(boss, table):
    page = boss.get(f"{TABLES}{table.pk}/change/")

    response = boss.post(f"{TABLES}{table.pk}/change/",
                         change_form_data(page, max_bet="2000000000000.00"))

    assert response.status_code == 200
    assert "The maximum bet may be at most" in response.content.decode()
    table.refresh_from_db()
    assert table.max_bet == 10_000


def test_a_table_added_in_the_admin_gets_its_seats_and_accounts(boss):
    page = boss.get(f"{TABLES}add/")

    response = boss.post(f"{TABLES}add/",
                         change_form_data(page, name="Salon privé", min_bet="5.00",
                                          max_bet="500.00", currency="USD"))

    assert response.status_code == 302, response.context["adminform"].form.errors
    table = Table.objects.get(name="Salon privé")
    assert (table.currency, table.min_bet, table.max_bet) == ("USD", 500, 50_000)
    assert Seat.objects.filter(table=table).count() == 6
    assert set(Account.objects.filter(ref=f"table:{table.pk}").values_list("kind", flat=True)) \
        == {"table_bankroll", "commission"}


def test_limits_out_of_order_are_refused_in_words_not_by_the_constraint_name(boss, table):
    page = boss.get(f"{TABLES}{table.pk}/change/")

    response = boss.post(f"{TABLES}{table.pk}/change/",
                         change_form_data(page, min_bet="50.00", max_bet="10.00",
                                          commission_rate="1.5"))

    html = response.content.decode()
    assert response.status_code == 200
    assert "The minimum bet must be positive and not above the maximum bet." in html
    assert "at least 0 and below 1 (0.05 is 5%)" in html
    assert "Constraint" not in html and "table_limits_positive_and_ordered" not in html
    table.refresh_from_db()
    assert (table.min_bet, table.max_bet) == (200, 10_000)
    assert not TableSettingsChange.objects.filter(table=table).exists()
