"""The count room's screen (rounds.services.drop): count a table's drop box for a gaming day,
naming a witness; the witness, signed in as themselves, confirms (or refuses) the counts
waiting for their signature; a variance is explained, in a panel on its row, by someone
other than its counter.

Thin, as the API: parse a form, call one service, render. The explain panel and its row are
one template partial (``count``) that htmx swaps in place; without the script the same URLs
answer a page."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from casino.shared.errors import DomainError
from casino.shared.forms import AmountField
from casino.shared.gaming_day import gaming_day_of
from casino.shared.guards import staff_may, staff_user
from casino.shared.templatetags.money import money_text
from rounds.drop import drop_count_list, drop_counts_awaiting
from rounds.models import DropCount, Table
from rounds.screens.refusals import refusal_text
from rounds.services.drop import (
    COUNT_DROP,
    WITNESS_DROP,
    drop_count_confirm,
    drop_count_explain,
    drop_count_explain_check,
    drop_count_record,
    drop_count_refuse,
)

VIEW_COUNTS = "rounds.view_dropcount"
TEMPLATE = "rounds/screens/drop_count.html"


class DropCountForm(forms.Form):
    table = forms.ModelChoiceField(queryset=Table.objects.order_by("name"),
                                   empty_label="Choose the table",
                                   error_messages={"required": "Choose the table."})
    gaming_day = forms.DateField(label="Gaming day", widget=forms.DateInput(attrs={"type": "date"}))
    counted = AmountField(label="Cash counted", positive=False,
                          error_messages={"required": "Type the cash counted, e.g. 480."})
    witness = forms.CharField(max_length=150, label="Witness (username)",
                              help_text="They confirm the count, signed in as themselves.",
                              error_messages={"required": "Name the witness of the count."})
    note = forms.CharField(required=False, max_length=2000, label="Your note on a variance",
                           help_text="Someone other than you explains a variance.",
                           widget=forms.Textarea(attrs={"rows": 2}))

    def clean_table(self) -> Table:
        # The cash counted is in the chosen table's currency; the table is cleaned first
        # (fields clean in the order declared), so the amount is read in that currency.
        table: Table = self.cleaned_data["table"]
        counted = self.fields["counted"]
        assert isinstance(counted, AmountField)
        counted.currency = table.currency
        return table


def _page(request: HttpRequest, form: DropCountForm, **extra: Any) -> HttpResponse:
    user = staff_user(request)
    shown = request.GET.get("shown", "")
    explain = request.GET.get("explain", "")
    refused = ""
    if explain.isdigit():
        # The panel opened without the script: who may explain is said there, as with it.
        try:
            drop_count_explain_check(count_id=int(explain), by=user)
        except DomainError as error:
            refused = refusal_text(error)
    context: dict[str, Any] = {
        "form": form if user.has_perm(COUNT_DROP) else None,
        "shown": drop_count_list().filter(pk=int(shown)).first() if shown.isdigit() else None,
        "to_sign": (list(drop_counts_awaiting(witness_id=user.pk))
                    if user.has_perm(WITNESS_DROP) else []),
        "awaiting": list(drop_counts_awaiting().exclude(witness_id=user.pk)),
        "recent": list(drop_count_list().exclude(
            status=DropCount.Status.AWAITING_WITNESS)[:20]),
        "explaining": int(explain) if explain.isdigit() else None,
        "refused": refused,
        **extra,
    }
    return render(request, TEMPLATE, context)


@staff_may(VIEW_COUNTS)
@require_http_methods(["GET", "POST"])
def drop_count(request: HttpRequest) -> HttpResponse:
    form = DropCountForm(request.POST or None, initial={"gaming_day": gaming_day_of()})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        table: Table = data["table"]
        try:
            count = drop_count_record(
                table_id=table.pk, gaming_day=data["gaming_day"],
                counted=data["counted"], witness=data["witness"],
                note=data["note"], by=staff_user(request))
            messages.success(request, f"{table.name}'s count for gaming day "
                                      f"{count.gaming_day} is recorded: it waits for "
                                      f"{count.witness.get_username()} to confirm it, signed "
                                      "in as themselves. Nothing is posted until then.")
            return redirect(f"{request.path}?shown={count.pk}")
        except DomainError as error:
            messages.error(request, refusal_text(error, currency=table.currency))
    return _page(request, form)


@staff_may(WITNESS_DROP)
@require_http_methods(["POST"])
def drop_count_witness_view(request: HttpRequest, count_id: int) -> HttpResponse:
    """The witness confirms or refuses a count waiting for their signature (the service's
    rule: only the witness it names, rounds.services.drop.drop_count_witness_check)."""
    by = staff_user(request)
    try:
        if request.POST.get("decision") == "refuse":
            count = drop_count_refuse(count_id=count_id, reason=request.POST.get("reason", ""),
                                      by=by)
            messages.success(request, f"You refused {count.table.name}'s count for gaming "
                                      f"day {count.gaming_day}: nothing is posted, and the "
                                      "box is counted again.")
            return redirect("console:drop-count")
        else:
            count = drop_count_confirm(count_id=count_id, by=by)
            messages.success(request, _confirmed(count))
    except DomainError as error:
        messages.error(request, refusal_text(error))
        return redirect("console:drop-count")
    # The list's row shows the count from now on (and its explain panel): one place, never
    # a second copy of it left saying "to explain" once explained.
    return redirect(f"{reverse('console:drop-count')}#count-{count.pk}")


def _confirmed(count: DropCount) -> str:
    """What the witness is told: "You confirmed Table 1's count for gaming day 2026-12-06:
    it is posted (190.00 EUR counted, 200.00 EUR recorded: -10.00 EUR to explain)"."""
    said = (f"You confirmed {count.table.name}'s count for gaming day {count.gaming_day}: "
            f"it is posted ({money_text(count.counted, count.currency)} counted, "
            f"{money_text(count.recorded, count.currency)} recorded")
    if count.variance:
        return f"{said}: {money_text(count.variance, count.currency)} to explain)."
    return f"{said})."


class ExplainForm(forms.Form):
    reason = forms.CharField(max_length=2000, label="Why the count differs",
                             error_messages={"required": "Say why the count differs."})


def _count_partial(request: HttpRequest, count_id: int, **extra: Any) -> HttpResponse:
    """The count's row (and its explain panel when open), for htmx to swap in place."""
    count = drop_count_list().filter(pk=count_id).first()
    return render(request, f"{TEMPLATE}#count", {"c": count, **extra})


@staff_may(VIEW_COUNTS)
@require_http_methods(["GET", "POST"])
def drop_count_explain_view(request: HttpRequest, count_id: int) -> HttpResponse:
    """A variance explained after the count by someone other than its counter (the
    service's rule: rounds.services.drop.drop_count_explain). GET opens the panel on the
    count's row; POST explains. htmx swaps the row; without it, the page."""
    htmx = bool(request.htmx)  # type: ignore[attr-defined]  # django-htmx's middleware
    by = staff_user(request)
    page = f"{reverse('console:drop-count')}?explain={count_id}#count-{count_id}"
    if request.method == "GET":
        refused = ""
        try:
            drop_count_explain_check(count_id=count_id, by=by)
        except DomainError as error:
            refused = refusal_text(error)
        if not htmx:
            return redirect(page)
        return _count_partial(request, count_id, explaining=count_id, refused=refused)
    form = ExplainForm(request.POST)
    try:
        if not form.is_valid():
            raise _FormRefused(" ".join(str(e) for e in form.errors["reason"]))
        drop_count_explain(count_id=count_id, reason=form.cleaned_data["reason"], by=by)
    except (DomainError, _FormRefused) as error:
        said = refusal_text(error) if isinstance(error, DomainError) else str(error)
        if htmx:
            return _count_partial(request, count_id, explaining=count_id, refused=said,
                                  typed=request.POST.get("reason", ""))
        messages.error(request, said)
        return redirect(page)
    if htmx:
        return _count_partial(request, count_id)
    return redirect(f"{reverse('console:drop-count')}#count-{count_id}")


class _FormRefused(Exception):
    """The form's own refusal (an empty reason), said like the service's."""
