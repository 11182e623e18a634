"""A table's settings at the console as a pit boss writes them: the bank's fee bands as
rows of money, the deal modes as boxes to tick, the commission in % (5, not 0.05). The
form only parses; the service's checks refuse, in words, on the same screen, and change
nothing."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from rounds.models import Table, TableSettingsChange

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss(pit_boss) -> Client:
    client = Client()
    client.force_login(pit_boss)
    return client


def _text(response: Any) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ",
                                                    response.content.decode())))


def as_shown(client: Client, table: Table) -> dict[str, Any]:
    """The form as the screen fills it, ready to send back."""
    form = client.get(f"/tables/{table.pk}/settings/").context["form"]
    sent = {name: form[name].value() for name in form.fields}
    return {k: v for k, v in sent.items() if v is not None and v is not False}


def test_the_form_shows_the_commission_in_percent_the_modes_as_boxes_and_bands_as_money(
        boss, make_table):
    table = make_table(commission_rate="0.05", deal_modes=["electronic", "physical"])

    page = boss.get(f"/tables/{table.pk}/settings/")

    body = page.content.decode()
    assert "Commission (% of a win)" in _text(page)
    assert re.search(r'name="commission_rate" value="5"', body)
    # one box per way of dealing, the table's ticked
    for mode, ticked in (("electronic", True), ("physical", True), ("results", False)):
        box = re.search(rf'<input type="checkbox" name="deal_modes" value="{mode}"[^>]*>',
                        body)
        assert box is not None and ("checked" in box.group(0)) is ticked
    assert "Results only (the dealer records each outcome)" in _text(page)
    # the rules' default bands, each a row of money, and empty rows to add one
    for i, (up_to, fee) in enumerate((("100.00", "1.00"), ("500.00", "3.00"), ("", "5.00"))):
        assert f'name="band-{i}-up_to"' in body
        assert (f'name="band-{i}-up_to" value="{up_to}"' in body) is bool(up_to)
        assert f'name="band-{i}-fee" value="{fee}"' in body
    assert 'name="band-4-fee"' in body
    assert "[{" not in body and "up_to" not in _text(page)


def test_the_pit_boss_saves_percent_ticked_modes_and_bands_in_minor_units(boss, make_table):
    table = make_table(bank_mode="card_room", commission_rate="0")
    sent = as_shown(boss, table)
    sent.update({"commission_rate": "4.75", "deal_modes": ["physical", "results"],
                 "band-0-up_to": "250.00", "band-0-fee": "2.50",
                 "band-1-up_to": "1,000.00", "band-1-fee": "6.00",
                 "band-2-up_to": "", "band-2-fee": "10.00",
                 "band-3-up_to": "", "band-3-fee": ""})

    saved = boss.post(f"/tables/{table.pk}/settings/", sent)

    assert saved.status_code == 302, _text(saved)
    table.refresh_from_db()
    assert table.commission_rate == Decimal("0.0475")
    assert table.deal_modes == ["physical", "results"]
    assert table.collection_banker == [{"up_to": 25_000, "fee": 250},
                                       {"up_to": 100_000, "fee": 600},
                                       {"up_to": None, "fee": 1_000}]
    change = TableSettingsChange.objects.filter(table=table).latest("pk")
    assert change.changes["commission_rate"] == ["0.0000", "0.0475"]


def test_a_band_added_in_an_empty_row_and_one_emptied_are_saved_in_order(boss, make_table):
    table = make_table(bank_mode="card_room", commission_rate="0")
    sent = as_shown(boss, table)
    # the middle band emptied, a new open band written in the first empty row
    sent.update({"band-1-up_to": "", "band-1-fee": "", "band-2-fee": "4.00"})

    saved = boss.post(f"/tables/{table.pk}/settings/", sent)

    assert saved.status_code == 302, _text(saved)
    table.refresh_from_db()
    assert table.collection_banker == [{"up_to": 10_000, "fee": 100},
                                       {"up_to": None, "fee": 400}]


@pytest.mark.parametrize(("change", "said"), [
    ({"deal_modes": []}, "Choose how the table's rounds may be dealt: one or more of "
                         "electronic, physical, results."),
    ({"commission_rate": "100"}, "The commission is from 0 % up to, not including, 100 % "
                                 "of the win"),
    ({"commission_rate": "-1"}, "The commission is from 0 % up to"),
    ({"commission_rate": "5.125"}, "The commission is in % with at most two decimals"),
    ({"band-2-up_to": "900.00"}, "The bank's collection fee bands: the last band has no "
                                 "limit (its \"up to\" empty"),
    ({"band-1-up_to": "50.00"}, "the bands' limits are positive and rise from one band to "
                                "the next"),
    ({"band-0-fee": ""}, "Give this band's fee (0 for none)."),
    ({"band-0-up_to": "ten"}, "ten"),
])
def test_settings_the_service_refuses_are_said_in_words_and_change_nothing(
        boss, make_table, change, said):
    table = make_table(bank_mode="card_room", commission_rate="0")
    before = Table.objects.filter(pk=table.pk).values().get()
    sent = {**as_shown(boss, table), **change}
    if change.get("deal_modes") == []:
        del sent["deal_modes"]

    response = boss.post(f"/tables/{table.pk}/settings/", sent)

    assert response.status_code != 302
    assert said in _text(response)
    assert Table.objects.filter(pk=table.pk).values().get() == before
    assert not TableSettingsChange.objects.filter(table=table).exists()
