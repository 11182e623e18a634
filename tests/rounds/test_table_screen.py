"""The dealer's table screen at the pace of a dealer's hands (issue 22): wagers built from
chips and sent once, an insolvent bank resolved at the table, the focus on the next step."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from casino import roles
from casino.services import staff_create
from ledger.models import Entry, Hold
from rounds import services
from rounds.models import DealDraft, Round, RoundEvent, Wager
from rounds.screens import selectors
from rounds.services import deal_draft as drafts
from tests.rounds.conftest import available

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def console() -> Client:
    user, _ = staff_create(username="dana", role=roles.DEALER)
    client = Client()
    client.force_login(user)
    return client


def _open(table, pit_boss) -> Round:
    return services.round_open(table_id=table.pk, by=pit_boss)


# --- 1. wagers by chips that add up ----------------------------------------------------------

def test_the_amount_built_from_chips_is_the_wager_sent_once(console, pit_boss, table,
                                                            seat_player):
    anna = seat_player(table, 1)
    round_ = _open(table, pit_boss)
    # the screen's script sends the sum of the chips (25 + 5) in the amount field; the chip
    # pressed last travels too and is ignored
    page = console.post(f"/rounds/{round_.pk}/wagers/",
                       {"seat": 1, "amount": "30", "chip": "5"}, headers=HTMX)
    assert page.status_code == 200
    wager = Wager.objects.get(round=round_, state=Wager.State.ACTIVE)
    assert wager.amount == 3_000
    assert Hold.objects.get(pk=wager.hold_id).amount == 3_000
    assert available(anna) == 100_000 - 3_000


def test_a_chip_alone_is_the_wager_without_the_script(console, pit_boss, table, seat_player):
    seat_player(table, 1)
    round_ = _open(table, pit_boss)
    console.post(f"/rounds/{round_.pk}/wagers/", {"seat": 1, "chip": "25", "amount": ""})
    assert Wager.objects.get(round=round_).amount == 2_500


def test_no_amount_and_no_chip_is_refused_in_words(console, pit_boss, table, seat_player):
    seat_player(table, 1)
    round_ = _open(table, pit_boss)
    page = console.post(f"/rounds/{round_.pk}/wagers/", {"seat": 1, "amount": ""},
                       headers=HTMX).content.decode()
    assert "Type the wager, or add chips, then press Bet." in page
    assert not Wager.objects.filter(round=round_).exists()


def test_the_chip_rack_stays_with_an_undo_and_a_clear(console, pit_boss, table, seat_player):
    seat_player(table, 1)
    _open(table, pit_boss)
    page = console.get(f"/tables/{table.pk}/").content.decode()
    assert 'data-chip="25"' in page and "data-chip-undo" in page and "data-chip-clear" in page
    assert 'aria-label="Add a 25 EUR chip to seat 1"' in page
    assert "One form per seat" not in page  # the template's comment stays in the template


# --- 2. an insolvent bank resolved at the table -------------------------------------------------

def _insolvent(make_table, seat_player, pit_boss):
    """Anna (seat 1, 150.00) banks against 100.00 + 80.00: 30.00 short."""
    table = make_table(bank_rotation="open", banker_must_have_played=False)
    anna = seat_player(table, 1, funds=15_000, name="Anna")
    bram, chris = seat_player(table, 2, name="Bram"), seat_player(table, 3, name="Chris")
    round_ = _open(table, pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=10_000, by=pit_boss)
    services.wager_place(round_id=round_.pk, seat=3, amount=8_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, seat=1, house_stake=0, by=pit_boss)
    return table, round_, anna, bram, chris


def _held(round_: Round) -> list[int]:
    return sorted(Hold.objects.filter(ref=f"round:{round_.pk}", status=Hold.Status.OPEN)
                  .values_list("amount", flat=True))


def test_an_insolvent_bank_is_made_solvent_by_lowering_a_wager_through_the_api(
        dealer, make_table, seat_player, pit_boss):
    _table, round_, anna, bram, _chris = _insolvent(make_table, seat_player, pit_boss)
    assert dealer.deal(round_.pk, expect=409)["error"]["detail"]["shortfall"] == "30.00"

    # Bram's 100.00 comes down to 70.00 once the banker is set
    body = dealer.call("patch", f"/api/v1/rounds/{round_.pk}/wagers/2", {"amount": "70.00"})

    assert body["state"] == "banker_set"
    assert _held(round_) == [7_000, 8_000]
    assert available(bram) == 100_000 - 7_000
    assert RoundEvent.objects.filter(round=round_, kind="wager_lowered").count() == 1
    # the deal now holds exactly the cover of what is on the felt
    dealer.deal(round_.pk)
    assert _held(round_) == [7_000, 8_000, 15_000]
    assert available(anna) == 0


def test_a_wager_is_cleared_once_the_banker_is_set_and_its_hold_released(
        dealer, make_table, seat_player, pit_boss):
    _table, round_, anna, _bram, chris = _insolvent(make_table, seat_player, pit_boss)

    dealer.call("delete", f"/api/v1/rounds/{round_.pk}/wagers/3")

    assert _held(round_) == [10_000]
    assert available(chris) == 100_000
    dealer.deal(round_.pk)
    assert _held(round_) == [10_000, 10_000]
    assert available(anna) == 5_000


@pytest.mark.parametrize("amount", ["100.00", "120.00", "1.00", "0"])
def test_a_wager_only_comes_down_within_the_limits(dealer, make_table, seat_player, pit_boss,
                                                   amount):
    _table, round_, _anna, _bram, _chris = _insolvent(make_table, seat_player, pit_boss)
    holds = list(Hold.objects.values_list("pk", "status"))

    body = dealer.call("patch", f"/api/v1/rounds/{round_.pk}/wagers/2", {"amount": amount},
                       expect=400)

    assert body["error"]["code"] in {"out_of_limits", "invalid"}
    assert list(Hold.objects.values_list("pk", "status")) == holds


def test_no_wager_comes_down_after_the_deal(dealer, make_table, seat_player, pit_boss):
    _table, round_, _anna, _bram, _chris = _insolvent(make_table, seat_player, pit_boss)
    services.wager_clear(round_id=round_.pk, seat=3, by=pit_boss)
    dealer.deal(round_.pk)
    holds = list(Hold.objects.values_list("pk", "status"))

    dealer.call("patch", f"/api/v1/rounds/{round_.pk}/wagers/2", {"amount": "50.00"},
                expect=409)
    dealer.call("delete", f"/api/v1/rounds/{round_.pk}/wagers/2", expect=409)

    assert list(Hold.objects.values_list("pk", "status")) == holds


def test_the_screen_offers_no_deal_while_the_bank_is_short_and_lowers_a_wager(
        console, make_table, seat_player, pit_boss):
    table, round_, _anna, _bram, _chris = _insolvent(make_table, seat_player, pit_boss)

    page = console.get(f"/tables/{table.pk}/").content.decode()

    assert "Anna is 30.00 EUR short" in page
    assert "No deal yet: Anna cannot cover the wagers, 30.00 EUR short." in page
    assert 'class="big" disabled aria-describedby="deal-why">Deal</button>' in page
    assert "Clear seat 2" in page and "Lower seat 2" in page

    page = console.post(f"/rounds/{round_.pk}/wagers/2/lower/", {"amount": "70"},
                        headers=HTMX).content.decode()

    assert "Anna is 30.00 EUR short" not in page and "No deal yet" not in page
    assert '<button type="submit" class="primary big" autofocus>Deal</button>' in page
    assert _held(round_) == [7_000, 8_000]
    console.post(f"/rounds/{round_.pk}/deal/", headers=HTMX)
    round_.refresh_from_db()
    assert round_.state == Round.State.DEALT and round_.solvency_required == 15_000


def test_the_deal_picked_by_hand_is_not_recorded_while_the_bank_is_short(
        console, make_table, seat_player, pit_boss):
    table, round_, _anna, _bram, _chris = _insolvent(make_table, seat_player, pit_boss)
    _round, draft = drafts.deal_draft_get(round_id=round_.pk)
    for card in selectors.deck_codes()[:7 * len(draft.positions)]:
        drafts.deal_draft_pick(round_id=round_.pk, card=card, by=pit_boss)

    page = console.get(f"/tables/{table.pk}/").content.decode()

    # every card is picked, yet Record the deal is not offered, like Deal, and says why
    record = re.search(r"<button[^>]*data-deal[^>]*>Record the deal</button>", page)
    assert record is not None and " disabled" in record.group(0)
    assert ("The deal cannot be recorded yet: Anna cannot cover the wagers, 30.00 EUR short."
            in page)
    # and the service refuses it anyway, in words, keeping the picks
    page = console.post(f"/rounds/{round_.pk}/deal/physical/", headers=HTMX).content.decode()
    assert "Anna cannot cover the wagers: 30.00 EUR short" in page
    round_.refresh_from_db()
    assert round_.state == Round.State.BANKER_SET
    assert DealDraft.objects.filter(round=round_).exists()

    page = console.post(f"/rounds/{round_.pk}/wagers/2/lower/", {"amount": "70"},
                        headers=HTMX).content.decode()
    record = re.search(r"<button[^>]*data-deal[^>]*>Record the deal</button>", page)
    assert record is not None and " disabled" not in record.group(0)
    assert "cannot be recorded yet" not in page


def test_a_lower_refused_on_the_screen_is_in_words(console, make_table, seat_player, pit_boss):
    _table, round_, _anna, _bram, _chris = _insolvent(make_table, seat_player, pit_boss)
    page = console.post(f"/rounds/{round_.pk}/wagers/2/lower/", {"amount": "150"},
                        headers=HTMX).content.decode()
    assert "A wager of 100.00 EUR only comes down: to 2.00 EUR or more, below 100.00 EUR." \
        in page
    assert _held(round_) == [8_000, 10_000]


def test_the_house_stake_field_shows_the_stake_already_set(console, pit_boss, table,
                                                          seat_player):
    seat_player(table, 1)
    seat_player(table, 2)
    earlier = _open(table, pit_boss)
    services.wager_place(round_id=earlier.pk, seat=1, amount=5_000, by=pit_boss)
    services.banker_set(round_id=earlier.pk, house=True, by=pit_boss)
    services.round_settle(round_id=earlier.pk, outcomes={"1": "push"}, by=pit_boss)
    round_ = _open(table, pit_boss)
    services.wager_place(round_id=round_.pk, seat=2, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, seat=1, house_stake=2_500, by=pit_boss)

    page = console.get(f"/tables/{table.pk}/").content.decode()

    assert 'name="house_stake" inputmode="decimal" size="7" value="25.00"' in page


def test_after_the_deal_the_bank_panel_shows_the_bankers_available_as_the_seat_row(
        make_table, seat_player, pit_boss):
    table, round_, _anna, _bram, _chris = _insolvent(make_table, seat_player, pit_boss)
    services.wager_clear(round_id=round_.pk, seat=3, by=pit_boss)
    services.round_deal(round_id=round_.pk, by=pit_boss)
    pit = Client()
    pit.force_login(pit_boss)  # a pit boss sees the seated players' funds

    page = pit.get(f"/tables/{table.pk}/").content.decode()

    # Anna had 150.00; 100.00 of it is held for the cover: 50.00 on both
    assert "Anna has available, beside the cover held" in page
    assert '<dd data-testid="banker-available">50.00 EUR</dd>' in page
    seat_rows = re.findall(r'data-testid="available">([^<]*)<', page)
    assert seat_rows[0] == "50.00 EUR"  # seat 1, Anna's row
    assert not Entry.objects.filter(ref=f"round:{round_.pk}").exists()


# --- 4. keyboard first: the focus on the next thing to do -----------------------------------------

def _focused(page: str) -> list[str]:
    """The controls the page marks autofocus (there must be one at most)."""
    return re.findall(r'<(?:button|input)[^>]*\bautofocus\b[^>]*>', page)


def test_the_focus_goes_to_the_next_thing_to_do_after_each_step(console, pit_boss, table,
                                                               seat_player):
    seat_player(table, 1)
    seat_player(table, 2)
    (opening,) = _focused(console.get(f"/tables/{table.pk}/").content.decode())
    assert "Open the first round" not in opening  # the button's text follows the tag
    page = console.post(f"/tables/{table.pk}/rounds/open/", headers=HTMX).content.decode()
    round_ = Round.objects.get(table=table)
    (focus,) = _focused(page)
    assert 'id="amount-1"' in focus
    page = console.post(f"/rounds/{round_.pk}/wagers/", {"seat": 1, "amount": "10"},
                        headers=HTMX).content.decode()
    (focus,) = _focused(page)
    assert 'id="amount-2"' in focus  # the second seat, not seat 1 again
    page = console.post(f"/rounds/{round_.pk}/wagers/", {"seat": 2, "amount": "5"},
                        headers=HTMX).content.decode()
    (focus,) = _focused(page)
    assert re.search(r'autofocus>The house banks</button>', page)
    page = console.post(f"/rounds/{round_.pk}/banker/", {"house": "on"},
                        headers=HTMX).content.decode()
    assert re.search(r'autofocus>Deal</button>', page) and len(_focused(page)) == 1
    page = console.post(f"/rounds/{round_.pk}/deal/", headers=HTMX).content.decode()
    (focus,) = _focused(page)
    assert 'aria-label="House Way for Seat 1 · Player 1"' in focus
    page = console.post(f"/rounds/{round_.pk}/hands/1/", {"house_way": "on"},
                        headers=HTMX).content.decode()
    (focus,) = _focused(page)
    assert 'aria-label="House Way for Seat 2 · Player 2"' in focus
    page = console.post(f"/rounds/{round_.pk}/hands/2/", {"house_way": "on"},
                        headers=HTMX).content.decode()
    assert re.search(r'autofocus>Done: settle the round</button>', page)
    page = console.post(f"/rounds/{round_.pk}/settle/", headers=HTMX).content.decode()
    assert re.search(r'autofocus>New Game</button>', page) and len(_focused(page)) == 1
    round_.refresh_from_db()
    assert round_.state == Round.State.SETTLED


def test_the_shortcuts_are_shown_to_the_dealer(console, pit_boss, table):
    page = console.get(f"/tables/{table.pk}/").content.decode()
    assert "<kbd>H</kbd> House Way for the hand in focus" in page
    assert 'data-key="n"' in page


def test_a_card_picked_answers_the_picker_to_htmx_and_the_screen_to_a_plain_post(
        console, pit_boss, table, seat_player):
    # given a house-banked round with one wager, its deal to be recorded card by card
    seat_player(table, 1)
    round_ = _open(table, pit_boss)
    services.wager_place(round_id=round_.pk, seat=1, amount=1_000, by=pit_boss)
    services.banker_set(round_id=round_.pk, house=True, by=pit_boss)
    first, second = selectors.deck_codes()[:2]

    # when one card is picked through htmx and the next by a plain post
    swapped = console.post(f"/rounds/{round_.pk}/deal/draft/pick/", {"pick": first},
                           headers=HTMX)
    plain = console.post(f"/rounds/{round_.pk}/deal/draft/pick/", {"pick": second})

    # then htmx gets the picker alone, the plain post a redirect to the screen; both count
    assert swapped.status_code == 200
    page = swapped.content.decode()
    assert '<form id="picker"' in page and "<html" not in page
    assert (plain.status_code, plain["Location"]) == (302, f"/tables/{table.pk}/")
    _round, draft = drafts.deal_draft_get(round_id=round_.pk)
    assert draft.used == {first, second}
