"""The console's dealer: the table screen shows who deals and signs in and relieves; the
floor shows each table's dealer; the round history shows who dealt each round."""

from __future__ import annotations

import pytest
from django.test import Client

from casino import roles
from casino.services import staff_create
from casino.shared.refusals import Refusal
from rounds import services
from rounds.models import DealerShift, Round

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def _console(username: str, role: str) -> Client:
    user, _ = staff_create(username=username, role=role)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def dana() -> Client:
    return _console("dana", roles.DEALER)


def test_a_dealer_signs_in_at_the_table_screen_and_opens_rounds_as_the_dealer(dana, table):
    page = dana.get(f"/tables/{table.pk}/").content.decode()
    assert "nobody signed in" in page and "Sign in as the dealer" in page

    signed = dana.post(f"/tables/{table.pk}/dealer/", headers=HTMX).content.decode()

    assert "dana deals at" in signed and "Sign out: I am relieved" in signed
    dana.post(f"/tables/{table.pk}/rounds/open/")
    assert Round.objects.values_list("dealer__username", flat=True).get(table=table) == "dana"


def test_the_next_dealer_takes_over_from_the_screen(dana, table):
    dana.post(f"/tables/{table.pk}/dealer/")
    eve = _console("eve", roles.DEALER)

    page = eve.get(f"/tables/{table.pk}/").content.decode()
    assert "Take over from dana" in page
    eve.post(f"/tables/{table.pk}/dealer/")

    assert DealerShift.objects.get(ended_at__isnull=True).dealer.username == "eve"
    assert DealerShift.objects.values_list("ended_by__username", flat=True).get(
        dealer__username="dana") == "eve"


def test_another_dealer_may_not_relieve_and_is_told_why_in_words(dana, table):
    dana.post(f"/tables/{table.pk}/dealer/")
    eve = _console("eve", roles.DEALER)

    page = eve.post(f"/tables/{table.pk}/dealer/relieve/", headers=HTMX).content.decode()

    assert "Dana is dealing at" in page and "a pit boss" in page
    assert "not_your_shift" not in page
    assert DealerShift.objects.get().ended_at is None
    assert Refusal.objects.filter(action="dealer_relieve", code="not_your_shift").exists()


def test_a_pit_boss_signs_in_a_dealer_picked_from_the_list_and_relieves_them(dana, table):
    boss = _console("bo", roles.PIT_BOSS)
    page = boss.get(f"/tables/{table.pk}/").content.decode()
    assert '<option value="dana">dana</option>' in page

    boss.post(f"/tables/{table.pk}/dealer/", {"dealer": "dana"})
    relieved = boss.post(f"/tables/{table.pk}/dealer/relieve/", headers=HTMX).content.decode()

    assert DealerShift.objects.values_list(
        "dealer__username", "started_by__username", "ended_by__username").get() == (
        "dana", "bo", "bo")
    assert "dana is relieved at" in relieved


def test_the_floor_shows_each_tables_dealer(dana, make_table):
    one, two = make_table(name="Table One"), make_table(name="Table Two")
    dana.post(f"/tables/{one.pk}/dealer/")

    floor = dana.get("/").content.decode()

    first, second = floor.split('data-testid="floor-dealer"')[1:3]
    assert "dana" in first and "nobody signed in" in second
    assert one.name in floor and two.name in floor


def test_the_round_history_and_the_round_page_show_who_dealt(dana, table, pit_boss):
    dana.post(f"/tables/{table.pk}/dealer/")
    dana.post(f"/tables/{table.pk}/rounds/open/")
    dealt = Round.objects.get(table=table)
    services.round_void(round_id=dealt.pk, reason="test", by=pit_boss)
    services.round_open(table_id=table.pk, by=pit_boss)   # dana still signed in

    history = dana.get(f"/tables/{table.pk}/history/").content.decode()
    round_page = dana.get(f"/rounds/{dealt.pk}/").content.decode()

    assert history.count('data-testid="dealer">dana<') == 2
    assert 'data-testid="dealer">dana<' in round_page


def test_the_cage_cannot_sign_in_at_a_table(table):
    cage = _console("cleo", roles.CAGE)

    assert cage.post(f"/tables/{table.pk}/dealer/").status_code == 403
    assert not DealerShift.objects.exists()


def test_the_admin_lists_the_shifts_and_each_rounds_dealer_read_only(dana, table):
    dana.post(f"/tables/{table.pk}/dealer/")
    dana.post(f"/tables/{table.pk}/rounds/open/")
    auditor = _console("audrey", roles.AUDITOR)
    dealt = Round.objects.get(table=table)

    shifts = auditor.get("/admin/rounds/dealershift/")
    round_page = auditor.get(f"/admin/rounds/round/{dealt.pk}/change/")

    assert shifts.status_code == 200 and "dana" in shifts.content.decode()
    assert round_page.status_code == 200 and "dana" in round_page.content.decode()
    assert auditor.get("/admin/rounds/dealershift/add/").status_code == 403
