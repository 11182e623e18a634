"""The admin for pit staff: rounds with their story, and the void and reverse actions,
through Django's test client as staff of each role (tables: test_admin_tables.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings

from casino import roles
from casino.models import Refusal
from casino.services import staff_create
from casino.shared.approvals import Approval
from ledger.models import Account, Hold
from rounds import services
from rounds.models import Round, RoundEvent, Table
from rounds.templatetags.cards import cards_html

pytestmark = pytest.mark.django_db

ROUNDS = "/admin/rounds/round/"
TABLES = "/admin/rounds/table/"

# The rules page's players A, B and C against the dealer's 5 5 T 4 2 / K Q (house-banked).
DEALT = {
    "dealer": "5S 5H TD 4C 2S KD QC",
    "1": "AH TS 9C 6D 3H KS QH",
    "2": "KC JC 8C 6C 3C AS 2D",
    "3": "5D 5C JH 8S 3D KH QD",
}
SET = {"1": ("AH TS 9C 6D 3H", "KS QH"), "2": ("KC JC 8C 6C 3C", "AS 2D"),
       "3": ("5D 5C JH 8S 3D", "KH QD")}


def login(role: str) -> Client:
    user, _ = staff_create(username=f"admin-{role}", role=role,
                           password="a long pit password 2024")
    client = Client()
    client.force_login(user)
    client.user = user  # type: ignore[attr-defined]
    return client


@pytest.fixture
def boss() -> Client:
    return login(roles.PIT_BOSS)


@pytest.fixture
def players(table, seat_player) -> list[Any]:
    return [seat_player(table, n, funds=10_000) for n in (1, 2, 3)]


def open_round_with_wagers(table: Table, by: Any) -> Round:
    round_ = services.round_open(table_id=table.pk, by=by)
    for seat in (1, 2, 3):
        services.wager_place(round_id=round_.pk, seat=seat, amount=2_000, by=by)
    return round_


def played_round(table: Table, by: Any) -> Round:
    """The A/B/C example, recorded from a physical table and settled: A loses, B wins."""
    round_ = open_round_with_wagers(table, by)
    services.banker_set(round_id=round_.pk, house=True, by=by)
    services.round_deal(round_id=round_.pk, hands=DEALT, by=by)
    for position, (high, low) in SET.items():
        services.hand_set(round_id=round_.pk, position=position, high=high, low=low, by=by)
    return services.round_settle(round_id=round_.pk, by=by)


def action(client: Client, name: str, rounds: list[Round], **extra: str) -> Any:
    return client.post(ROUNDS, {"action": name, "_selected_action": [r.pk for r in rounds],
                                **extra}, follow="post" in extra)


def change_form_data(response: Any, **changes: Any) -> dict[str, Any]:
    """What the browser would post back from a change page, with ``changes`` applied."""
    form = response.context["adminform"].form
    data: dict[str, Any] = {}
    for name in form.fields:
        value = changes.get(name, form[name].value())
        if value is True:
            data[name] = "on"
        elif value not in (None, False):
            data[name] = value
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        for name in formset.management_form.fields:
            data[formset.management_form.add_prefix(name)] = formset.management_form[name].value()
        for subform in formset.forms:
            for name in subform.fields:
                value = subform[name].value()
                if value is not None:
                    data[subform.add_prefix(name)] = value
    return data


def shown_messages(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


# --- rounds: the story ---------------------------------------------------------------------

def test_a_played_round_shows_its_story_with_suit_symbols_and_ledger_links(
    boss, table, players, pit_boss
):
    round_ = played_round(table, pit_boss)

    listing = boss.get(ROUNDS)
    page = boss.get(f"{ROUNDS}{round_.pk}/change/")

    assert listing.status_code == 200 and table.name in listing.content.decode()
    assert page.status_code == 200
    html = page.content.decode()
    # the cards in the rules' notation with suit symbols, hearts and diamonds in red (the
    # one card filter's markup), as dealt and as set
    assert cards_html("AH TS 9C 6D 3H KS QH") in html
    assert cards_html("KC JC 8C 6C 3C") in html and cards_html("AS 2D") in html
    assert cards_html("5S 5H TD 4C 2S") in html and cards_html("KD QC") in html
    assert '<span class="card card-red" data-card="AH">A♥</span>' in html
    assert '<span class="card card-black" data-card="TS">T♠</span>' in html
    # the settlement: A loses 20, B wins 20 less 1.00 commission, C pushes
    assert "-20.00 EUR" in html and "+19.00 EUR" in html and "1.00 EUR" in html
    assert f'href="/admin/ledger/entry/{round_.entry_id}/change/"' in html
    # the event log, who and what
    assert "hand_set" in html and "settled" in html and pit_boss.username in html


def test_an_electronic_deal_shows_dice_and_deal_order(boss, table, players, pit_boss):
    round_ = open_round_with_wagers(table, pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    round_ = services.round_deal(round_id=round_.pk, by=pit_boss)

    html = boss.get(f"{ROUNDS}{round_.pk}/change/").content.decode()

    assert round_.dice is not None and round_.deal_order is not None
    assert f"(total {sum(round_.dice)})" in html
    assert " → ".join(round_.deal_order) in html
    # the three players' seven cards each; the dealer's stay hidden until they are set
    assert html.count('class="card card-') >= 3 * 7  # the joker too, which has no suit
    assert "hidden until every player hand is set" in html


def test_an_auditor_sees_rounds_tables_and_the_ledger_but_cannot_act(table, players, pit_boss):
    round_ = played_round(table, pit_boss)
    auditor = login(roles.AUDITOR)

    for url in (ROUNDS, f"{ROUNDS}{round_.pk}/change/", TABLES, f"{TABLES}{table.pk}/change/",
                f"/admin/ledger/entry/{round_.entry_id}/change/"):
        assert auditor.get(url).status_code == 200, url
    assert "void_selected" not in auditor.get(ROUNDS).content.decode()


def test_nobody_adds_changes_or_deletes_rounds_in_the_admin(boss, table, players, pit_boss):
    round_ = played_round(table, pit_boss)
    superuser, _ = staff_create(username="root", role=roles.PIT_BOSS, superuser=True)
    root = Client()
    root.force_login(superuser)

    for client in (boss, root):
        assert client.get(f"{ROUNDS}add/").status_code == 403
        assert client.post(f"{ROUNDS}{round_.pk}/delete/", {"post": "yes"}).status_code == 403
        assert client.post(f"{ROUNDS}{round_.pk}/change/", {"state": "voided"}).status_code \
            == 403
    round_.refresh_from_db()
    assert round_.state == Round.State.SETTLED


# --- rounds: void and reverse --------------------------------------------------------------

def test_voiding_asks_for_a_reason_then_voids_and_releases_every_hold(
    boss, table, players, pit_boss
):
    round_ = open_round_with_wagers(table, pit_boss)
    holds = list(round_.wagers.values_list("hold_id", flat=True))

    # the first step shows the confirmation page and changes nothing
    confirm = action(boss, "void_selected", [round_])
    assert confirm.status_code == 200 and 'name="reason"' in confirm.content.decode()
    round_.refresh_from_db()
    assert round_.state == Round.State.BETTING

    done = action(boss, "void_selected", [round_], post="yes", reason="dealer misdeal")

    assert done.status_code == 200
    round_.refresh_from_db()
    assert round_.state == Round.State.VOIDED and round_.closed_reason == "dealer misdeal"
    assert set(Hold.objects.filter(pk__in=holds).values_list("status", flat=True)) == {
        Hold.Status.RELEASED}
    assert any("voided" in m for m in shown_messages(done))
    assert RoundEvent.objects.filter(round=round_, kind="voided", by=boss.user).exists()


def test_voiding_without_a_reason_shows_the_form_again(boss, table, players, pit_boss):
    round_ = open_round_with_wagers(table, pit_boss)

    response = action(boss, "void_selected", [round_], post="yes", reason="  ")

    assert response.status_code == 200 and "This field is required" in response.content.decode()
    round_.refresh_from_db()
    assert round_.state == Round.State.BETTING


def test_a_round_that_cannot_be_voided_is_reported_and_the_others_are_voided(
    boss, make_table, seat_player, pit_boss
):
    # given a settled round at one table and an open round at another
    settled_table, open_table = make_table(), make_table()
    for t in (settled_table, open_table):
        for n in (1, 2, 3):
            seat_player(t, n, funds=10_000)
    settled = played_round(settled_table, pit_boss)
    open_ = open_round_with_wagers(open_table, pit_boss)

    response = action(boss, "void_selected", [settled, open_], post="yes", reason="audit")

    assert response.status_code == 200
    text = shown_messages(response)
    assert (f"{settled} was not voided: Cannot void: round {settled.number} is settled; this "
            "can be done only while it is taking wagers, waiting for the deal or dealt."
            in text)
    assert f"{open_} voided." in text
    settled.refresh_from_db()
    open_.refresh_from_db()
    assert (settled.state, open_.state) == (Round.State.SETTLED, Round.State.VOIDED)


def test_reversing_a_settled_round_posts_the_reversing_entry(boss, table, players, pit_boss):
    round_ = played_round(table, pit_boss)
    before = list(Account.objects.filter(kind="player").order_by("pk")
                  .values_list("posted", flat=True))

    response = action(boss, "reverse_selected", [round_], post="yes",
                      reason="wrong hands recorded")

    assert response.status_code == 200
    round_.refresh_from_db()
    assert round_.state == Round.State.REVERSED and round_.reversal_entry_id is not None
    after = list(Account.objects.filter(kind="player").order_by("pk")
                 .values_list("posted", flat=True))
    assert after == [10_000, 10_000, 10_000] != before
    html = boss.get(f"{ROUNDS}{round_.pk}/change/").content.decode()
    assert f'href="/admin/ledger/entry/{round_.reversal_entry_id}/change/"' in html


def test_a_dealer_neither_sees_nor_can_use_the_void_action(table, players, pit_boss):
    round_ = open_round_with_wagers(table, pit_boss)
    dealer = login(roles.DEALER)

    listing = dealer.get(ROUNDS)
    response = action(dealer, "void_selected", [round_], post="yes", reason="not mine")

    assert listing.status_code == 200
    assert "void_selected" not in listing.content.decode()
    assert "reverse_selected" not in listing.content.decode()
    assert response.status_code in (200, 302)
    round_.refresh_from_db()
    assert round_.state == Round.State.BETTING


@override_settings(CASINO_DUAL_CONTROL=True)
def test_with_dual_control_the_reverse_action_files_a_request(boss, table, players, pit_boss):
    round_ = played_round(table, pit_boss)

    response = action(boss, "reverse_selected", [round_], post="yes", reason="wrong hands")

    assert any("waits for a second person's approval" in m for m in shown_messages(response))
    round_.refresh_from_db()
    assert round_.state == Round.State.SETTLED and round_.reversal_entry_id is None
    approval = Approval.objects.get()
    assert (approval.action, approval.status, approval.params["round_id"]) == (
        "rounds.reverse", "pending", round_.pk)


def test_a_refused_reverse_action_leaves_a_trace(boss, table, players, pit_boss):
    open_ = open_round_with_wagers(table, pit_boss)

    action(boss, "reverse_selected", [open_], post="yes", reason="not settled yet")

    (refusal,) = Refusal.objects.all()
    assert (refusal.action, refusal.code, refusal.ref) == (
        "rounds.reverse", "wrong_state", f"round:{open_.pk}")
    assert refusal.by is not None and refusal.by.username == "admin-pit_boss"
    open_.refresh_from_db()
    assert open_.state == Round.State.BETTING


def test_the_dealers_cards_are_hidden_in_the_admin_until_every_players_hand_is_set(
    boss, table, players, pit_boss
):
    # given a round dealt from a physical table; KD and QC are only in the dealer's hand
    round_ = open_round_with_wagers(table, pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    services.round_deal(round_id=round_.pk, hands=DEALT, by=pit_boss)
    page = f"{ROUNDS}{round_.pk}/change/"

    # then neither the hands nor the event log show the dealer's cards
    html = boss.get(page).content.decode()
    assert 'data-card="KD"' not in html and 'data-card="QC"' not in html
    assert "hidden until every player hand is set" in html
    assert 'data-card="AH"' in html  # a player's own cards are shown, to be set

    # when two of three players' hands are set, the dealer's stay hidden
    for position in ("1", "2"):
        high, low = SET[position]
        services.hand_set(round_id=round_.pk, position=position, high=high, low=low,
                          by=pit_boss)
    assert 'data-card="KD"' not in boss.get(page).content.decode()

    # when the last player's hand is set, the banker's hand shows
    high, low = SET["3"]
    services.hand_set(round_id=round_.pk, position="3", high=high, low=low, by=pit_boss)
    assert 'data-card="KD"' in boss.get(page).content.decode()

    # and once settled, the whole story shows, the deal's event included
    services.round_settle(round_id=round_.pk, by=pit_boss)
    html = boss.get(page).content.decode()
    assert "hidden while the round is in play" not in html
    assert "hidden until every player" not in html
