"""The cash rules' screens (casino.cash): the multiple transaction log of a gaming day (the
cage, pit bosses, auditors) and its cash transaction reports (pit bosses, auditors), where
an auditor files a report, and files it again as an amendment once its figures changed.
Thin: parse the day, call one selector or service, render; a refusal is said in words on
the same page and changes nothing."""

from __future__ import annotations

from datetime import date
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from casino import cash
from casino.screens.forms import GamingDayForm
from casino.shared.errors import DomainError
from casino.shared.gaming_day import gaming_day_of
from casino.shared.guards import staff_may, staff_user
from casino.shared.refusals import refusal_trace_request
from casino.shared.templatetags.money import money_text

TEMPLATES = "casino/screens/cash/"


def _day(request: HttpRequest) -> tuple[GamingDayForm, date | None]:
    """The chosen gaming day, the current one by default; None when what was sent is not a
    day (the form says why)."""
    if not request.GET:
        today = gaming_day_of()
        return GamingDayForm(initial={"gaming_day": today}), today
    form = GamingDayForm(request.GET)
    if not form.is_valid():
        return form, None
    return form, form.cleaned_data["gaming_day"] or gaming_day_of()


def _lines(currency: str = "EUR") -> dict[str, int | str]:
    return {"log_line": cash.LOG_LINE.amount(currency),
            "report_line": cash.REPORT_LINE.amount(currency), "line_currency": currency}


@require_GET
@staff_may("casino.view_cash_log")
def cash_log_page(request: HttpRequest) -> HttpResponse:
    form, day = _day(request)
    rows = cash.cash_log(gaming_day=day) if day else []
    return render(request, TEMPLATES + "log.html",
                  {"form": form, "day": day, "rows": rows, "zone": settings.TIME_ZONE,
                   **_lines()}, status=200 if day else 400)


@require_GET
@staff_may("casino.view_cashreport")
def cash_reports_page(request: HttpRequest) -> HttpResponse:
    form, day = _day(request)
    reports = cash.cash_reports(gaming_day=day) if day else []
    rows = [{"report": r, "last": r.last_filing, "filings": list(r.filings.all())}
            for r in reports]
    return render(request, TEMPLATES + "reports.html",
                  {"form": form, "day": day, "rows": rows, "zone": settings.TIME_ZONE,
                   "may_file": request.user.has_perm("casino.file_cashreport"), **_lines()},
                  status=200 if day else 400)


@require_POST
@staff_may("casino.file_cashreport")
def cash_report_file(request: HttpRequest, report_id: int) -> HttpResponse:
    """File the report (or file it again, amended); back to its day's reports."""
    back = reverse("console:cash-reports")
    try:
        filing = cash.cash_report_file(report_id=report_id, by=staff_user(request))
    except DomainError as error:
        messages.error(request, error.message)
        refusal_trace_request(request, error, action="cash_report.file")
        day = request.POST.get("gaming_day", "")
        return redirect(f"{back}?{urlencode({'gaming_day': day})}" if day else back)
    report = filing.report
    first = not report.filings.exclude(pk=filing.pk).exists()
    cur = report.currency
    messages.success(
        request, f"Cash report #{report.pk} of {report.player.name} is "
                 f"{'filed' if first else 'filed again as an amendment'}: cash in "
                 f"{money_text(filing.cash_in, cur)}, cash out "
                 f"{money_text(filing.cash_out, cur)}.")
    return redirect(f"{back}?{urlencode({'gaming_day': report.gaming_day.isoformat()})}")
