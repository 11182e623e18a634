"""Requests waiting for a second person (casino.shared.approvals): list them, approve, reject."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from casino.shared import approvals
from casino.shared.api.examples import APPROVE, REJECT
from casino.shared.api.pagination import PAGE_PARAMETERS, page_response, paginated
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.serializers import (
    ApprovalFilters,
    ApprovalOutput,
    DecisionInput,
)
from casino.shared.api.views import ApiView

VIEW = "casino.view_approval"


def approval_response(approval: approvals.Approval, status_code: int = 200) -> Response:
    return Response(ApprovalOutput(approval).data, status=status_code)


class ApprovalListView(ApiView):
    query = ApprovalFilters
    answers_pages = True
    permission_classes = [requires(VIEW)]

    @extend_schema(summary="Requests you asked for or may decide (pending by default)",
                   description="With casino.view_all_approvals (pit bosses, auditors): every "
                               "request.", operation_id="approvals_list",
                   parameters=[ApprovalFilters, *PAGE_PARAMETERS],
                   responses={200: paginated(ApprovalOutput(many=True),
                                             "PaginatedApprovalOutputList")})
    def get(self, request: Request) -> Response:
        filters = self.query_values(request)
        requests = approvals.approval_list(user=acting_user(request), status=filters["status"])
        return page_response(request, self, requests, lambda a: ApprovalOutput(a).data)


class ApprovalDetailView(ApiView):
    permission_classes = [requires(VIEW)]

    @extend_schema(summary="One request and its decision",
                   responses={200: ApprovalOutput})
    def get(self, request: Request, approval_id: int) -> Response:
        return approval_response(approvals.approval_get(approval_id=approval_id,
                                                        user=acting_user(request)))


def _decide(request: Request, approval_id: int, *, approve: bool) -> Response:
    user = acting_user(request)
    approval = approvals.approval_get(approval_id=approval_id, user=user)  # 404: not yours
    # Who may decide it is answered before the body is read (403, not a 400 on the note).
    approvals.approval_check(approval=approval, by=user)
    data = parse(DecisionInput, request.data)
    return approval_response(approvals.approval_decide(
        approval_id=approval_id, approve=approve, by=user, note=data["note"]))


class ApprovalApproveView(ApiView):
    permission_classes = [requires(VIEW)]
    # A refused approval (one's own request, no right, the operation refused) is traced.
    refusal_action = "approval.approve"
    refusal_ref = "approval:{approval_id}"

    @extend_schema(
        summary="Approve a request: the operation runs now, as asked",
        description="Only a different person holding the operation's approving permission "
                    "(403 `own_request` for the person who asked). A request whose asker was "
                    "deactivated or no longer holds the right to ask does not run "
                    "(409 `asker_not_allowed`). The operation's own refusals (409) leave the "
                    "request pending, to be rejected.",
        request=DecisionInput, examples=APPROVE, responses={200: ApprovalOutput})
    def post(self, request: Request, approval_id: int) -> Response:
        return _decide(request, approval_id, approve=True)


class ApprovalRejectView(ApiView):
    permission_classes = [requires(VIEW)]
    refusal_action = "approval.reject"  # as the console's approvals screen names it
    refusal_ref = "approval:{approval_id}"

    @extend_schema(summary="Reject a request: nothing happens",
                   request=DecisionInput, examples=REJECT, responses={200: ApprovalOutput})
    def post(self, request: Request, approval_id: int) -> Response:
        return _decide(request, approval_id, approve=False)
