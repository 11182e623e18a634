"""A table's round history: its rounds by gaming day, each round's page (its story and its
settlement), and the pit boss's reversal from there.

Each view is thin: who may read is rounds.selectors.table_history_readable, what is shown
is rounds.screens.history_selectors, and the reversal goes through the same approval path
as the API and the admin (casino.shared.approvals, action ``rounds.reverse``), whose
service refuses what may not be done.
"""

from __future__ import annotations

from datetime import date

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from casino.shared import approvals
from casino.shared.errors import DomainError, NotFound
from casino.shared.gaming_day import gaming_day_of
from casino.shared.guards import staff_may, staff_user
from casino.shared.permissions import NotAllowed
from casino.shared.refusals import refusal_trace_request
from rounds.approvals import REVERSE as REVERSE_ACTION
from rounds.models import Round, Table
from rounds.screens import history_selectors as selectors
from rounds.screens.forms import ReasonForm
from rounds.screens.refusals import refusal_text
from rounds.screens.selectors import reverse_preview
from rounds.selectors import table_history_readable

VIEW = "rounds.view_round"
REVERSE = "rounds.reverse_round"

LIST = "rounds/screens/history.html"
PAGE = "rounds/screens/round.html"

ONLY_TABLES_RUN = ("Your role does not allow this: a dealer reads the history of the tables "
                   "they run today only. Ask a pit boss if you think it should.")


def _readable(request: HttpRequest, table_id: int) -> None:
    """Beside the views' guard (staff_may(VIEW)): the viewer may read this table's rounds."""
    user = staff_user(request)
    if not table_history_readable(table_id=table_id, user=user):
        raise NotAllowed(ONLY_TABLES_RUN, permission=VIEW)


def _table(table_id: int) -> Table:
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise Http404("no such table")
    return table


@staff_may(VIEW)
@require_GET
def table_history(request: HttpRequest, table_id: int) -> HttpResponse:
    """The table's rounds of one gaming day (``?day=``, else the last it played), newest
    first, a page at a time (``?page=``)."""
    table = _table(table_id)
    _readable(request, table_id)
    days = selectors.table_history_days(table_id=table_id)
    asked = request.GET.get("day", "").strip()
    status = 200
    try:
        day = date.fromisoformat(asked) if asked else (days[0].day if days else gaming_day_of())
    except ValueError:
        messages.error(request, f"Give the gaming day as a date, for example "
                                f"{gaming_day_of().isoformat()}.")
        day, status = (days[0].day if days else gaming_day_of()), 400
    page = selectors.table_history_page(table_id=table_id, gaming_day=day,
                                        page=request.GET.get("page"))
    context = {"table": table, "day": day, "days": days, "page": page,
               "currency": table.currency, "zone": settings.TIME_ZONE}
    return render(request, LIST, context, status=status)


def _page_context(request: HttpRequest, round_id: int, form: ReasonForm | None = None,
                  ) -> dict:
    try:
        page = selectors.round_page(round_id=round_id, viewer=staff_user(request))
    except NotFound:
        raise Http404("no such round") from None
    _readable(request, page.round.table_id)
    table = Table.objects.get(pk=page.round.table_id)
    can_reverse = request.user.has_perm(REVERSE)
    offer = can_reverse and page.round.state == Round.State.SETTLED
    return {"page": page, "round": page.round, "table": table, "currency": page.currency,
            "can_reverse": can_reverse,
            # What the reversal would move back: the settlement's entry, negated.
            "reverse_lines": reverse_preview(entry_id=page.settlement.entry_id)
            if offer and page.settlement is not None else [],
            "form": (form or ReasonForm()) if can_reverse else None,
            "zone": settings.TIME_ZONE}


@staff_may(VIEW)
@require_GET
def round_page(request: HttpRequest, round_id: int) -> HttpResponse:
    """One round: its story in order, its hands and its settlement."""
    return render(request, PAGE, _page_context(request, round_id))


@staff_may(REVERSE, VIEW)
@require_POST
def round_page_reverse(request: HttpRequest, round_id: int) -> HttpResponse:
    """The reversal asked from the round's page, with a reason: done at once, or filed for a
    second pit boss under dual control; refused in words (and traced) otherwise."""
    round_ = Round.objects.filter(pk=round_id).first()
    if round_ is None:
        raise Http404("no such round")
    _readable(request, round_.table_id)
    form = ReasonForm(request.POST)
    status = 400
    if form.is_valid():
        try:
            done = approvals.action_submit(
                action=REVERSE_ACTION, by=staff_user(request),
                params={"round_id": round_id, "reason": form.cleaned_data["reason"]})
        except DomainError as error:
            messages.error(request, refusal_text(error, currency=round_.currency))
            refusal_trace_request(request, error, action=REVERSE_ACTION)
            status = error.status
        else:
            if done.approval is not None:
                messages.success(request, f"The reversal of round {round_.number} waits for a "
                                          f"second pit boss's approval (request "
                                          f"#{done.approval.pk}); nothing has moved yet.")
            else:
                messages.success(request, f"Round {round_.number} is reversed; every amount "
                                          "of its settlement has moved back.")
            return redirect(reverse("console:round", args=[round_id]))
    context = _page_context(request, round_id, form)
    return render(request, PAGE, context, status=status)
