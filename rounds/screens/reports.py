"""The console's reports page: ask for a report of any kind, watch it (htmx polling),
download it; the closed gaming days with their figures and a chart. Thin views over the
same services and checks as the API (rounds.services.reporting)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.models import User
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from casino.shared.errors import DomainError
from casino.shared.refusals import refusal_trace_request
from rounds.models import ClosedDay, Report
from rounds.report_files.charts import chart_png
from rounds.report_files.document import Chart
from rounds.report_files.formats import FORMATS
from rounds.report_files.kinds import KINDS
from rounds.reports import hold_percent
from rounds.services import reporting
from rounds.services.gaming_days import gaming_day_close as close_day

RUN = "rounds.run_reports"
CLOSE = "rounds.close_gaming_day"
TEMPLATE = "rounds/screens/reports.html"
KIND_LABELS = {"table_day": "A table's day", "floor_day": "The floor's day",
               "banker": "Player-banked rounds", "player_statement": "A player's statement",
               "trial_balance": "Trial balance"}


class ReportForm(forms.Form):
    kind = forms.ChoiceField(choices=[(k, KIND_LABELS[k]) for k in KINDS])
    format = forms.ChoiceField(choices=[(f, f.upper()) for f in FORMATS])
    # Which are needed depends on the kind; report_parameters checks them.
    table = forms.CharField(required=False, max_length=20, label="Table id")
    gaming_day = forms.CharField(required=False, max_length=10, label="Gaming day",
                                 widget=forms.DateInput(attrs={"type": "date"}))
    date_from = forms.CharField(required=False, max_length=10, label="From gaming day",
                                widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.CharField(required=False, max_length=10, label="To gaming day",
                              widget=forms.DateInput(attrs={"type": "date"}))
    player = forms.CharField(required=False, max_length=20, label="Player id")
    as_of = forms.CharField(required=False, max_length=40, label="As of (ISO time with offset)")


class CloseDayForm(forms.Form):
    gaming_day = forms.DateField(label="Gaming day",
                                 widget=forms.DateInput(attrs={"type": "date"}))


def _user(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


def _visible_reports(user: User) -> list[Report]:
    kinds = [k for k in KINDS if reporting.report_may_read(user=user, kind=k)]
    found = list(Report.objects.filter(kind__in=kinds).select_related("requested_by")
                 .order_by("-id")[:20])
    for report in found:
        report.label = KIND_LABELS.get(report.kind, report.kind)  # type: ignore[attr-defined]
    return found


def _list_context(request: HttpRequest) -> dict:
    reports = _visible_reports(_user(request))
    return {"reports": reports,
            "busy": any(r.status in (Report.Status.QUEUED, Report.Status.RUNNING)
                        for r in reports)}


@login_required
@permission_required(RUN, raise_exception=True)
@require_GET
def reports(request: HttpRequest) -> HttpResponse:
    days = list(ClosedDay.objects.prefetch_related("tables__table").order_by("-gaming_day")[:7])
    return render(request, TEMPLATE, {**_list_context(request), "form": ReportForm(),
                                      "closed_days": days, "close_form": CloseDayForm()})


@login_required
@permission_required(CLOSE, raise_exception=True)
@require_POST
def gaming_day_close(request: HttpRequest) -> HttpResponse:
    """Close a gaming day (a pit boss), as the API and the command do: the service refuses
    a day not over yet, one before the casino's first round, one closed already or with a
    round still in play; the refusal is shown in words and traced."""
    form = CloseDayForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give the gaming day to close as a date.")
        return redirect("console:reports")
    try:
        closed = close_day(gaming_day=form.cleaned_data["gaming_day"], by=_user(request))
    except DomainError as refused:
        messages.error(request, f"Not closed: {refused.message}")
        refusal_trace_request(request, refused,
                              ref=f"gaming_day:{form.cleaned_data['gaming_day']}")
        return redirect("console:reports")
    messages.success(request, f"Gaming day {closed.gaming_day} is closed; its figures are "
                              "stored for good.")
    return redirect("console:reports")


@login_required
@permission_required(RUN, raise_exception=True)
@require_GET
def reports_live(request: HttpRequest) -> HttpResponse:
    return render(request, f"{TEMPLATE}#report-list", _list_context(request))


@login_required
@permission_required(RUN, raise_exception=True)
@require_POST
def report_ask(request: HttpRequest) -> HttpResponse:
    form = ReportForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a kind of report and a format.")
        return redirect("console:reports")
    fields = {k: v for k, v in form.cleaned_data.items() if v}
    kind, fmt = fields.pop("kind"), fields.pop("format")
    try:
        report = reporting.report_request(kind=kind, format=fmt, parameters=fields,
                                          by=_user(request))
    except DomainError as refused:
        problems = refused.detail.get("fields", {})
        said = "; ".join(f"{name.replace('_', ' ')}: {', '.join(why)}"
                         for name, why in problems.items())
        messages.error(request, f"{refused.message} {said}".strip())
        return redirect("console:reports")
    messages.success(request, f"{KIND_LABELS[kind]} asked for (report #{report.pk}); it "
                              "is being made.")
    return redirect("console:reports")


@login_required
@permission_required(RUN, raise_exception=True)
@require_GET
def report_download(request: HttpRequest, report_id: int) -> FileResponse:
    report = Report.objects.filter(pk=report_id, status=Report.Status.DONE).first()
    if report is None or not reporting.report_may_read(user=_user(request), kind=report.kind):
        raise Http404("no such report, or not done yet")
    return FileResponse(report.file.open("rb"), as_attachment=True,
                        filename=report.file_name, content_type=report.content_type)


@login_required
@permission_required(RUN, raise_exception=True)
@require_GET
def closed_day_chart(request: HttpRequest, gaming_day: str) -> HttpResponse:
    """A closed day's hold % by table, as a PNG (drawn from its stored figures)."""
    try:
        day = date.fromisoformat(gaming_day)
    except ValueError:
        raise Http404("not a gaming day") from None
    closed = ClosedDay.objects.filter(gaming_day=day).prefetch_related("tables").first()
    if closed is None:
        raise Http404("this gaming day is not closed")
    series: dict[str, Decimal] = {}
    for row in closed.tables.all():
        if row.table_id is None:
            continue
        result = (row.house_win_house_banked + row.house_win_house_stakes
                  + row.commission_players + row.commission_bankers)
        series[row.table_name] = hold_percent(result, row.handle) or Decimal(0)
    png = chart_png(Chart(title=f"Hold % by table, gaming day {day}", y_label="hold %",
                          series={str(day): series}, file_stem="closed-day"),
                    width=7, height=3)
    response = HttpResponse(png, content_type="image/png")
    response["Cache-Control"] = "private, max-age=3600"  # a closed day never changes
    return response
