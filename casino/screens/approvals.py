"""Requests that wait for a second person (casino.shared.approvals), on a screen: the pit boss
reads what was asked, by whom and when, and approves or rejects it with a note; everyone
sees the requests they asked for. Each step calls one service; a refusal (one's own request,
already decided, the state changed meanwhile) is shown in words and changes nothing."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
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
    decided = [{"approval": a, "result": result_link(a)} for a in approvals.approval_list(
        user=user).exclude(status=approvals.Approval.Status.PENDING)[:SHOWN]]
    rows = [{"approval": a, "may_decide": approvals.approval_may_decide(approval=a, by=user)}
            for a in pending]
    return render(request, TEMPLATE, {"pending": rows, "decided": decided})


# What approving made, one click away: the cage's receipt of a movement, the table where a
# buy-in was credited (named by the operations' registered names, casino.services and
# rounds.approvals).
RECEIPTS = ("cage.deposit", "cage.withdrawal")
AT_THE_TABLE = ("rounds.buy_in",)


def result_link(approval: approvals.Approval) -> tuple[str, str] | None:
    """(words, URL) of what the approved request made, or None (rejected, or nothing to
    show on a screen)."""
    kind, _, made = approval.result_ref.partition(":")
    if approval.status != approvals.Approval.Status.APPROVED or not made.isdigit():
        return None
    if approval.action in RECEIPTS and kind == "entry":
        return f"Receipt #{made}", reverse("console:cage:receipt", args=[int(made)])
    if approval.action in AT_THE_TABLE:
        table_id = approval.params.get("table_id")
        return "At the table", reverse("console:table", args=[table_id])
    return None


@staff_may()
@require_POST
def approval_decide(request: HttpRequest, approval_id: int) -> HttpResponse:
    approve = request.POST.get("decision") == "approve"
    note = request.POST.get("note", "").strip()[:1000]
    try:
        decided = approvals.approval_decide(approval_id=approval_id, approve=approve,
                                            by=staff_user(request), note=note)
        verb = "approved" if approve else "rejected"
        said = f"Request #{decided.pk} is {verb}: {sentence_text(decided.summary)}"
        made = result_link(decided)
        # What approving made (a receipt), one click away from the decision.
        messages.success(request, format_html('{} <a href="{}">{}</a>', said, made[1],
                                              made[0]) if made else said)
    except DomainError as error:
        messages.error(request, error.message[:1].upper() + error.message[1:])
        refusal_trace_request(request, error,
                              action="approval.approve" if approve else "approval.reject")
    return redirect("console:approvals")
