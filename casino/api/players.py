"""Players and the cage: register players, read their balances, deposits and withdrawals."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino import selectors, services
from casino.models import Currency, Player
from casino.shared import approvals
from casino.shared.api.approvals import approval_response
from casino.shared.api.fields import PositiveAmountField
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.serializers import ApprovalOutput, ErrorOutput
from ledger.api.serializers import BalanceOutput, EntryOutput, balance_data
from ledger.selectors import entry_get

ERRORS = {400: ErrorOutput, 401: ErrorOutput, 403: ErrorOutput}
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER,
    description="Up to 255 characters; a retry with the same key and body replays the answer.",
)


class PlayerInput(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    currency = serializers.ChoiceField(choices=Currency.choices, default=Currency.EUR)


class PlayerOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    currency = serializers.CharField()
    created_at = serializers.DateTimeField()
    balance = serializers.SerializerMethodField()

    @extend_schema_field(BalanceOutput)
    def get_balance(self, player: Player) -> dict[str, str]:
        return balance_data(selectors.player_balance(player))


class CashInput(serializers.Serializer):
    amount = PositiveAmountField(help_text='A decimal string in the player\'s currency, e.g. '
                                           '"160.00" (an integer is accepted).')
    reference = serializers.CharField(max_length=200, required=False, allow_blank=True,
                                      default="", help_text="The cage's slip or receipt.")


class PlayerSearch(serializers.Serializer):
    search = serializers.CharField(required=False, allow_blank=True, default="",
                                   help_text="Part of the name, or the exact id.")


def _by_method(**perms: str) -> type[BasePermission]:
    classes = {method: requires(perm) for method, perm in perms.items()}

    class ByMethod(BasePermission):
        def has_permission(self, request: Request, view: Any) -> bool:
            permission = classes.get(request.method or "")
            return permission is not None and permission().has_permission(request, view)

    return ByMethod


class PlayerListView(generics.ListCreateAPIView):
    permission_classes = [_by_method(GET="casino.view_player", HEAD="casino.view_player",
                                     OPTIONS="casino.view_player", POST="casino.add_player")]
    serializer_class = PlayerOutput

    def get_queryset(self) -> QuerySet[Player]:
        search = PlayerSearch(data=self.request.query_params)
        search.is_valid(raise_exception=True)
        return selectors.player_list(search=search.validated_data["search"])

    @extend_schema(summary="List players with their balances", parameters=[PlayerSearch],
                   responses={200: PlayerOutput(many=True), **ERRORS})
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(summary="Register a player (opens their account)", request=PlayerInput,
                   parameters=[IDEMPOTENCY_KEY],
                   responses={201: PlayerOutput, 422: ErrorOutput, **ERRORS})
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = PlayerInput(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.player_create(**data.validated_data, by=acting_user(request))
        return Response(PlayerOutput(selectors.player_get(player_id=player.pk)).data,
                        status=status.HTTP_201_CREATED)


class PlayerDetailView(APIView):
    permission_classes = [requires("casino.view_player")]

    @extend_schema(summary="A player with their balance",
                   responses={200: PlayerOutput, 404: ErrorOutput, **ERRORS})
    def get(self, request: Request, player_id: int) -> Response:
        return Response(PlayerOutput(selectors.player_get(player_id=player_id)).data)


def _cash_input(request: Request, player_id: int) -> tuple[Player, dict[str, Any]]:
    player = selectors.player_get(player_id=player_id)
    data = CashInput(data=request.data, context={"currency": player.currency})
    data.is_valid(raise_exception=True)
    return player, dict(data.validated_data)


def _cash_move(request: Request, player_id: int, action: str) -> Response:
    player, data = _cash_input(request, player_id)
    done = approvals.action_submit(
        action=action, params={"player_id": player.pk, "amount_minor": data["amount"],
                               "reference": data["reference"]},
        by=acting_user(request))
    if done.approval is not None:
        return approval_response(done.approval, status.HTTP_202_ACCEPTED)
    return Response(EntryOutput(entry_get(entry_id=done.result.pk)).data,
                    status=status.HTTP_201_CREATED)


ABOVE_CAP = ("Above CASINO_CAGE_APPROVAL_ABOVE (10,000.00 by default) nothing moves yet: "
             "the answer is 202 with a pending request that a pit boss approves "
             "(POST /api/v1/approvals/{id}/approve).")


class PlayerDepositView(APIView):
    permission_classes = [requires("casino.deposit_funds")]

    @extend_schema(summary="Take a deposit at the cage", description=ABOVE_CAP,
                   request=CashInput, parameters=[IDEMPOTENCY_KEY],
                   responses={201: EntryOutput, 202: ApprovalOutput, 404: ErrorOutput,
                              422: ErrorOutput, **ERRORS})
    def post(self, request: Request, player_id: int) -> Response:
        return _cash_move(request, player_id, "cage.deposit")


class PlayerWithdrawalView(APIView):
    permission_classes = [requires("casino.withdraw_funds")]

    @extend_schema(summary="Pay out a withdrawal at the cage",
                   description="Never more than the available balance (posted less held): "
                               "409 insufficient_funds with the available amount otherwise. "
                               + ABOVE_CAP,
                   request=CashInput, parameters=[IDEMPOTENCY_KEY],
                   responses={201: EntryOutput, 202: ApprovalOutput, 404: ErrorOutput,
                              409: ErrorOutput, 422: ErrorOutput, **ERRORS})
    def post(self, request: Request, player_id: int) -> Response:
        return _cash_move(request, player_id, "cage.withdrawal")


class CorrectionInput(serializers.Serializer):
    entry = serializers.IntegerField(min_value=1, help_text="The deposit or withdrawal.")
    reason = serializers.CharField(max_length=2000)


class PlayerCorrectionView(APIView):
    permission_classes = [requires(services.CORRECT)]
    # Every refused correction leaves a trace (casino.shared.refusals).
    refusal_action = "cage.correction"
    refusal_ref = "player:{player_id}"

    @extend_schema(
        summary="Correct a deposit or withdrawal at the cage (its reversal, with a reason)",
        description="The only way to reverse a cage movement (the ledger's own reversal "
                    "answers 409 `owned_entry`). A correction is never corrected "
                    "(409 `reversal_not_reversible`): post a new deposit or withdrawal. With "
                    "dual control on, the answer is 202 with a pending request.",
        request=CorrectionInput, parameters=[IDEMPOTENCY_KEY],
        responses={201: EntryOutput, 202: ApprovalOutput, 404: ErrorOutput, 409: ErrorOutput,
                   422: ErrorOutput, **ERRORS})
    def post(self, request: Request, player_id: int) -> Response:
        data = CorrectionInput(data=request.data)
        data.is_valid(raise_exception=True)
        done = approvals.action_submit(
            action="cage.correction",
            params={"player_id": player_id, "entry_id": data.validated_data["entry"],
                    "reason": data.validated_data["reason"]},
            by=acting_user(request))
        if done.approval is not None:
            return approval_response(done.approval, status.HTTP_202_ACCEPTED)
        return Response(EntryOutput(entry_get(entry_id=done.result.pk)).data,
                        status=status.HTTP_201_CREATED)
