"""A table's round history on the console: its rounds by gaming day, a page at a time; each
round's page (its story in order, its settlement checked against the ledger) and the pit
boss's reversal from there, through the same approval path as the API and the admin."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from casino import roles
from casino.models import Refusal
from casino.selectors import player_account_ref
from casino.services import staff_create
from casino.shared.approvals import Approval
from casino.shared.gaming_day import gaming_day_of
from casino.shared.templatetags.money import money_text
from ledger.models import Account, Entry, Line
from rounds import services
from rounds.models import Round, RoundParty, Table
from rounds.screens.history_selectors import ROUNDS_PER_PAGE
from rounds.templatetags.cards import card_html, cards_html
from tests.conftest import played_rounds_rewritten
from tests.rounds.conftest import balances

pytestmark = pytest.mark.django_db

# The rules page's players A, B and C against the dealer's 5 5 T 4 2 / K Q (house-banked):
# A loses, B wins, C pushes (tests/rounds/test_admin.py plays the same round in the admin).
DEALT = {
    "dealer": "5S 5H TD 4C 2S KD QC",
    "1": "AH TS 9C 6D 3H KS QH",
    "2": "KC JC 8C 6C 3C AS 2D",
    "3": "5D 5C JH 8S 3D KH QD",
}
SET = {"1": ("AH TS 9C 6D 3H", "KS QH"), "2": ("KC JC 8C 6C 3C", "AS 2D"),
       "3": ("5D 5C JH 8S 3D", "KH QD")}


def login(role: str, name: str) -> Client:
    user, _ = staff_create(username=name, role=role)
    client = Client()
    client.force_login(user)
    client.user = user  # type: ignore[attr-defined]
    return client


@pytest.fixture
def players(table, seat_player) -> list[Any]:
    return [seat_player(table, n, funds=10_000, name=name)
            for n, name in ((1, "Anna"), (2, "Bram"), (3, "Cor"))]


def played_round(table: Table, by: Any) -> Round:
    round_ = services.round_open(table_id=table.pk, by=by)
    for seat in (1, 2, 3):
        services.wager_place(round_id=round_.pk, seat=seat, amount=2_000, by=by)
    services.banker_set(round_id=round_.pk, house=True, by=by)
    services.round_deal(round_id=round_.pk, hands=DEALT, by=by)
    for position, (high, low) in SET.items():
        services.hand_set(round_id=round_.pk, position=position, high=high, low=low, by=by)
    return services.round_settle(round_id=round_.pk, by=by)


def voided_round(table: Table, by: Any) -> Round:
    round_ = services.round_open(table_id=table.pk, by=by)
    return services.round_void(round_id=round_.pk, reason="test", by=by)


def rounds_listed(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr data-round="(\d+)">', html)]


# --- the list ------------------------------------------------------------------------------------

def test_the_history_lists_a_gaming_days_rounds_newest_first(table, players, pit_boss):
    # given three rounds yesterday and two today
    for _ in range(5):
        voided_round(table, pit_boss)
    today = gaming_day_of()
    yesterday = today - timedelta(days=1)
    played_rounds_rewritten(Round.objects.filter(table=table, number__lte=3),
                            gaming_day=yesterday)
    client = login(roles.PIT_BOSS, "petra")

    # when the pit boss opens the history, then picks yesterday
    latest = client.get(f"/tables/{table.pk}/history/")
    older = client.get(f"/tables/{table.pk}/history/", {"day": yesterday.isoformat()})

    # then: the last day played by default, each day's rounds only, newest first
    assert latest.status_code == 200 and older.status_code == 200
    assert rounds_listed(latest.content.decode()) == [5, 4]
    assert rounds_listed(older.content.decode()) == [3, 2, 1]
    html = older.content.decode()
    assert f'href="/rounds/{Round.objects.get(table=table, number=3).pk}/"' in html
    # the picker offers the days played, with their number of rounds
    assert f'value="{yesterday.isoformat()}">3 rounds' in html
    assert f'value="{today.isoformat()}">2 rounds' in html


def test_a_busy_day_is_paged(table, pit_boss):
    for _ in range(ROUNDS_PER_PAGE + 5):
        voided_round(table, pit_boss)
    client = login(roles.PIT_BOSS, "petra")

    first = client.get(f"/tables/{table.pk}/history/").content.decode()
    second = client.get(f"/tables/{table.pk}/history/", {"page": 2}).content.decode()

    assert rounds_listed(first) == list(range(ROUNDS_PER_PAGE + 5, 5, -1))
    assert rounds_listed(second) == [5, 4, 3, 2, 1]
    assert "Older rounds" in first and "Page 1 of 2" in first
    assert "Newer rounds" in second and "Page 2 of 2" in second


def test_a_pages_queries_do_not_grow_with_its_rounds(table, players, pit_boss):
    played_round(table, pit_boss)
    client = login(roles.PIT_BOSS, "petra")
    url = f"/tables/{table.pk}/history/"
    client.get(url)  # the session and the permissions, read once
    with CaptureQueriesContext(connection) as one:
        client.get(url)
    for _ in range(ROUNDS_PER_PAGE):
        voided_round(table, pit_boss)

    with CaptureQueriesContext(connection) as full:
        response = client.get(url)

    assert len(rounds_listed(response.content.decode())) == ROUNDS_PER_PAGE
    assert len(full) == len(one)


def test_a_day_that_is_not_a_date_is_a_400_in_words(table, pit_boss):
    voided_round(table, pit_boss)
    client = login(roles.PIT_BOSS, "petra")

    response = client.get(f"/tables/{table.pk}/history/", {"day": "yesterday'--"})

    assert response.status_code == 400
    assert "Give the gaming day as a date" in response.content.decode()


def test_the_history_figures_are_the_rounds(table, players, pit_boss):
    round_ = played_round(table, pit_boss)
    client = login(roles.AUDITOR, "audrey")

    html = client.get(f"/tables/{table.pk}/history/").content.decode()

    row = re.search(r'<tr data-round="1">(.*?)</tr>', html, re.S)
    assert row is not None
    cells = row.group(1)
    assert money_text(6_000, "EUR") in cells  # three wagers of 20.00
    # the settlement's stored figures: the house bank's net, and the commission paid
    house = round_.parties.get(role=RoundParty.Role.HOUSE)
    assert money_text(house.net, "EUR") in cells
    assert money_text(sum(p.commission for p in round_.parties.all()), "EUR") in cells


# --- a round's page ------------------------------------------------------------------------------

def test_a_rounds_page_tells_its_story_and_its_settlement_as_the_ledger_has_it(
        table, players, pit_boss):
    round_ = played_round(table, pit_boss)
    client = login(roles.PIT_BOSS, "petra")

    response = client.get(f"/rounds/{round_.pk}/")

    assert response.status_code == 200
    html = response.content.decode()
    # the story, in order and in words
    story = re.search(r'<ol class="story".*?</ol>', html, re.S)
    assert story is not None
    lines = re.findall(r"<li>(.*?)</li>", story.group(0), re.S)
    steps = ["Round 1 opened", "Seat 1 · Anna wagers 20.00 EUR.",
             "Seat 2 · Bram wagers 20.00 EUR.", "Seat 3 · Cor wagers 20.00 EUR.",
             "The house banks.", "Hands recorded from a physical deal.",
             "Seat 1 · Anna: hand set", "Seat 2 · Bram: hand set", "Seat 3 · Cor: hand set",
             "Settled; the bank&#x27;s net:"]
    assert len(lines) == len(steps)
    for line, step in zip(lines, steps, strict=True):
        assert step in line
    # cards as cards, not codes
    assert cards_html("KC JC 8C 6C 3C") in html and card_html("AH") in html
    # each seat's net is the player's line in the settlement's ledger entry
    assert round_.entry_id is not None
    entry = Entry.objects.get(pk=round_.entry_id)
    assert Line.objects.filter(entry=entry, account__kind=Account.Kind.PLAYER).count() == 2
    for player in players:
        account = Account.objects.get(ref=player_account_ref(player.pk))
        # (a push moves nothing: no line)
        net = Line.objects.filter(entry=entry, account=account).values_list(
            "amount", flat=True).first() or 0
        row = re.search(rf"<th scope=\"row\">Seat \d · {player.name}</th>(.*?)</tr>", html, re.S)
        assert row is not None, player.name
        assert row.group(1).rstrip().endswith(
            f'<td class="num"><strong>{money_text(net, "EUR")}</strong></td>')
    # the bank's line is the house's, its result what the entry moved on the bankroll
    bank = re.search(r'data-testid="parties">.*?<th scope="row">The house: the bank</th>(.*?)'
                     r"</tr>", html, re.S)
    assert bank is not None
    bankroll = Line.objects.filter(entry=entry, account__kind=Account.Kind.TABLE_BANKROLL
                                   ).values_list("amount", flat=True).first() or 0
    assert bank.group(1).rstrip().endswith(
        f'<td class="num"><strong>{money_text(bankroll, "EUR")}</strong></td>')
    # the house's commission, and the entry named
    figures = re.search(r'data-testid="house-income">(.*?)</dl>', html, re.S)
    assert figures is not None
    commission = Line.objects.get(entry=entry, account__kind=Account.Kind.COMMISSION)
    assert money_text(commission.amount, "EUR") in figures.group(1)
    assert f"#{round_.entry_id}" in figures.group(1)


def test_a_round_in_play_shows_no_bank_card_stack_or_burnt_card(table, players, pit_boss):
    # given an electronic deal with every player's hand still to be set
    round_ = services.round_open(table_id=table.pk, by=pit_boss)
    for seat in (1, 2, 3):
        services.wager_place(round_id=round_.pk, seat=seat, amount=2_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    round_ = services.round_deal(round_id=round_.pk, by=pit_boss)
    dealt = round_.events.get(kind="dealt").data
    hidden = set(round_.hands.get(position="dealer").cards.split()) | set(round_.burnt.split())
    for position in dealt["discarded"]:
        hidden |= set(dealt["stacks"][position].split())
    shown = set(round_.hands.get(position="1").cards.split())
    client = login(roles.PIT_BOSS, "petra")

    html = client.get(f"/rounds/{round_.pk}/").content.decode()

    cards = set(re.findall(r'data-card="(\w+)"', html))
    assert shown <= cards
    assert not cards & hidden
    assert "Cards hidden until every player" in html


def test_a_dealer_reads_the_history_of_the_table_they_run_only(table, make_table, players,
                                                               pit_boss):
    round_ = played_round(table, pit_boss)
    other = make_table(name="Table 9")
    dealer = login(roles.DEALER, "dana")
    assert dealer.get(f"/tables/{table.pk}/history/").status_code == 403
    assert dealer.get(f"/rounds/{round_.pk}/").status_code == 403

    # the dealer runs the table from their first step of the day
    services.round_open(table_id=table.pk, by=dealer.user)  # type: ignore[attr-defined]

    assert dealer.get(f"/tables/{table.pk}/history/").status_code == 200
    page = dealer.get(f"/rounds/{round_.pk}/")
    assert page.status_code == 200 and "Reverse round" not in page.content.decode()
    assert dealer.get(f"/tables/{other.pk}/history/").status_code == 403


def test_the_cage_cannot_read_a_tables_history(table, players, pit_boss):
    round_ = played_round(table, pit_boss)
    cage = login(roles.CAGE, "carl")

    for url in (f"/tables/{table.pk}/history/", f"/rounds/{round_.pk}/"):
        response = cage.get(url)
        assert response.status_code == 403
        assert "rounds.view_round" not in response.content.decode()


# --- the reversal from the round's page ------------------------------------------------------

def test_the_pit_boss_reverses_a_round_from_its_page_and_the_money_moves_back(
        table, players, pit_boss):
    before = balances(*players)
    round_ = played_round(table, pit_boss)
    played = balances(*players)
    assert played != before
    client = login(roles.PIT_BOSS, "petra")

    response = client.post(f"/rounds/{round_.pk}/page/reverse/", {"reason": "wrong seat paid"},
                           follow=True)

    assert response.status_code == 200
    assert "Round 1 is reversed" in response.content.decode()
    round_.refresh_from_db()
    assert round_.state == Round.State.REVERSED and round_.closed_reason == "wrong seat paid"
    reversal = Entry.objects.get(reverses_id=round_.entry_id)
    assert reversal.pk == round_.reversal_entry_id
    assert reversal.created_by == client.user  # type: ignore[attr-defined]
    assert balances(*players) == before
    # the page now tells the reversal too, and offers no second one
    html = client.get(f"/rounds/{round_.pk}/").content.decode()
    assert "Reversed: every amount of the settlement moved back. Reason: wrong seat paid" in html
    assert 'action="/rounds/' not in html


def test_a_dealer_cannot_reverse_from_the_rounds_page_and_the_attempt_is_traced(
        table, players, pit_boss):
    round_ = played_round(table, pit_boss)
    played = balances(*players)
    dealer = login(roles.DEALER, "dana")
    services.round_open(table_id=table.pk, by=dealer.user)  # type: ignore[attr-defined]

    response = dealer.post(f"/rounds/{round_.pk}/page/reverse/", {"reason": "mine"})

    assert response.status_code == 403
    html = response.content.decode()
    assert "you may not reverse a settled round" in html
    assert "reverse_round" not in html
    round_.refresh_from_db()
    assert round_.state == Round.State.SETTLED
    assert balances(*players) == played
    refusal = Refusal.objects.get(by=dealer.user)  # type: ignore[attr-defined]
    assert refusal.code == "permission_denied" and refusal.ref == f"round:{round_.pk}"
    assert "reverse a settled round" in refusal.message


def test_reversing_a_voided_round_is_refused_in_words_and_traced(table, players, pit_boss):
    round_ = voided_round(table, pit_boss)
    before = balances(*players)
    client = login(roles.PIT_BOSS, "petra")

    response = client.post(f"/rounds/{round_.pk}/page/reverse/", {"reason": "wrong seat"})

    assert response.status_code == 409
    assert "This round was voided. The step was not taken." in response.content.decode()
    assert balances(*players) == before
    round_.refresh_from_db()
    assert round_.state == Round.State.VOIDED and round_.reversal_entry_id is None
    refusal = Refusal.objects.get(by=client.user)  # type: ignore[attr-defined]
    assert refusal.action == "rounds.reverse" and refusal.ref == f"round:{round_.pk}"
    assert refusal.code == "wrong_state"


def test_the_same_reversal_sent_twice_moves_the_money_back_once(table, players, pit_boss):
    before = balances(*players)
    round_ = played_round(table, pit_boss)
    client = login(roles.PIT_BOSS, "petra")

    for _ in range(2):
        client.post(f"/rounds/{round_.pk}/page/reverse/", {"reason": "wrong seat paid"})

    assert Entry.objects.filter(reverses_id=round_.entry_id).count() == 1
    assert balances(*players) == before


def test_a_reversal_without_a_reason_is_a_400_and_moves_nothing(table, players, pit_boss):
    round_ = played_round(table, pit_boss)
    played = balances(*players)
    client = login(roles.PIT_BOSS, "petra")

    response = client.post(f"/rounds/{round_.pk}/page/reverse/", {"reason": "  "})

    assert response.status_code == 400
    assert balances(*players) == played
    round_.refresh_from_db()
    assert round_.state == Round.State.SETTLED


@override_settings(CASINO_DUAL_CONTROL=True)
def test_with_dual_control_the_reversal_from_the_page_waits_for_a_second_pit_boss(
        table, players, pit_boss):
    round_ = played_round(table, pit_boss)
    played = balances(*players)
    client = login(roles.PIT_BOSS, "petra")

    response = client.post(f"/rounds/{round_.pk}/page/reverse/", {"reason": "wrong seat paid"},
                           follow=True)

    assert "waits for a second pit boss" in response.content.decode()
    approval = Approval.objects.get(action="rounds.reverse")
    assert approval.status == Approval.Status.PENDING and approval.params["round_id"] == round_.pk
    assert balances(*players) == played
    round_.refresh_from_db()
    assert round_.state == Round.State.SETTLED


def test_the_table_screen_and_the_floor_link_to_the_history(table, pit_boss):
    client = login(roles.PIT_BOSS, "petra")
    link = f'href="/tables/{table.pk}/history/"'

    assert link in client.get(f"/tables/{table.pk}/").content.decode()
    assert link in client.get("/").content.decode()


def test_an_unknown_table_or_round_is_a_404(pit_boss):
    client = login(roles.PIT_BOSS, "petra")

    assert client.get("/tables/999/history/").status_code == 404
    assert client.get("/rounds/999/").status_code == 404
    assert client.post("/rounds/999/page/reverse/", {"reason": "x"}).status_code == 404


def test_a_gaming_day_without_rounds_says_so(table, pit_boss):
    client = login(roles.PIT_BOSS, "petra")

    html = client.get(f"/tables/{table.pk}/history/",
                      {"day": date(2020, 1, 1).isoformat()}).content.decode()

    assert "No round was played" in html
