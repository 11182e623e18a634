"""The ledger's endpoints: thin — parse, call one selector or service, render."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.shared import approvals
from casino.shared.api.approvals import approval_response
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.serializers import ApprovalOutput, ErrorOutput
from ledger import selectors
from ledger.api.serializers import AccountOutput, EntryOutput, HoldOutput, ReverseInput
from ledger.models import Account, Entry, Hold

ERRORS = {400: ErrorOutput, 401: ErrorOutput, 403: ErrorOutput}


class AccountFilters(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Account.Kind.choices, required=False)
    currency = serializers.CharField(max_length=3, required=False)
    ref = serializers.CharField(max_length=100, required=False)


class EntryFilters(serializers.Serializer):
    account = serializers.IntegerField(required=False, min_value=1)
    ref = serializers.CharField(max_length=100, required=False)
    round = serializers.IntegerField(required=False, min_value=1,
                                     help_text='Shorthand for ref "round:<id>".')
    kind = serializers.CharField(max_length=40, required=False)
    created_after = serializers.DateTimeField(required=False, help_text="Inclusive.")
    created_before = serializers.DateTimeField(required=False, help_text="Exclusive.")


class HoldFilters(serializers.Serializer):
    account = serializers.IntegerField(required=False, min_value=1)
    status = serializers.ChoiceField(choices=Hold.Status.choices, required=False)
    ref = serializers.CharField(max_length=100, required=False)


HOUSE = "ledger.view_house_accounts"


def _players_only(request: Request) -> bool:
    """The cage reads players' accounts, not the house's (bankrolls, commission, cage)."""
    return not request.user.has_perm(HOUSE)


def _filters(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    filters = serializer_class(data=request.query_params)
    filters.is_valid(raise_exception=True)
    return dict(filters.validated_data)


@extend_schema(summary="List ledger accounts with their balances",
               description="Without ledger.view_house_accounts (the cage): players' accounts "
                           "only.", parameters=[AccountFilters],
               responses={200: AccountOutput(many=True), **ERRORS})
class AccountListView(generics.ListAPIView):
    permission_classes = [requires("ledger.view_account")]
    serializer_class = AccountOutput

    def get_queryset(self) -> QuerySet[Account]:
        return selectors.account_list(**_filters(AccountFilters, self.request),
                                      players_only=_players_only(self.request))


@extend_schema(summary="List ledger entries, newest first",
               description="Without ledger.view_house_accounts (the cage): only the entries "
                           "that move a player's account.", parameters=[EntryFilters],
               responses={200: EntryOutput(many=True), **ERRORS})
class EntryListView(generics.ListAPIView):
    permission_classes = [requires("ledger.view_entry")]
    serializer_class = EntryOutput

    def get_queryset(self) -> QuerySet[Entry]:
        filters = _filters(EntryFilters, self.request)
        round_id = filters.pop("round", None)
        if round_id is not None:
            filters["ref"] = f"round:{round_id}"
        if "account" in filters:
            filters["account_id"] = filters.pop("account")
        return selectors.entry_list(**filters, players_only=_players_only(self.request))


class EntryDetailView(APIView):
    permission_classes = [requires("ledger.view_entry")]

    @extend_schema(summary="One ledger entry with its lines",
                   responses={200: EntryOutput, 404: ErrorOutput, **ERRORS})
    def get(self, request: Request, entry_id: int) -> Response:
        return Response(EntryOutput(selectors.entry_get(
            entry_id=entry_id, players_only=_players_only(request))).data)


class EntryReverseView(APIView):
    permission_classes = [requires("ledger.reverse_entry")]
    # Every refused reversal leaves a trace (casino.shared.refusals).
    refusal_action = "ledger.entry_reverse"
    refusal_ref = "entry:{entry_id}"

    @extend_schema(
        summary="Reverse an entry (a new entry with its lines negated)",
        description="Once per entry; the reason is required. Send an Idempotency-Key to "
                    "retry safely. Refused (409): an entry owned by a flow (`owned_entry`: a "
                    "round's settlement is reversed with its round, a deposit or withdrawal "
                    "is corrected at the cage; the error says where), a reversal "
                    "(`reversal_not_reversible`: post a new movement instead), an entry "
                    "already reversed (`already_reversed`). With dual control on, the "
                    "answer is 202 with a pending request that a second person approves.",
        parameters=[OpenApiParameter("Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER)],
        request=ReverseInput,
        responses={201: EntryOutput, 202: ApprovalOutput, 404: ErrorOutput, 409: ErrorOutput,
                   422: ErrorOutput, **ERRORS},
    )
    def post(self, request: Request, entry_id: int) -> Response:
        data = ReverseInput(data=request.data)
        data.is_valid(raise_exception=True)
        done = approvals.action_submit(
            action="ledger.entry_reverse",
            params={"entry_id": entry_id, "reason": data.validated_data["reason"]},
            by=acting_user(request))
        if done.approval is not None:
            return approval_response(done.approval, status.HTTP_202_ACCEPTED)
        return Response(EntryOutput(selectors.entry_get(entry_id=done.result.pk)).data,
                        status=status.HTTP_201_CREATED)


@extend_schema(summary="List holds, newest first", parameters=[HoldFilters],
               responses={200: HoldOutput(many=True), **ERRORS})
class HoldListView(generics.ListAPIView):
    permission_classes = [requires("ledger.view_hold")]
    serializer_class = HoldOutput

    def get_queryset(self) -> QuerySet[Hold]:
        filters = _filters(HoldFilters, self.request)
        if "account" in filters:
            filters["account_id"] = filters.pop("account")
        return selectors.hold_list(**filters)
