"""What a cage movement waiting for a pit boss says and blocks (issue 35): its sentence names
the day's total against the line, it blocks only what would pass the line again, the
approved movement's receipt is one click away, and the player's page writes money as every
screen does. Through the API and the console; the ledger is checked each time."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from casino import roles
from casino.services import player_deposit, staff_create
from casino.shared.approvals import Approval
from ledger.models import Entry
from tests.casino.test_cage_day import approve, move, posted, register
from tests.players import make_player

pytestmark = pytest.mark.django_db


def test_a_deposit_past_the_line_says_the_days_total_and_the_line(cage_client):
    anna = register(cage_client)
    assert move(cage_client, anna, "deposits", "9000.00").status_code == 201

    asked = move(cage_client, anna, "deposits", "1500.00")

    assert asked.status_code == 202
    assert asked.json()["summary"] == ("Deposit of 1,500.00 EUR for Anna: brings today's "
                                       "deposits to 10,500.00 EUR, above the cage's line of "
                                       "10,000.00 EUR")


def test_while_a_deposit_waits_a_payout_from_the_money_already_there_goes_through(
        cage_client, pit_boss_client):
    anna = register(cage_client)
    move(cage_client, anna, "deposits", "9000.00")
    waiting = move(cage_client, anna, "deposits", "1500.00").json()

    paid = move(cage_client, anna, "withdrawals", "9000.00")
    # the waiting deposit is not money there yet
    beyond = move(cage_client, anna, "withdrawals", "0.01")

    assert paid.status_code == 201, paid.json()
    assert beyond.status_code == 409
    assert beyond.json()["error"]["code"] == "insufficient_funds"
    assert posted(anna) == 0
    assert Approval.objects.get(pk=waiting["id"]).status == "pending"
    # approved afterwards, the deposit posts on its own
    decided = approve(pit_boss_client, waiting["id"])
    assert decided.status_code == 200
    assert posted(anna) == 150_000


def test_the_approved_deposit_answers_with_its_entry_and_where_to_read_it(
        cage_client, pit_boss_client):
    anna = register(cage_client)
    asked = move(cage_client, anna, "deposits", "10000.01").json()
    assert asked["result_id"] is None and asked["result_url"] is None

    decided = approve(pit_boss_client, asked["id"]).json()

    (deposit,) = Entry.objects.filter(kind="deposit")
    assert decided["result_id"] == deposit.pk
    assert decided["result_url"] == f"/api/v1/ledger/entries/{deposit.pk}"
    read = pit_boss_client.get(decided["result_url"])
    assert read.status_code == 200 and read.json()["id"] == deposit.pk
    assert posted(anna) == 1_000_001


def console(role: str, username: str) -> Client:
    user, _ = staff_create(username=username, role=role)
    client = Client()
    client.force_login(user)
    return client


def test_at_the_console_the_approved_deposits_receipt_is_one_click_from_the_approval(db):
    clerk, boss = console(roles.CAGE, "clerk"), console(roles.PIT_BOSS, "boss")
    anna = make_player(name="Anna", currency="EUR", by=None)
    clerk.post(f"/cage/players/{anna.pk}/deposit/",
               {"deposit-amount": "12000.00", "once": "d1"})
    (asked,) = Approval.objects.filter(status="pending")

    decided = boss.post(f"/approvals/{asked.pk}/decide/", {"decision": "approve"},
                        follow=True).content.decode()

    (deposit,) = Entry.objects.filter(kind="deposit")
    link = f'<a href="/cage/receipts/{deposit.pk}/">Receipt #{deposit.pk}</a>'
    assert link in decided                                    # in the decision's message
    assert f'data-testid="result-link">Receipt #{deposit.pk}' in boss.get(
        "/approvals/").content.decode()                       # and in the list, after
    # the clerk finds it on the player's page too
    player_page = clerk.get(f"/cage/players/{anna.pk}/").content.decode()
    assert (f'<a href="/cage/receipts/{deposit.pk}/" data-testid="approved-receipt">'
            f"Receipt #{deposit.pk}</a>") in player_page
    receipt = clerk.get(f"/cage/receipts/{deposit.pk}/").content.decode()
    assert "12,000.00 EUR" in receipt


def test_the_cage_player_page_writes_every_amount_as_the_casino_does(db):
    clerk = console(roles.CAGE, "clerk")
    anna = make_player(name="Anna", currency="EUR", by=None)
    player_deposit(player_id=anna.pk, amount=432_150, by=None)
    clerk.post(f"/cage/players/{anna.pk}/deposit/",
               {"deposit-amount": "9000.00", "once": "d1"})   # past the line: waits

    page = clerk.get(f"/cage/players/{anna.pk}/").content.decode()

    assert page.count("4,321.50 EUR") >= 3   # available, posted, cash in today
    assert "Deposit of 9,000.00 EUR for Anna: brings today&#x27;s deposits to 13,321.50 EUR" \
        in page
    # no figure of four digits or more without its thousands separator
    assert re.findall(r"\b\d{4,}\.\d\d\b", page) == []
