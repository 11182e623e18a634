"""Which deals a table allows (its ``deal_modes``): a dealer alone cannot choose the cards or
the outcomes at a table that deals electronically (issue finding 5)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from casino import roles
from casino.services import staff_create
from casino.shared.errors import ValidationFailed
from ledger.models import Entry, Hold
from rounds import services
from rounds.models import Round, Table, TableSettingsChange
from tests.rounds.conftest import balances
from tests.rounds.test_admin import change_form_data

pytestmark = pytest.mark.django_db

DEALT = {
    "dealer": "5S 5H TD 4C 2S KD QC",
    "1": "AH TS 9C 6D 3H KS QH",
    "2": "KC JC 8C 6C 3C AS 2D",
}


@pytest.fixture
def default_table(pit_boss) -> Table:
    """A table as the rules' defaults make it (make_table allows every mode)."""
    return services.table_create(by=pit_boss, name="Electronic", bank_rotation="open",
                                 banker_must_have_played=False)


def refused(body: dict, mode: str, allowed: list[str]) -> None:
    assert body["error"]["code"] == "deal_mode_not_allowed"
    assert body["error"]["detail"] == {"mode": mode, "allowed": allowed}


def test_a_new_table_allows_electronic_and_physical_deals(pit_boss_client, default_table):
    body = pit_boss_client.get(f"/api/v1/tables/{default_table.pk}").json()

    assert body["deal_modes"] == ["electronic", "physical"]


def test_a_dealer_cannot_settle_with_outcomes_at_a_default_table(dealer, default_table,
                                                                  seat_player):
    # given a house-banked round with two wagers, betting over
    players = [seat_player(default_table, n) for n in (1, 2)]
    round_id = dealer.open_round(default_table)["id"]
    dealer.wager(round_id, 1, "50.00")
    dealer.wager(round_id, 2, "50.00")
    dealer.banker(round_id, house=True)
    before = balances(*players)

    # when the dealer settles with outcomes of their choosing
    body = dealer.settle(round_id, {"outcomes": {"1": "win", "2": "win"}}, expect=409)

    # then it is refused, naming what the table allows, and nothing changed
    refused(body, "results", ["electronic", "physical"])
    assert "electronic deal" in body["error"]["message"]
    assert balances(*players) == before
    round_ = Round.objects.get(pk=round_id)
    assert (round_.state, round_.deal_kind, round_.entry_id) == ("banker_set", "", None)
    assert not Entry.objects.filter(ref=f"round:{round_id}").exists()
    assert round_.events.filter(kind="settled").count() == 0


def test_a_refused_results_only_settlement_holds_no_cover_for_a_player_banker(
    dealer, default_table, seat_player
):
    players = [seat_player(default_table, n) for n in (1, 2)]
    round_id = dealer.open_round(default_table)["id"]
    dealer.wager(round_id, 2, "50.00")
    dealer.banker(round_id, seat=1)
    before = balances(*players)

    dealer.settle(round_id, {"outcomes": {"2": "loss"}}, expect=409)

    assert balances(*players) == before
    assert Round.objects.get(pk=round_id).banker_hold_id is None
    assert Hold.objects.filter(ref=f"round:{round_id}", status="open").count() == 1  # wager


def test_a_dealer_cannot_deal_results_only_at_a_default_table(dealer, default_table,
                                                              seat_player):
    seat_player(default_table, 1)
    round_id = dealer.open_round(default_table)["id"]
    dealer.wager(round_id, 1, "50.00")
    dealer.banker(round_id, house=True)

    body = dealer.deal(round_id, {"results_only": True}, expect=409)

    refused(body, "results", ["electronic", "physical"])
    assert Round.objects.get(pk=round_id).state == "banker_set"


def test_a_physical_deal_is_refused_at_an_electronic_only_table(
    dealer, pit_boss_client, default_table, seat_player
):
    # given a pit boss made the table electronic only, and a player banks
    response = pit_boss_client.patch(f"/api/v1/tables/{default_table.pk}",
                                     {"deal_modes": ["electronic"]}, format="json")
    assert response.status_code == 200, response.json()
    players = [seat_player(default_table, n) for n in (1, 2)]
    round_id = dealer.open_round(default_table)["id"]
    dealer.wager(round_id, 2, "50.00")
    dealer.banker(round_id, seat=1)
    before = balances(*players)

    # when the dealer records cards of their choosing
    body = dealer.deal(round_id, {"hands": {"dealer": DEALT["dealer"], "1": DEALT["1"],
                                            "2": DEALT["2"]}}, expect=409)

    # then nothing is dealt and no cover is held
    refused(body, "physical", ["electronic"])
    round_ = Round.objects.get(pk=round_id)
    assert (round_.state, round_.banker_hold_id) == ("banker_set", None)
    assert not round_.hands.exists()
    assert balances(*players) == before
    # and the electronic deal still works
    assert dealer.deal(round_id)["deal"]["kind"] == "electronic"


def test_a_physical_deal_is_allowed_at_a_default_table(dealer, default_table, seat_player):
    for n in (1, 2):
        seat_player(default_table, n)
    round_id = dealer.open_round(default_table)["id"]
    dealer.wager(round_id, 1, "50.00")
    dealer.wager(round_id, 2, "50.00")
    dealer.banker(round_id, house=True)

    assert dealer.deal(round_id, {"hands": DEALT})["deal"]["kind"] == "physical"


def test_once_a_pit_boss_allows_results_only_the_dealer_may_settle_with_outcomes(
    dealer, pit_boss_client, default_table, seat_player
):
    # given a pit boss allows results only (listed in any order)
    response = pit_boss_client.patch(f"/api/v1/tables/{default_table.pk}",
                                     {"deal_modes": ["results", "electronic"]}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["deal_modes"] == ["electronic", "results"]
    change = TableSettingsChange.objects.get(table=default_table)
    assert change.changes == {"deal_modes": [["electronic", "physical"],
                                             ["electronic", "results"]]}
    assert change.changed_by == pit_boss_client.user
    seat_player(default_table, 1)

    # when the dealer settles a round with outcomes
    round_id = dealer.open_round(default_table)["id"]
    assert dealer.get(round_id)["rules"]["deal_modes"] == ["electronic", "results"]
    dealer.wager(round_id, 1, "50.00")
    dealer.banker(round_id, house=True)
    body = dealer.settle(round_id, {"outcomes": {"1": "loss"}})

    # then it is settled; the table, now without physical deals, refuses recorded cards
    assert body["state"] == "settled" and body["deal"]["kind"] == "results"
    round_id = dealer.open_round(default_table)["id"]
    dealer.wager(round_id, 1, "50.00")
    dealer.banker(round_id, house=True)
    refused(dealer.deal(round_id, {"hands": {"dealer": DEALT["dealer"], "1": DEALT["1"]}},
                        expect=409), "physical", ["electronic", "results"])


def test_the_same_modes_in_another_order_are_no_change(pit_boss_client, default_table):
    response = pit_boss_client.patch(f"/api/v1/tables/{default_table.pk}",
                                     {"deal_modes": ["physical", "electronic"]}, format="json")

    assert response.status_code == 200
    assert not TableSettingsChange.objects.filter(table=default_table).exists()


def test_a_dealer_cannot_change_the_deal_modes(dealer_client, default_table):
    response = dealer_client.patch(f"/api/v1/tables/{default_table.pk}",
                                   {"deal_modes": ["electronic", "physical", "results"]},
                                   format="json")

    assert response.status_code == 403
    default_table.refresh_from_db()
    assert default_table.deal_modes == ["electronic", "physical"]
    assert not TableSettingsChange.objects.filter(table=default_table).exists()


def test_the_deal_modes_change_only_between_rounds(dealer, pit_boss_client, default_table,
                                                   seat_player):
    seat_player(default_table, 1)
    dealer.open_round(default_table)

    response = pit_boss_client.patch(f"/api/v1/tables/{default_table.pk}",
                                     {"deal_modes": ["results"]}, format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "round_in_progress"
    default_table.refresh_from_db()
    assert default_table.deal_modes == ["electronic", "physical"]


@pytest.mark.parametrize("modes", [[], ["cheat"], ["electronic", "cheat"], "results",
                                   ["electronic"] * 4, [None]])
def test_deal_modes_outside_the_choices_are_refused(pit_boss_client, default_table,
                                                   modes: Any):
    response = pit_boss_client.patch(f"/api/v1/tables/{default_table.pk}",
                                     {"deal_modes": modes}, format="json")

    assert response.status_code == 400, response.json()
    assert set(response.json()["error"]) == {"code", "message", "detail"}
    default_table.refresh_from_db()
    assert default_table.deal_modes == ["electronic", "physical"]


@pytest.mark.parametrize("modes", [[], ["cheat"]])
def test_the_service_refuses_deal_modes_outside_the_choices(pit_boss, default_table, modes):
    with pytest.raises(ValidationFailed,
                       match="may be dealt: one or more of electronic, physical, results"):
        services.table_update(table_id=default_table.pk, by=pit_boss,
                              changes={"deal_modes": modes})

    default_table.refresh_from_db()
    assert default_table.deal_modes == ["electronic", "physical"]


@pytest.mark.parametrize("modes", ["{}", "{cheat}", "{electronic,dealer_chooses}"])
def test_postgresql_refuses_deal_modes_outside_the_choices(default_table, modes):
    with pytest.raises(IntegrityError, match="table_deal_modes_known_and_not_empty"), \
            transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE rounds_table SET deal_modes = %s WHERE id = %s",
                       [modes, default_table.pk])


def test_a_pit_boss_allows_results_only_in_the_admin(default_table):
    boss, _ = staff_create(username="admin-boss", role=roles.PIT_BOSS,
                           password="a long pit password 2024")
    client = Client()
    client.force_login(boss)
    page = client.get(f"/admin/rounds/table/{default_table.pk}/change/")
    assert 'value="results"' in page.content.decode()

    response = client.post(f"/admin/rounds/table/{default_table.pk}/change/",
                           change_form_data(page, deal_modes=["electronic", "results"]))

    assert response.status_code == 302, response.context["adminform"].form.errors
    default_table.refresh_from_db()
    assert default_table.deal_modes == ["electronic", "results"]
    assert TableSettingsChange.objects.get(table=default_table).changed_by == boss
    history = client.get(f"/admin/rounds/table/{default_table.pk}/change/").content.decode()
    assert "Deal modes: electronic, physical → electronic, results" in history


@pytest.mark.slow  # migrates back and forth
@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_existing_tables_and_gives_them_the_default_modes(pit_boss):
    # given a table made before the setting existed
    table = services.table_create(by=pit_boss, name="Old table", min_bet=500)
    executor = MigrationExecutor(connection)
    executor.migrate([("casino", "0005_view_all_approvals")])
    try:
        # The table's name in the database as of that migration (tables moved to rounds
        # later).
        old_state = executor.loader.project_state(("casino", "0005_view_all_approvals"))
        db_table = old_state.apps.get_model("casino", "Table")._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*) FROM {db_table} WHERE id = %s",
                           [table.pk])
            assert cursor.fetchone() == (1,)

        # when the migration runs
        executor.loader.build_graph()
        executor.migrate([("casino", "0006_table_deal_modes")])
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())

    # then the table is unchanged and deals electronically or physically
    table = Table.objects.get(pk=table.pk)
    assert (table.name, table.min_bet) == ("Old table", 500)
    assert table.deal_modes == ["electronic", "physical"]


def test_a_dealer_sees_the_deal_modes_in_the_admin_but_cannot_change_them(default_table):
    dealer, _ = staff_create(username="admin-dealer", role=roles.DEALER,
                             password="a long pit password 2024")
    client = Client()
    client.force_login(dealer)

    html = client.get(f"/admin/rounds/table/{default_table.pk}/change/").content.decode()

    assert "Deal modes" in html and 'name="deal_modes"' not in html
    assert "electronic, physical" in html
