"""Exclusions (casino.exclusions): record one, list them, lift one. Thin: who may is asked
first, then the body is parsed, one service is called, and its record is rendered."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from casino import exclusions, selectors
from casino.api import examples as ex
from casino.models import Exclusion
from casino.shared import approvals
from casino.shared.api.approvals import approval_response
from casino.shared.api.fields import GamingDayField
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.serializers import ApprovalOutput
from casino.shared.api.views import ApiView


class ExclusionInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Exclusion.Kind.choices,
                                   help_text="self: the player asked; barred: the casino "
                                             "decided.")
    until = GamingDayField(required=False, allow_null=True, default=None,
                           help_text="The last gaming day it covers (inclusive); null or "
                                     "left out: for good.")
    starts = GamingDayField(required=False, allow_null=True, default=None,
                            help_text="The first gaming day it covers; today's by default, "
                                      "never a day gone.")
    reason = serializers.CharField(max_length=2000)


class LiftInput(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class ExclusionOutput(serializers.Serializer):
    id = serializers.IntegerField()
    player = serializers.IntegerField(source="player_id")
    player_name = serializers.CharField(source="player.name")
    kind = serializers.ChoiceField(choices=Exclusion.Kind.choices)
    starts = serializers.DateField()
    until = serializers.DateField(allow_null=True, help_text="Inclusive; null: for good.")
    reason = serializers.CharField()
    state = serializers.SerializerMethodField(
        help_text="in_force, starts_later, ended or lifted")
    in_words = serializers.SerializerMethodField(
        help_text='"Anna Meyer is self-excluded until 2027-06-01"')
    recorded_by = serializers.CharField(source="recorded_by.username")
    recorded_at = serializers.DateTimeField()
    lifted_at = serializers.DateTimeField(allow_null=True)
    lifted_by = serializers.SerializerMethodField()
    lift_reason = serializers.CharField()
    lift_approved_by = serializers.SerializerMethodField(
        help_text="The second person who approved lifting a self-exclusion before its end.")

    def get_state(self, exclusion: Exclusion) -> str:
        return exclusions.exclusion_state(exclusion)

    def get_in_words(self, exclusion: Exclusion) -> str:
        return f"{exclusion.player.name} {exclusions.exclusion_words(exclusion)}"

    def get_lifted_by(self, exclusion: Exclusion) -> str | None:
        return exclusion.lifted_by.get_username() if exclusion.lifted_by else None

    def get_lift_approved_by(self, exclusion: Exclusion) -> str | None:
        approver = exclusion.lift_approved_by
        return approver.get_username() if approver else None


class ExclusionQuery(serializers.Serializer):
    status = serializers.ChoiceField(choices=["current", "all"], default="current",
                                     required=False,
                                     help_text="current (default): in force or starting "
                                               "later; all: every one, lifted and ended too.")
    kind = serializers.ChoiceField(choices=Exclusion.Kind.choices, required=False,
                                   help_text="Only this kind; both when left out.")


def _listed(request: Request, view: ApiView, player_id: int | None = None) -> Response:
    query = view.query_values(request)
    found = exclusions.exclusion_list(current=query["status"] == "current",
                                      kind=query.get("kind", ""), player_id=player_id)
    return Response(ExclusionOutput(found, many=True).data)


class ExclusionListView(ApiView):
    query = ExclusionQuery
    permission_classes = [requires("casino.view_exclusion")]

    @extend_schema(summary="Self-excluded and barred players", operation_id="exclusions_list",
                   parameters=[ExclusionQuery],
                   responses={200: ExclusionOutput(many=True)})
    def get(self, request: Request) -> Response:
        return _listed(request, self)


class PlayerExclusionsView(ApiView):
    query = ExclusionQuery
    permission_classes = [requires("casino.view_exclusion", POST=exclusions.RECORD)]
    refusal_action = "exclusion.record"

    @extend_schema(summary="A player's exclusions", operation_id="player_exclusions_list",
                   parameters=[ExclusionQuery], responses={200: ExclusionOutput(many=True)})
    def get(self, request: Request, player_id: int) -> Response:
        selectors.player_get(player_id=player_id)  # 404 for a player unknown
        return _listed(request, self, player_id)

    @extend_schema(
        summary="Record a self-exclusion or a barring (the cage, a pit boss)",
        description="From then on every door that seats the player, takes their wager, "
                    "buy-in or deposit, or gives them the bank answers 409 "
                    "`player_excluded`. A player seated already keeps the seat but places no "
                    "further wager and takes no bank; a pit boss unseats them.",
        request=ExclusionInput, examples=ex.EXCLUSION, responses={201: ExclusionOutput})
    def post(self, request: Request, player_id: int) -> Response:
        data = parse(ExclusionInput, request.data)
        exclusion = exclusions.exclusion_record(
            player_id=player_id, kind=data["kind"], until=data["until"],
            starts=data["starts"], reason=data["reason"], by=acting_user(request))
        return Response(ExclusionOutput(exclusions.exclusion_get(exclusion_id=exclusion.pk)).data,
                        status=status.HTTP_201_CREATED)


class ExclusionLiftView(ApiView):
    permission_classes = [requires(exclusions.LIFT_SELF)]
    refusal_action = exclusions.LIFT
    refusal_ref = "exclusion:{exclusion_id}"

    @extend_schema(
        summary="Lift an exclusion, with a reason",
        description="A barring: a pit boss lifts it (200). A self-exclusion before its end: "
                    "202 with a pending request that another pit boss or cage clerk "
                    "approves (POST /api/v1/approvals/{id}/approve); until then it holds.",
        request=LiftInput, examples=ex.EXCLUSION_LIFT,
        responses={200: ExclusionOutput, 202: ApprovalOutput})
    def post(self, request: Request, exclusion_id: int) -> Response:
        by = acting_user(request)
        # Who may lift this one (a barring: a pit boss) is answered before the body is read.
        exclusions.exclusion_lift_allowed(exclusion_id=exclusion_id, by=by)
        data = parse(LiftInput, request.data)
        done = approvals.action_submit(
            action=exclusions.LIFT,
            params={"exclusion_id": exclusion_id, "reason": data["reason"]}, by=by)
        if done.approval is not None:
            return approval_response(done.approval, status.HTTP_202_ACCEPTED)
        return Response(ExclusionOutput(exclusions.exclusion_get(exclusion_id=exclusion_id)).data)
