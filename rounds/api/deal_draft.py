"""The physical deal being recorded, through the API (a card-reading shoe, another system):
the same draft and the same services as the console's card picker
(rounds.services.deal_draft). Every write is a POST that takes an Idempotency-Key, or the
DELETE that clears, which is idempotent by itself."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.views import ApiView
from rounds.api import examples as ex
from rounds.api.serializers import RoundOut
from rounds.models import POSITIONS, Round
from rounds.round_view import round_for
from rounds.services import deal_draft as drafts

RUN = "rounds.run_rounds"


class DraftHandOut(serializers.Serializer):
    position = serializers.CharField()
    count = serializers.IntegerField(help_text="Cards picked so far (0 to 7).")
    cards = serializers.ListField(
        child=serializers.CharField(), allow_null=True,
        help_text="The cards in the order picked; null for the bank's positions (the "
                  "dealer's, a player-banker's): game protection, rules §4.1.")


class DraftLastOut(serializers.Serializer):
    position = serializers.CharField()
    card = serializers.CharField(allow_null=True, help_text="null if the bank's.")


class DraftOut(serializers.Serializer):
    round = serializers.IntegerField()
    hands = DraftHandOut(many=True)
    last = DraftLastOut(allow_null=True, help_text="The pick an undo takes back.")
    used = serializers.IntegerField(help_text="Cards picked, of the 53.")
    complete = serializers.BooleanField(help_text="Every position in play has seven cards.")


class PickIn(serializers.Serializer):
    card = serializers.CharField(max_length=3, help_text='"AS", "TD", "JK" (the joker)')
    position = serializers.ChoiceField(
        choices=POSITIONS, required=False,
        help_text="Without it, the first position in play with fewer than seven cards.")


class UndoIn(serializers.Serializer):
    card = serializers.CharField(
        max_length=3, required=False,
        help_text="The last card picked, if the caller knows it: a retried undo then "
                  "refuses (409 not_last_pick) instead of taking back a second card.")


def draft_data(round_: Round, draft: drafts.Draft) -> dict[str, Any]:
    hidden = drafts.deal_draft_hidden_positions(round_)
    last = None
    if draft.last is not None:
        position, card = draft.last
        last = {"position": position, "card": None if position in hidden else card}
    return {
        "round": round_.pk,
        "hands": [{"position": p, "count": len(draft.hands[p]),
                   "cards": None if p in hidden else draft.hands[p]} for p in draft.positions],
        "last": last, "used": len(draft.used), "complete": draft.complete,
    }


def _answer(round_id: int) -> Response:
    round_, draft = drafts.deal_draft_get(round_id=round_id)
    return Response(DraftOut(draft_data(round_, draft)).data)


class DealDraftView(ApiView):
    permission_classes = [requires(RUN)]

    @extend_schema(summary="The physical deal being recorded: the cards picked so far",
                   responses={200: DraftOut})
    def get(self, request: Request, round_id: int) -> Response:
        return _answer(round_id)

    @extend_schema(summary="Pick one card for a position of a physical deal",
                   description="Each of the 53 cards once (409 card_already_picked), seven "
                               "a position (409 hand_full).",
                   request=PickIn, examples=ex.PICK, responses={200: DraftOut})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(PickIn, request.data)
        drafts.deal_draft_pick(round_id=round_id, card=data["card"],
                               position=data.get("position"), by=acting_user(request))
        return _answer(round_id)

    @extend_schema(summary="Take back every card picked: start the recording again",
                   responses={200: DraftOut})
    def delete(self, request: Request, round_id: int) -> Response:
        drafts.deal_draft_clear(round_id=round_id, by=acting_user(request))
        return _answer(round_id)


class DealDraftUndoView(ApiView):
    permission_classes = [requires(RUN)]

    @extend_schema(summary="Take back the last card picked", request=UndoIn, examples=ex.UNDO,
                   responses={200: DraftOut})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(UndoIn, request.data)
        drafts.deal_draft_undo(round_id=round_id, card=data.get("card"),
                               by=acting_user(request))
        return _answer(round_id)


class DealDraftPostView(ApiView):
    permission_classes = [requires(RUN)]
    # A refused deal (an insolvent banker, ...) leaves a trace, as POST .../deal does.
    refusal_action = "round_deal"
    refusal_ref = "round:{round_id}"

    @extend_schema(summary="Deal: post the physical deal the draft holds",
                   description="The banker's cover is checked and held first; the draft is "
                               "used up in the same transaction (409 draft_incomplete until "
                               "every position has seven cards).",
                   request=None, responses={200: RoundOut})
    def post(self, request: Request, round_id: int) -> Response:
        drafts.round_deal_from_draft(round_id=round_id, by=acting_user(request))
        shown = round_for(acting_user(request), round_id)
        return Response(RoundOut(shown, context={"currency": shown.currency}).data)
