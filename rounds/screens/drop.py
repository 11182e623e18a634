"""The count room's screen: count a table's drop box for a gaming day, with a witness, and
see what was recorded, what was counted and the variance (rounds.services.drop)."""

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
from rounds.drop import drop_count_list
from rounds.models import Table
from rounds.screens.refusals import refusal_text
from rounds.services.drop import COUNT_DROP, drop_count_explain, drop_count_record


class DropCountForm(forms.Form):
    table = forms.ModelChoiceField(queryset=Table.objects.order_by("name"),
                                   empty_label="Choose the table",
                                   error_messages={"required": "Choose the table."})
    gaming_day = forms.DateField(label="Gaming day", widget=forms.DateInput(attrs={"type": "date"}))
    counted = AmountField(label="Cash counted", positive=False,
                          error_messages={"required": "Type the cash counted, e.g. 480."})
    witness = forms.CharField(max_length=150, label="Witness (username)",
                              error_messages={"required": "Name the witness of the count."})
    reason = forms.CharField(required=False, max_length=2000, label="Reason for a variance",
                             widget=forms.Textarea(attrs={"rows": 2}))

    def clean_table(self) -> Table:
        # The cash counted is in the chosen table's currency; the table is cleaned first
        # (fields clean in the order declared), so the amount is read in that currency.
        table: Table = self.cleaned_data["table"]
        counted = self.fields["counted"]
        assert isinstance(counted, AmountField)
        counted.currency = table.currency
        return table


@staff_may(COUNT_DROP)
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
                reason=data["reason"], by=staff_user(request))
            messages.success(request, f"{table.name}'s drop box for gaming day "
                                      f"{count.gaming_day} is counted.")
            return redirect(f"{request.path}?shown={count.pk}")
        except DomainError as error:
            messages.error(request, refusal_text(error, currency=table.currency))
    shown = request.GET.get("shown", "")
    context: dict[str, Any] = {
        "form": form,
        "shown": drop_count_list().filter(pk=int(shown)).first() if shown.isdigit() else None,
        "recent": list(drop_count_list()[:20]),
    }
    return render(request, "rounds/screens/drop_count.html", context)


class ExplainForm(forms.Form):
    reason = forms.CharField(max_length=2000, label="Why the count differs",
                             error_messages={"required": "Say why the count differs."})


@staff_may(COUNT_DROP)
@require_http_methods(["POST"])
def drop_count_explain_view(request: HttpRequest, count_id: int) -> HttpResponse:
    """A variance left open at the count, explained afterwards (the service's rule:
    rounds.services.drop.drop_count_explain)."""
    form = ExplainForm(request.POST)
    back = redirect(f"{reverse('console:drop-count')}?shown={count_id}")
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for e in form.errors["reason"]))
        return back
    try:
        count = drop_count_explain(count_id=count_id, reason=form.cleaned_data["reason"],
                                   by=staff_user(request))
        messages.success(request, f"The variance of {count.table.name}'s count for gaming "
                                  f"day {count.gaming_day} is explained.")
    except DomainError as error:
        messages.error(request, refusal_text(error))
    return back
