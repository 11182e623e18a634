"""The ledger's endpoints: thin — parse, call one selector or service, render.

The error answers of every operation are in the schema by casino.shared.api.schema.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.shared import approvals
from casino.shared.api.approvals import approval_response
from casino.shared.api.examples import example
from casino.shared.api.pagination import PAGE_PARAMETERS, page_response, paginated
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.serializers import ApprovalOutput
from casino.shared.api.views import ApiView
from ledger import selectors
from ledger.api.serializers import (
    AccountFilters,
    AccountOutput,
    EntryFilters,
    EntryOutput,
    HoldFilters,
    HoldOutput,
    ReverseInput,
)

HOUSE = "ledger.view_house_accounts"


def _players_only(request: Request) -> bool:
    """The cage reads players' accounts, not the house's (bankrolls, commission, cage)."""
    return not request.user.has_perm(HOUSE)


REVERSE = [example("Reverse an entry", {"reason": "Posted to the wrong account"})]


class AccountListView(ApiView):
    query = AccountFilters
    answers_pages = True
    permission_classes = [requires("ledger.view_account")]

    @extend_schema(summary="List ledger accounts with their balances",
                   description="Without ledger.view_house_accounts (the cage): players' "
                               "accounts only.", operation_id="ledger_accounts_list",
                   parameters=[AccountFilters, *PAGE_PARAMETERS],
                   responses={200: paginated(AccountOutput(many=True),
                                             "PaginatedAccountOutputList")})
    def get(self, request: Request) -> Response:
        accounts = selectors.account_list(**self.query_values(request),
                                          players_only=_players_only(request))
        return page_response(request, self, accounts, lambda a: AccountOutput(a).data)


class EntryListView(ApiView):
    query = EntryFilters
    answers_pages = True
    permission_classes = [requires("ledger.view_entry")]

    @extend_schema(summary="List ledger entries, newest first",
                   description="Without ledger.view_house_accounts (the cage): only the "
                               "entries that move a player's account, and `account` only a "
                               "player's: a house account's is 404 `not_found`.",
                   operation_id="ledger_entries_list",
                   parameters=[EntryFilters, *PAGE_PARAMETERS],
                   responses={200: paginated(EntryOutput(many=True),
                                             "PaginatedEntryOutputList")})
    def get(self, request: Request) -> Response:
        filters = self.query_values(request)
        round_id = filters.pop("round", None)
        if round_id is not None:
            filters["ref"] = f"round:{round_id}"
        if "account" in filters:
            filters["account_id"] = filters.pop("account")
        entries = selectors.entry_list(**filters, players_only=_players_only(request))
        return page_response(request, self, entries, lambda e: EntryOutput(e).data)


class EntryDetailView(ApiView):
    permission_classes = [requires("ledger.view_entry")]

    @extend_schema(summary="One ledger entry with its lines", responses={200: EntryOutput})
    def get(self, request: Request, entry_id: int) -> Response:
        return Response(EntryOutput(selectors.entry_get(
            entry_id=entry_id, players_only=_players_only(request))).data)


class EntryReverseView(ApiView):
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
        request=ReverseInput, examples=REVERSE, responses={201: EntryOutput, 202: ApprovalOutput},
    )
    def post(self, request: Request, entry_id: int) -> Response:
        data = parse(ReverseInput, request.data)
        done = approvals.action_submit(
            action="ledger.entry_reverse",
            params={"entry_id": entry_id, "reason": data["reason"]},
            by=acting_user(request))
        if done.approval is not None:
            return approval_response(done.approval, status.HTTP_202_ACCEPTED)
        return Response(EntryOutput(selectors.entry_get(entry_id=done.result.pk)).data,
                        status=status.HTTP_201_CREATED)


class HoldListView(ApiView):
    query = HoldFilters
    answers_pages = True
    permission_classes = [requires("ledger.view_hold")]

    @extend_schema(summary="List holds, newest first", operation_id="ledger_holds_list",
                   parameters=[HoldFilters, *PAGE_PARAMETERS],
                   responses={200: paginated(HoldOutput(many=True), "PaginatedHoldOutputList")})
    def get(self, request: Request) -> Response:
        filters = self.query_values(request)
        if "account" in filters:
            filters["account_id"] = filters.pop("account")
        holds = selectors.hold_list(**filters)
        return page_response(request, self, holds, lambda h: HoldOutput(h).data)
