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
from casino.api.permissions import acting_user, requires
from casino.models import Currency, Player
from ledger.api.fields import PositiveAmountField
from ledger.api.serializers import BalanceOutput, EntryOutput, ErrorOutput, balance_data
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


class PlayerDepositView(APIView):
    permission_classes = [requires("casino.deposit_funds")]

    @extend_schema(summary="Take a deposit at the cage", request=CashInput,
                   parameters=[IDEMPOTENCY_KEY],
                   responses={201: EntryOutput, 404: ErrorOutput, 422: ErrorOutput, **ERRORS})
    def post(self, request: Request, player_id: int) -> Response:
        player, data = _cash_input(request, player_id)
        entry = services.player_deposit(player_id=player.pk, amount=data["amount"],
                                        reference=data["reference"], by=acting_user(request))
        return Response(EntryOutput(entry_get(entry_id=entry.pk)).data,
                        status=status.HTTP_201_CREATED)


class PlayerWithdrawalView(APIView):
    permission_classes = [requires("casino.withdraw_funds")]

    @extend_schema(summary="Pay out a withdrawal at the cage",
                   description="Never more than the available balance (posted less held): "
                               "409 insufficient_funds with the available amount otherwise.",
                   request=CashInput, parameters=[IDEMPOTENCY_KEY],
                   responses={201: EntryOutput, 404: ErrorOutput, 409: ErrorOutput,
                              422: ErrorOutput, **ERRORS})
    def post(self, request: Request, player_id: int) -> Response:
        player, data = _cash_input(request, player_id)
        entry = services.player_withdraw(player_id=player.pk, amount=data["amount"],
                                         reference=data["reference"], by=acting_user(request))
        return Response(EntryOutput(entry_get(entry_id=entry.pk)).data,
                        status=status.HTTP_201_CREATED)

