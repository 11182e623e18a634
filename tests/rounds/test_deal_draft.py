"""The physical deal kept on the server as the dealer picks (issue 22): each pick written at
once, so a reload or a second screen sees it; the deck's rules refused in the one error
shape; the deal posted is the draft, which is used up in the same transaction."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from casino.shared.errors import Conflict, ValidationFailed
from rounds.models import DealDraft, Hand, Round, RoundEvent
from rounds.services import deal_draft as drafts

pytestmark = pytest.mark.django_db

DEALT = {
    "dealer": "5S 5H TD 4C 2S KD QC",
    "1": "AH TS 9C 6D 3H KS QH",
    "2": "KC JC 8C 6C 3C AS 2D",
}


@pytest.fixture
def house_round(dealer, table, seat_player) -> int:
    """A house-banked round with two wagers, waiting for its deal."""
    for n in (1, 2):
        seat_player(table, n)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "50.00")
    dealer.wager(round_id, 2, "50.00")
    dealer.banker(round_id, house=True)
    return int(round_id)


@pytest.fixture
def by(house_round):
    return Round.objects.get(pk=house_round).opened_by


def pick_all(round_id: int, by, hands: dict[str, str]) -> None:
    for position, cards in hands.items():
        for card in cards.split():
            drafts.deal_draft_pick(round_id=round_id, card=card, position=position, by=by)


def stored(round_id: int) -> list[list[str]]:
    return DealDraft.objects.get(round_id=round_id).picks


# --- the services ---------------------------------------------------------------------------

def test_a_pick_is_stored_at_once_in_the_order_picked(house_round, by):
    drafts.deal_draft_pick(round_id=house_round, card="AH", position="1", by=by)
    drafts.deal_draft_pick(round_id=house_round, card="ts", position="1", by=by)
    drafts.deal_draft_pick(round_id=house_round, card="JK", position="2", by=by)

    # a later read (another request, another screen) sees the same picks
    _round, draft = drafts.deal_draft_get(round_id=house_round)
    assert draft.hands == {"dealer": [], "1": ["AH", "TS"], "2": ["JK"]}
    assert draft.last == ("2", "JK")
    assert stored(house_round) == [["1", "AH"], ["1", "TS"], ["2", "JK"]]


def test_a_pick_without_a_position_goes_to_the_first_position_not_full(house_round, by):
    for card in ["AH", "TS", "9C", "6D", "3H", "KS", "QH", "2C"]:
        drafts.deal_draft_pick(round_id=house_round, card=card, by=by)

    _round, draft = drafts.deal_draft_get(round_id=house_round)
    positions = draft.positions
    assert draft.hands[positions[0]] == ["AH", "TS", "9C", "6D", "3H", "KS", "QH"]
    assert draft.hands[positions[1]] == ["2C"]


def test_a_card_already_picked_is_refused_and_nothing_changes(house_round, by):
    drafts.deal_draft_pick(round_id=house_round, card="AS", position="1", by=by)

    with pytest.raises(Conflict) as refused:
        drafts.deal_draft_pick(round_id=house_round, card="as", position="2", by=by)

    assert refused.value.code == "card_already_picked"
    assert "AS is already picked (for seat 1)" in refused.value.message
    assert stored(house_round) == [["1", "AS"]]


def test_the_joker_is_one_card_too(house_round, by):
    drafts.deal_draft_pick(round_id=house_round, card="JK", position="1", by=by)
    with pytest.raises(Conflict):
        drafts.deal_draft_pick(round_id=house_round, card="JK", position="dealer", by=by)


def test_an_eighth_card_for_a_position_is_refused(house_round, by):
    pick_all(house_round, by, {"1": DEALT["1"]})

    with pytest.raises(Conflict) as refused:
        drafts.deal_draft_pick(round_id=house_round, card="2C", position="1", by=by)

    assert refused.value.code == "hand_full"
    assert len(stored(house_round)) == 7


def test_a_card_not_of_the_deck_or_a_position_not_in_play_is_refused(house_round, by):
    with pytest.raises(ValidationFailed) as bad_card:
        drafts.deal_draft_pick(round_id=house_round, card="1X", position="1", by=by)
    with pytest.raises(ValidationFailed) as bad_position:
        drafts.deal_draft_pick(round_id=house_round, card="AS", position="5", by=by)

    assert bad_card.value.code == bad_position.value.code == "invalid_cards"
    assert not DealDraft.objects.filter(round_id=house_round).exists()


def test_undo_takes_back_the_last_pick_only(house_round, by):
    pick_all(house_round, by, {"1": "AH TS", "2": "KC"})

    draft = drafts.deal_draft_undo(round_id=house_round, by=by)

    assert draft.hands["1"] == ["AH", "TS"] and draft.hands["2"] == []
    assert stored(house_round) == [["1", "AH"], ["1", "TS"]]
    # an undo naming a card that is not the last pick (a retry) refuses
    with pytest.raises(Conflict) as refused:
        drafts.deal_draft_undo(round_id=house_round, by=by, card="KC")
    assert refused.value.code == "not_last_pick"
    assert stored(house_round) == [["1", "AH"], ["1", "TS"]]


def test_clear_takes_back_every_pick_and_undo_of_nothing_refuses(house_round, by):
    pick_all(house_round, by, {"1": "AH TS"})

    drafts.deal_draft_clear(round_id=house_round, by=by)

    assert not DealDraft.objects.filter(round_id=house_round).exists()
    with pytest.raises(Conflict) as refused:
        drafts.deal_draft_undo(round_id=house_round, by=by)
    assert refused.value.code == "draft_empty"


def test_the_posted_deal_is_the_draft_and_the_draft_is_used_up(house_round, by):
    pick_all(house_round, by, DEALT)

    drafts.round_deal_from_draft(round_id=house_round, by=by)

    round_ = Round.objects.get(pk=house_round)
    assert (round_.state, round_.deal_kind) == ("dealt", "physical")
    hands = {h.position: h.cards for h in Hand.objects.filter(round=round_)}
    assert hands == DEALT
    assert not DealDraft.objects.filter(round_id=house_round).exists()
    dealt = RoundEvent.objects.get(round=round_, kind="dealt")
    assert dealt.data["hands"] == DEALT
    # the draft is working state: the round's story has no event per pick
    assert not RoundEvent.objects.filter(round=round_, kind__contains="pick").exists()


def test_an_incomplete_draft_is_not_dealt(house_round, by):
    pick_all(house_round, by, {"1": DEALT["1"], "2": DEALT["2"]})

    with pytest.raises(Conflict) as refused:
        drafts.round_deal_from_draft(round_id=house_round, by=by)

    assert refused.value.code == "draft_incomplete"
    assert "the dealer has 0" in refused.value.message
    assert Round.objects.get(pk=house_round).state == "banker_set"
    assert len(stored(house_round)) == 14


def test_a_deal_posted_with_its_hands_also_uses_up_the_draft(dealer, house_round, by):
    pick_all(house_round, by, {"1": "AH"})

    dealer.deal(house_round, {"hands": DEALT})

    assert not DealDraft.objects.filter(round_id=house_round).exists()


def test_no_pick_after_the_deal(dealer, house_round, by):
    dealer.deal(house_round, {"hands": DEALT})

    with pytest.raises(Conflict) as refused:
        drafts.deal_draft_pick(round_id=house_round, card="2C", position="1", by=by)
    assert refused.value.code == "wrong_state"


def test_no_draft_at_a_table_without_physical_deals(dealer, make_table, seat_player):
    table = make_table(deal_modes=["electronic"])
    seat_player(table, 1)
    round_id = dealer.open_round(table)["id"]
    dealer.wager(round_id, 1, "50.00")
    dealer.banker(round_id, house=True)

    body = dealer.call("post", f"/api/v1/rounds/{round_id}/deal/draft",
                       {"card": "AS", "position": "1"}, expect=409)

    assert body["error"]["code"] == "deal_mode_not_allowed"
    assert not DealDraft.objects.filter(round_id=round_id).exists()


# --- the API --------------------------------------------------------------------------------

def url(round_id: int, tail: str = "") -> str:
    return f"/api/v1/rounds/{round_id}/deal/draft{tail}"


def test_the_api_picks_undoes_and_deals_from_the_draft(dealer, house_round):
    for position, cards in DEALT.items():
        for card in cards.split():
            body = dealer.call("post", url(house_round), {"card": card, "position": position})
    assert body["complete"] is True and body["used"] == 21
    # the bank's cards are hidden from every caller, as in the round answer (rules §4.1)
    hands = {h["position"]: h for h in body["hands"]}
    assert hands["dealer"] == {"position": "dealer", "count": 7, "cards": None}
    assert hands["1"]["cards"] == DEALT["1"].split()
    assert body["last"] == {"position": "2", "card": "2D"}

    undone = dealer.call("post", url(house_round, "/undo"), {"card": "2D"})
    assert undone["complete"] is False and undone["last"] == {"position": "2", "card": "AS"}
    again = dealer.call("post", url(house_round, "/undo"), {"card": "2D"}, expect=409)
    assert again["error"]["code"] == "not_last_pick"
    dealer.call("post", url(house_round), {"card": "2D", "position": "2"})

    round_ = dealer.call("post", url(house_round, "/deal"), {})

    assert round_["state"] == "dealt" and round_["deal"]["kind"] == "physical"
    assert {h["position"]: h["cards"] for h in round_["hands"]
            if h["cards"] is not None} == {"1": DEALT["1"].split(), "2": DEALT["2"].split()}
    assert not DealDraft.objects.filter(round_id=house_round).exists()


def test_the_api_refuses_a_card_twice_in_the_one_error_shape(dealer, house_round):
    dealer.call("post", url(house_round), {"card": "AS", "position": "1"})

    body = dealer.call("post", url(house_round), {"card": "AS", "position": "2"}, expect=409)

    assert set(body) == {"error"}
    assert body["error"]["code"] == "card_already_picked"
    assert body["error"]["detail"] == {"card": "AS", "position": "1"}
    assert dealer.call("get", url(house_round))["used"] == 1


def test_an_api_pick_retried_with_its_key_is_replayed_not_refused(dealer_client, house_round):
    first = dealer_client.post(url(house_round), {"card": "AS", "position": "1"},
                               format="json", HTTP_IDEMPOTENCY_KEY="pick-1")
    retry = dealer_client.post(url(house_round), {"card": "AS", "position": "1"},
                               format="json", HTTP_IDEMPOTENCY_KEY="pick-1")

    assert first.status_code == retry.status_code == 200
    assert retry.json() == first.json()
    assert stored(house_round) == [["1", "AS"]]


def test_the_api_clears_the_draft(dealer, house_round):
    dealer.call("post", url(house_round), {"card": "AS", "position": "1"})

    body = dealer.call("delete", url(house_round))

    assert body["used"] == 0 and body["last"] is None
    assert dealer.call("delete", url(house_round))["used"] == 0  # idempotent


def test_a_caller_who_may_not_run_rounds_cannot_read_the_draft(staff_client, house_round):
    auditor: APIClient = staff_client("auditor")

    response = auditor.get(url(house_round))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"


# --- the bank's face-down picks are named by no refusal and no screen (rules §4.1) --------------

def test_no_refusal_of_the_draft_names_a_face_down_pick(house_round, by):
    # given the dealer's seven picked, face down, and seat 1's first card
    pick_all(house_round, by, {"dealer": DEALT["dealer"], "1": "AH"})
    dealer_cards = DEALT["dealer"].split()

    # when an undo names the wrong card after a pick of the dealer's, and the incomplete
    # deal is sent
    drafts.deal_draft_undo(round_id=house_round, by=by)  # seat 1's AH: the dealer's is last
    with pytest.raises(Conflict) as undo:
        drafts.deal_draft_undo(round_id=house_round, by=by, card="2C")
    with pytest.raises(Conflict) as incomplete:
        drafts.round_deal_from_draft(round_id=house_round, by=by)
    with pytest.raises(Conflict) as twice:
        drafts.deal_draft_pick(round_id=house_round, card=dealer_cards[0], position="1", by=by)

    # then neither names a card of the dealer's, in words or in its figures, and the card
    # picked twice is refused without saying whose it is
    for refusal in (undo.value, incomplete.value):
        said = f"{refusal.message} {refusal.detail}"
        assert not any(card in said for card in dealer_cards), said
    assert incomplete.value.detail == {"counts": {"dealer": 7, "1": 0, "2": 0}}
    assert twice.value.code == "card_already_picked"
    assert "dealer" not in twice.value.message and twice.value.detail["position"] is None


def test_the_picker_greys_out_only_the_picks_it_shows(pit_boss, house_round, by):
    from rounds.round_view import round_for
    from rounds.screens import deal_picker
    from rounds.screens import selectors as screens

    pick_all(house_round, by, {"dealer": DEALT["dealer"], "1": "AH"})
    round_ = round_for(pit_boss, house_round)
    screen = screens.table_screen(table_id=round_.table_id, viewer=pit_boss)

    picker = deal_picker.picker_context(round_, screen)

    greyed = {c["code"] for c in picker["deck"] if c["used"]}
    assert greyed == {"AH"}  # the dealer's seven are not told by their absence
    assert all(row["hidden"] for row in picker["rows"] if row["position"] == "dealer")
