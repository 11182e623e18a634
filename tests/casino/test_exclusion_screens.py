"""Exclusions through the console: the list page records and lifts them, the cage's player
page shows and records them, and every door of the table screen and of the cage refuses an
excluded player in words (never the code), changing nothing."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from casino import roles
from casino.exclusions import exclusion_record
from casino.models import Exclusion
from casino.selectors import player_balance
from casino.services import staff_create
from casino.shared.approvals import Approval
from ledger.models import Entry
from rounds import services
from rounds.models import Round, Seat
from tests.players import make_player
from tests.rounds.conftest import make_table, pit_boss, seat_player, table

__all__ = ["make_table", "pit_boss", "seat_player", "table"]

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def _signed_in(username: str, role: str) -> Client:
    user, _ = staff_create(username=username, role=role)
    client = Client()
    client.force_login(user)
    client.user = user  # type: ignore[attr-defined]
    return client


@pytest.fixture
def boss() -> Client:
    return _signed_in("petra", roles.PIT_BOSS)


@pytest.fixture
def cage() -> Client:
    return _signed_in("carl", roles.CAGE)


def _text(page: Any) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.content.decode())))


def test_the_exclusions_page_records_one_and_lists_it(boss):
    anna = make_player(name="Anna Meyer")

    page = boss.post("/exclusions/record/", {
        "exclusion-player": anna.pk, "exclusion-kind": "self",
        "exclusion-until": "2099-06-01", "exclusion-reason": "Asked at the table"},
        follow=True)

    text = _text(page)
    assert "Recorded: Anna Meyer is self-excluded until 2099-06-01" in text
    assert "Asked at the table" in text and "In force" in text
    exclusion = Exclusion.objects.get()
    assert (exclusion.player, exclusion.kind, exclusion.recorded_by) == (anna, "self",
                                                                          boss.user)


def test_a_bad_record_is_refused_in_words_on_the_page(boss):
    anna = make_player(name="Anna")

    page = boss.post("/exclusions/record/", {
        "exclusion-player": anna.pk, "exclusion-kind": "self",
        "exclusion-until": "2001-01-01", "exclusion-reason": "Too late"})

    assert page.status_code == 400
    assert "An exclusion ends on or after the day it starts" in _text(page)
    assert not Exclusion.objects.exists()


def test_the_cage_player_page_shows_the_exclusion_and_records_one(cage, boss):
    anna = make_player(name="Anna")
    cage.post("/exclusions/record/", {
        "from": "player", "exclusion-player": anna.pk, "exclusion-kind": "self",
        "exclusion-until": "", "exclusion-reason": "Asked at the cage"})

    text = _text(cage.get(f"/cage/players/{anna.pk}/"))

    assert ("Anna is self-excluded for good: no seat, wager, buy-in, deposit or bank until "
            "it ends or is lifted.") in text
    assert "Asked at the cage" in text
    assert Exclusion.objects.get().recorded_by == cage.user


def test_the_cage_deposit_of_an_excluded_player_is_refused_in_words(cage, boss):
    anna = make_player(name="Anna")
    exclusion_record(player_id=anna.pk, kind="barred", reason="Cheating", by=boss.user)
    entries = Entry.objects.count()

    page = cage.post(f"/cage/players/{anna.pk}/deposit/",
                     {"deposit-amount": "100.00", "deposit-reference": "slip"})

    assert page.status_code == 409
    text = _text(page)
    assert "Anna is barred for good and cannot deposit at the cage." in text
    assert "player_excluded" not in text
    assert Entry.objects.count() == entries and player_balance(anna).posted == 0


def test_the_pit_boss_seats_an_excluded_player_and_reads_why_not(boss, table):
    anna = make_player(name="Anna")
    exclusion_record(player_id=anna.pk, kind="self", reason="Asked", by=boss.user)

    page = boss.post(f"/tables/{table.pk}/seats/", {"number": 1, "player": anna.pk},
                     headers=HTMX)

    text = _text(page)
    assert "Anna is self-excluded for good and cannot be seated." in text
    assert "player_excluded" not in text
    assert not Seat.objects.filter(player=anna).exists()


def test_the_table_screen_refuses_a_seated_excluded_players_wager_buy_in_and_bank(
        boss, table, seat_player, pit_boss):
    anna = seat_player(table, 1, name="Anna", funds=10_000)
    seat_player(table, 2)
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    exclusion_record(player_id=anna.pk, kind="barred", reason="Cheating", by=pit_boss)
    entries = Entry.objects.count()

    # the screen says so before anyone tries
    assert ("Anna (seat 1) is barred for good: no further wager, buy-in or bank; a pit boss "
            "unseats them.") in _text(boss.get(f"/tables/{table.pk}/"))
    wager = _text(boss.post(f"/rounds/{round_.pk}/wagers/", {"seat": 1, "amount": "10.00"},
                            headers=HTMX))
    buy_in = _text(boss.post(f"/tables/{table.pk}/buy-ins/", {"seat": 1, "amount": "50.00"},
                             headers=HTMX))
    services.wager_place(round_id=round_.pk, seat=2, amount=1_000, by=pit_boss)
    bank = _text(boss.post(f"/rounds/{round_.pk}/banker/", {"seat": 1}, headers=HTMX))

    assert "Anna is barred for good and cannot place a wager." in wager
    assert "Anna is barred for good and cannot buy in." in buy_in
    assert "Anna is barred for good and cannot take the bank." in bank
    assert Entry.objects.count() == entries
    assert player_balance(anna).held == 0
    round_.refresh_from_db()
    assert round_.state == Round.State.BETTING


def test_a_barring_is_lifted_from_the_page_by_a_pit_boss_not_by_the_cage(boss, cage):
    anna = make_player(name="Anna")
    barred = exclusion_record(player_id=anna.pk, kind="barred", reason="Cheating",
                              by=boss.user)

    refused = _text(cage.post(f"/exclusions/{barred.pk}/lift/", {"reason": "Please"},
                              follow=True))
    assert "Nothing was lifted: Your role may not lift a barring." in refused
    lifted = _text(boss.post(f"/exclusions/{barred.pk}/lift/", {"reason": "Reviewed"},
                             follow=True))

    assert f"Exclusion #{barred.pk} of Anna is lifted." in lifted
    barred.refresh_from_db()
    assert (barred.lifted_by, barred.lift_reason) == (boss.user, "Reviewed")


def test_lifting_a_self_exclusion_from_the_player_page_waits_for_a_second_person(cage, boss):
    anna = make_player(name="Anna")
    own = exclusion_record(player_id=anna.pk, kind="self", reason="Asked", by=cage.user)

    page = _text(cage.post(f"/exclusions/{own.pk}/lift/",
                           {"from": "player", "reason": "Asked again"}, follow=True))

    assert "needs a second person" in page and "Until then it holds." in page
    assert "Lift asked by carl: waits for a second person" in page
    request = Approval.objects.get(action="casino.exclusion_lift")
    own.refresh_from_db()
    assert own.lifted_at is None
    boss.post(f"/approvals/{request.pk}/decide/", {"decision": "approve", "note": ""})
    own.refresh_from_db()
    assert (own.lifted_by, own.lift_approved_by) == (cage.user, boss.user)


def test_the_dealer_has_no_exclusions_page(boss):
    dealer = _signed_in("dana", roles.DEALER)

    assert dealer.get("/exclusions/").status_code == 403
    assert "Exclusions" in _text(boss.get("/exclusions/"))
