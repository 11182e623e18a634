"""Requests that wait for a second person (casino.shared.approvals), on a screen: the pit boss
reads what was asked, by whom and when, and approves or rejects it with a note; everyone
sees the requests they asked for. Each step calls one service; a refusal (one's own request,
already decided, the state changed meanwhile) is shown in words and changes nothing."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from casino.shared import approvals
from casino.shared.errors import DomainError
from casino.shared.guards import staff_may, staff_user
from casino.shared.refusals import refusal_trace_request
from casino.shared.templatetags.words import sentence_text

TEMPLATE = "casino/screens/approvals/list.html"
SHOWN = 100  # the newest decided requests shown below the pending ones


@staff_may()
@require_GET
def approval_list(request: HttpRequest) -> HttpResponse:
    user = staff_user(request)
    pending = list(approvals.approval_list(user=user, status=approvals.Approval.Status.PENDING))
    decided = list(approvals.approval_list(user=user).exclude(
        status=approvals.Approval.Status.PENDING)[:SHOWN])
    rows = [{"approval": a, "may_decide": approvals.approval_may_decide(approval=a, by=user)}
            for a in pending]
    return render(request, TEMPLATE, {"pending": rows, "decided": decided})


@staff_may()
@require_POST
def approval_decide(request: HttpRequest, approval_id: int) -> HttpResponse:
    approve = request.POST.get("decision") == "approve"
    note = request.POST.get("note", "").strip()[:1000]
    try:
        decided = approvals.approval_decide(approval_id=approval_id, approve=approve,
                                            by=staff_user(request), note=note)
        verb = "approved" if approve else "rejected"
        messages.success(request, f"Request #{decided.pk} is {verb}: "
                                  f"{sentence_text(decided.summary)}")
    except DomainError as error:
        messages.error(request, error.message[:1].upper() + error.message[1:])
        refusal_trace_request(request, error,
                              action="approval.approve" if approve else "approval.reject")
    return redirect("console:approvals")
