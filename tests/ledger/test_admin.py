"""The ledger in the admin: every row readable, none addable, changeable or deletable."""

import pytest

from ledger.models import Entry
from ledger.services import hold_place
from tests.players import make_player


@pytest.fixture
def rows(book):
    book.fund(book.anna, 5_000)
    hold = hold_place(account_id=book.anna.pk, amount=1_000, by=None)
    return {"account": book.anna.pk, "entry": Entry.objects.latest("pk").pk, "hold": hold.pk}


@pytest.mark.parametrize("model", ["account", "entry", "hold"])
def test_the_admin_lists_and_shows_ledger_rows(admin_client, rows, model):
    listing = admin_client.get(f"/admin/ledger/{model}/")
    assert listing.status_code == 200
    assert admin_client.get(f"/admin/ledger/{model}/{rows[model]}/change/").status_code == 200


def test_accounts_show_posted_held_and_available(admin_client, rows):
    page = admin_client.get("/admin/ledger/account/").content.decode()
    assert "50.00" in page and "10.00" in page and "40.00" in page


def test_an_entry_shows_its_lines(admin_client, rows):
    page = admin_client.get(f"/admin/ledger/entry/{rows['entry']}/change/").content.decode()
    assert "-50.00" in page and "50.00" in page


@pytest.mark.parametrize("model", ["account", "entry", "hold"])
def test_nobody_adds_or_deletes_ledger_rows_in_the_admin(admin_client, rows, model):
    assert admin_client.get(f"/admin/ledger/{model}/add/").status_code == 403
    assert admin_client.get(f"/admin/ledger/{model}/{rows[model]}/delete/").status_code == 403


def test_a_pit_boss_who_may_view_entries_sees_their_lines(client, rows):
    from casino import roles
    from casino.services import staff_create

    boss, _ = staff_create(username="lines-boss", role=roles.PIT_BOSS)
    assert not boss.has_perm("ledger.view_line")  # lines come with the entry, not alone
    client.force_login(boss)

    page = client.get(f"/admin/ledger/entry/{rows['entry']}/change/").content.decode()

    assert "-50.00" in page


def test_the_cage_reads_players_accounts_in_the_admin_and_not_the_houses(db):
    # as in the API: without ledger.view_house_accounts only players' accounts and the
    # entries that move them
    from django.test import Client

    from casino import roles
    from casino.services import player_deposit, staff_create
    from ledger.models import Account
    from ledger.services import account_get_or_create, entry_post

    anna = make_player(name="Anna", currency="EUR", by=None)
    player_deposit(player_id=anna.pk, amount=5_000, by=None)
    bankroll = account_get_or_create(kind="table_bankroll", currency="EUR", ref="table:1")
    commission = account_get_or_create(kind="commission", currency="EUR", ref="table:1")
    house_only = entry_post(kind="adjustment", memo="", by=None,
                            lines=[(bankroll.pk, -100), (commission.pk, 100)])
    cashier, _ = staff_create(username="carla", role=roles.CAGE)
    client = Client()
    client.force_login(cashier)

    listing = client.get("/admin/ledger/account/").content.decode()
    assert f"player:{anna.pk}" in listing and "table:1" not in listing
    assert client.get(f"/admin/ledger/account/{bankroll.pk}/change/").status_code in (302, 404)
    assert client.get(f"/admin/ledger/entry/{house_only.pk}/change/").status_code in (302, 404)
    deposit = Entry.objects.get(kind="deposit")
    assert client.get(f"/admin/ledger/entry/{deposit.pk}/change/").status_code == 200
    player_account = Account.objects.get(kind="player")
    assert client.get(f"/admin/ledger/account/{player_account.pk}/change/").status_code == 200


def test_account_and_hold_pages_show_amounts_in_the_currency_never_minor_units(admin_client,
                                                                              rows):
    import re

    account = admin_client.get(f"/admin/ledger/account/{rows['account']}/change/")
    hold = admin_client.get(f"/admin/ledger/hold/{rows['hold']}/change/")
    holds = admin_client.get("/admin/ledger/hold/")

    account_page = account.content.decode()
    assert "50.00 EUR" in account_page and "10.00 EUR" in account_page
    assert "40.00 EUR" in account_page
    assert "10.00 EUR" in hold.content.decode() and "10.00 EUR" in holds.content.decode()
    for page in (account_page, hold.content.decode(), holds.content.decode()):
        assert not re.search(r">\s*(5000|4000|1000)\s*<", page)  # the stored minor units
