"""The console's reports page: ask for a report of the chosen kind (only its fields, the
kind in the query string so a reload or a browser without script shows the same form),
watch it (htmx polling, in words, with a warning when no worker takes it), download it
or read it as a page with its charts; the closed gaming days with their figures and a
chart; and the cage's download of a player's statement, the statement report's CSV. Thin
views over the same services and checks as the API (reports.services, reports.files.kinds)."""

from __future__ import annotations

import base64
from datetime import date
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.models import User
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from casino.models import Player
from casino.screens import views as cage_screens
from casino.screens.forms import StatementForm
from casino.selectors import player_get
from casino.services import player_account_open
from casino.shared.errors import DomainError, NotFound
from casino.shared.guards import staff_may, staff_user
from casino.shared.refusals import refusal_trace_request
from reports import services as reporting
from reports.closing import gaming_day_close as close_day
from reports.files.charts import chart_png
from reports.files.document import Chart
from reports.files.formats import FORMATS
from reports.files.kinds import KINDS, parameters_in_words
from reports.files.readable import grid, shown
from reports.models import ClosedDay, Report
from reports.play import closed_figures
from rounds.models import Table

RUN = "rounds.run_reports"
CLOSE = "reports.close_gaming_day"
TEMPLATE = "reports/reports.html"
PAGE_TEMPLATE = "reports/report_page.html"
PLAYERS_SHOWN = 50   # players found by name at most; a longer list is narrowed by typing


class ReportForm(forms.Form):
    """The chosen kind's fields only; the values are checked by the service, as the API's."""

    format = forms.ChoiceField(choices=[(f, f.upper()) for f in FORMATS])
    # Not required here: the service says what a kind needs, for every door alike.
    table = forms.ChoiceField(required=False, label="Table")
    gaming_day = forms.DateField(required=False, label="Gaming day",
                                 widget=forms.DateInput(attrs={"type": "date"}))
    date_from = forms.DateField(required=False, label="From gaming day",
                                widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To gaming day",
                              widget=forms.DateInput(attrs={"type": "date"}))
    # Chosen from the players found by name (the search box above it); the value sent is
    # the player's id, which the service checks.
    player = forms.CharField(required=False, label="Player", widget=forms.Select())
    # A moment on the casino's clock (no offset to type); empty means now, in the service.
    as_of = forms.DateTimeField(
        required=False, label="As of (casino time; leave empty for now)",
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local", "step": 1},
                                   format="%Y-%m-%dT%H:%M:%S"))

    def __init__(self, *args: Any, kind: str, players: list[Player] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        wanted = set(KINDS[kind].parameters)
        for name in [n for n in self.fields if n != "format" and n not in wanted]:
            del self.fields[name]
        if "table" in self.fields:
            table = self.fields["table"]
            assert isinstance(table, forms.ChoiceField)
            table.choices = [("", "Choose a table")] + [
                (str(t.pk), t.name) for t in Table.objects.order_by("name", "pk")]
        if "player" in self.fields:
            self.fields["player"].widget.choices = [  # type: ignore[attr-defined]
                (str(p.pk), f"{p.name} (#{p.pk}, {p.currency})") for p in players or []]

    def parameters(self) -> dict[str, str]:
        """The fields as the service reads them (text; a moment with its offset)."""
        return {name: value.isoformat() if hasattr(value, "isoformat") else str(value)
                for name, value in self.cleaned_data.items()
                if name != "format" and value not in (None, "")}


class CloseDayForm(forms.Form):
    gaming_day = forms.DateField(label="Gaming day",
                                 widget=forms.DateInput(attrs={"type": "date"}))


def _kinds(user: User) -> list[tuple[str, str]]:
    return [(k, spec.label) for k, spec in KINDS.items()
            if reporting.report_may_read(user=user, kind=k)]


def _kind(request: HttpRequest, given: str | None) -> str:
    mine = [k for k, _ in _kinds(staff_user(request))]
    return given if given in mine else (mine[0] if mine else "table_day")


def _players(query: str) -> list[Player]:
    found = Player.objects.order_by("name", "pk")
    if query.strip():
        found = found.filter(name__icontains=query.strip())
    return list(found[:PLAYERS_SHOWN])


def _visible_reports(user: User) -> list[Report]:
    kinds = [k for k, _ in _kinds(user)]
    found = list(Report.objects.filter(kind__in=kinds).select_related("requested_by")
                 .order_by("-id")[:20])
    ids: dict[str, set[int]] = {"table": set(), "player": set()}
    for report in found:
        for name in ids:
            value = str(report.parameters.get(name, ""))
            if value.isdigit():
                ids[name].add(int(value))
    tables = dict(Table.objects.filter(pk__in=ids["table"]).values_list("pk", "name"))
    players = dict(Player.objects.filter(pk__in=ids["player"]).values_list("pk", "name"))
    now = timezone.now()
    for report in found:
        report.label = KINDS[report.kind].label  # type: ignore[attr-defined]
        report.in_words = parameters_in_words(  # type: ignore[attr-defined]
            report.kind, report.parameters, tables=tables, players=players)
        report.waiting = reporting.report_waiting_for_worker(  # type: ignore[attr-defined]
            report=report, now=now)
    return found


def _list_context(request: HttpRequest) -> dict:
    reports = _visible_reports(staff_user(request))
    return {"reports": reports,
            "busy": any(r.status in (Report.Status.QUEUED, Report.Status.RUNNING)
                        for r in reports)}


def _ask_context(request: HttpRequest, kind: str, form: ReportForm | None = None) -> dict:
    query = request.GET.get("q", "")
    fmt = request.GET.get("format")   # kept when the kind changes
    return {"kind": kind, "kinds": _kinds(staff_user(request)), "query": query,
            "form": form or ReportForm(kind=kind, players=_players(query),
                                       initial={"format": fmt if fmt in FORMATS else "pdf"}),
            "kind_spec": KINDS[kind], "players_shown": PLAYERS_SHOWN}


@staff_may(RUN)
@require_GET
def reports(request: HttpRequest) -> HttpResponse:
    kind = _kind(request, request.GET.get("kind"))
    htmx = request.htmx  # type: ignore[attr-defined]  # django-htmx's middleware sets it
    if htmx and not htmx.history_restore_request:
        # the kind changed: only the asking part is swapped
        return render(request, f"{TEMPLATE}#ask", _ask_context(request, kind))
    days = [(day, [closed_figures(row, gaming_day=day.gaming_day) for row in day.tables.all()])
            for day in ClosedDay.objects.prefetch_related("tables").order_by("-gaming_day")[:7]]
    return render(request, TEMPLATE, {**_list_context(request), **_ask_context(request, kind),
                                      "closed_days": days, "close_form": CloseDayForm()})


@staff_may(RUN, "casino.view_player")
@require_GET
def report_players(request: HttpRequest) -> HttpResponse:
    """The players whose name holds what was typed, as the options of the player field."""
    return render(request, f"{TEMPLATE}#player-options",
                  {"players": _players(request.GET.get("q", ""))})


@staff_may(CLOSE)
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
        closed = close_day(gaming_day=form.cleaned_data["gaming_day"], by=staff_user(request))
    except DomainError as refused:
        messages.error(request, f"Not closed: {refused.message}")
        refusal_trace_request(request, refused,
                              ref=f"gaming_day:{form.cleaned_data['gaming_day']}")
        return redirect("console:reports")
    messages.success(request, f"Gaming day {closed.gaming_day} is closed; its figures are "
                              "stored for good.")
    return redirect("console:reports")


@staff_may(RUN)
@require_GET
def reports_live(request: HttpRequest) -> HttpResponse:
    return render(request, f"{TEMPLATE}#report-list", _list_context(request))


def _back(kind: str) -> HttpResponse:
    return redirect(f"{reverse('console:reports')}?kind={kind}")


@staff_may(RUN)
@require_POST
def report_ask(request: HttpRequest) -> HttpResponse:
    kind = request.POST.get("kind", "")
    if kind not in KINDS:
        messages.error(request, "Choose a kind of report.")
        return redirect("console:reports")
    form = ReportForm(request.POST, kind=kind)
    if not form.is_valid():
        said = "; ".join(f"{_label(form, name)}: {' '.join(str(e) for e in errors)}"
                         for name, errors in form.errors.items())
        messages.error(request, f"The report's parameters are not valid. {said}")
        return _back(kind)
    try:
        report = reporting.report_request(kind=kind, format=form.cleaned_data["format"],
                                          parameters=form.parameters(), by=staff_user(request))
    except DomainError as refused:
        problems = refused.detail.get("fields", {})
        said = "; ".join(f"{_label(form, name)}: {', '.join(why)}"
                         for name, why in problems.items())
        messages.error(request, f"{refused.message} {said}".strip())
        return _back(kind)
    messages.success(request, f"{KINDS[kind].label} asked for (report #{report.pk}); it "
                              "is being made.")
    return _back(kind)


def _label(form: ReportForm, name: str) -> str:
    field = form.fields.get(name)
    return str(field.label) if field is not None and field.label else name.replace("_", " ")


def _visible_report(request: HttpRequest, report_id: int) -> Report:
    report = Report.objects.select_related("requested_by").filter(pk=report_id).first()
    if report is None or not reporting.report_may_read(user=staff_user(request), kind=report.kind):
        raise Http404("no such report")
    return report


@staff_may(RUN)
@require_GET
def report_download(request: HttpRequest, report_id: int) -> FileResponse:
    report = _visible_report(request, report_id)
    if report.status != Report.Status.DONE:
        raise Http404("not done yet")
    return FileResponse(report.file.open("rb"), as_attachment=True,
                        filename=report.file_name, content_type=report.content_type)


@staff_may(RUN)
@require_GET
def report_page(request: HttpRequest, report_id: int) -> HttpResponse:
    """The report read as a page, with its charts: laid out now from the same parameters
    by the same code as its file; says at which chain head, and whether the file was
    read at another."""
    report = _visible_report(request, report_id)
    try:
        document = reporting.report_read(report=report, by=staff_user(request))
    except DomainError as refused:
        messages.error(request, f"Report #{report.pk} cannot be read: {refused.message}")
        return redirect("console:reports")
    sections = [(section.title, grid(section)) for section in document.sections]
    charts = [(chart.title, "data:image/png;base64,"
               + base64.b64encode(chart_png(chart)).decode("ascii"))
              for chart in document.charts]
    return render(request, PAGE_TEMPLATE, {
        "report": report, "label": KINDS[report.kind].label, "document": document,
        "made_at": shown(document.made_at), "sections": sections, "charts": charts,
        "same_head": report.chain_seq in (None, document.chain_seq)})


@staff_may(RUN)
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
        series[row.table_name] = closed_figures(row, gaming_day=day).hold_percent or Decimal(0)
    png = chart_png(Chart(title=f"Hold % by table (house result / handle), gaming day {day}",
                          y_label="hold % (house result / handle)",
                          series={str(day): series}, file_stem="closed-day"),
                    width=7, height=3)
    response = HttpResponse(png, content_type="image/png")
    response["Cache-Control"] = "private, max-age=3600"  # a closed day never changes
    return response


# --- the cage's statement file --------------------------------------------------------------

@staff_may("ledger.view_entry")
@require_GET
def statement_csv(request: HttpRequest, player_id: int) -> HttpResponse:
    """The cage's Download CSV of a player's statement (``console:cage:statement_csv``,
    beside the cage's statement page): the ``player_statement`` kind's CSV, laid out by
    the one column spec the auditors' file has (reports.files.kinds.STATEMENT), over the
    period the page shows. A period the page refuses is refused by the page itself."""
    try:
        player = player_get(player_id=player_id)
    except NotFound as exc:
        raise Http404(exc.message) from None
    form = StatementForm(request.GET or None)
    if request.GET and not form.is_valid():
        return cage_screens.statement(request, player_id)
    period = form.cleaned_data if form.is_bound else {}
    # As the cage's page does: a player registered before the ledger gets an account on
    # first sight, and an empty statement rather than a refusal.
    player_account_open(player=player)
    document = reporting.statement_read(player_id=player.pk, date_from=period.get("date_from"),
                                        date_to=period.get("date_to"), by=staff_user(request))
    days = "-".join(str(period.get(k) or "") for k in ("date_from", "date_to")).strip("-")
    name = f"statement-player-{player.pk}{'-' + days if days else ''}"
    csv = FORMATS["csv"]
    response = HttpResponse(csv.render(document), content_type=csv.content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}.{csv.extension}"'
    return response
