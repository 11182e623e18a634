"""The auditors' report files over the API: ask for one, watch it, download it; and the
closed gaming days.

The request is answered 202 at once; a Celery worker makes the file after the request
commits (rounds.services.reporting). Every view needs rounds.run_reports, and a report
of a kind the caller's role may not read is not found for them.
"""

from __future__ import annotations

from typing import Any

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.shared.api.pagination import PAGE_PARAMETERS, page_response, paginated
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.serializers import ErrorOutput
from casino.shared.errors import Conflict, NotFound
from rounds.api.serializers import ClosedDayOut, GamingDayCloseIn, ReportIn, ReportOut
from rounds.models import ClosedDay, Report
from rounds.report_files.kinds import KINDS
from rounds.services import reporting
from rounds.services.gaming_days import gaming_day_close

RUN_REPORTS = requires("rounds.run_reports")


def _visible(request: Request, report_id: int) -> Report:
    report = Report.objects.select_related("requested_by").filter(pk=report_id).first()
    if report is None or not reporting.report_may_read(user=acting_user(request), kind=report.kind):
        raise NotFound(f"There is no report #{report_id}.", detail={"report_id": report_id})
    return report


def _out(request: Request, report: Report, code: int = status.HTTP_200_OK) -> Response:
    return Response(ReportOut(report, context={"request": request}).data, status=code)


class ReportsView(APIView):
    permission_classes = [RUN_REPORTS]

    @extend_schema(summary="Reports asked for, newest first (those your role may read)",
                   operation_id="reports_list", parameters=PAGE_PARAMETERS,
                   responses={200: paginated(ReportOut(many=True), "PaginatedReportOutList")})
    def get(self, request: Request) -> Response:
        kinds = [k for k in KINDS if reporting.report_may_read(user=acting_user(request), kind=k)]
        reports = Report.objects.filter(kind__in=kinds).select_related("requested_by")
        return page_response(request, self, reports.order_by("-id"),
                             lambda r: ReportOut(r, context={"request": request}).data)

    @extend_schema(summary="Ask for a report file (made by a worker; 202 at once)",
                   request=ReportIn, responses={202: ReportOut})
    def post(self, request: Request) -> Response:
        fields = parse(ReportIn, request.data)
        kind, fmt = fields.pop("kind"), fields.pop("format")
        report = reporting.report_request(kind=kind, format=fmt, parameters=fields,
                                          by=acting_user(request))
        return _out(request, report, status.HTTP_202_ACCEPTED)


class ReportDetailView(APIView):
    permission_classes = [RUN_REPORTS]

    @extend_schema(summary="A report: its status, progress and, once done, its file",
                   responses={200: ReportOut})
    def get(self, request: Request, report_id: int) -> Response:
        return _out(request, _visible(request, report_id))


class ReportRetryView(APIView):
    permission_classes = [RUN_REPORTS]

    @extend_schema(summary="Ask again for a failed report", request=None,
                   responses={202: ReportOut})
    def post(self, request: Request, report_id: int) -> Response:
        _visible(request, report_id)
        report = reporting.report_retry(report_id=report_id, by=acting_user(request))
        return _out(request, report, status.HTTP_202_ACCEPTED)


class ReportFileView(APIView):
    permission_classes = [RUN_REPORTS]

    @extend_schema(summary="Download a done report's file (409 while it is not done)",
                   responses={(200, "application/octet-stream"): OpenApiTypes.BINARY,
                              409: OpenApiResponse(ErrorOutput, description=(
                                  "The report is queued, being made or failed: no file "
                                  "yet (`conflict`, with its `status` and `progress`)."))})
    def get(self, request: Request, report_id: int) -> FileResponse:
        report = _visible(request, report_id)
        if report.status != Report.Status.DONE:
            raise Conflict(f"Report #{report_id} is {report.status}, not done.",
                           detail={"report_id": report_id, "status": report.status,
                                   "progress": report.progress})
        response = FileResponse(report.file.open("rb"), as_attachment=True,
                                filename=report.file_name, content_type=report.content_type)
        return response


# --- closed gaming days ---------------------------------------------------------------------

def _closed_days() -> Any:
    return ClosedDay.objects.select_related("closed_by").prefetch_related("tables")


class GamingDaysView(APIView):
    permission_classes = [RUN_REPORTS]

    @extend_schema(summary="Closed gaming days with their stored figures, newest first",
                   operation_id="gaming_days_list", parameters=PAGE_PARAMETERS,
                   responses={200: paginated(ClosedDayOut(many=True),
                                             "PaginatedClosedDayOutList")})
    def get(self, request: Request) -> Response:
        return page_response(request, self, _closed_days().order_by("-gaming_day"),
                             lambda closed: ClosedDayOut(closed).data)


class GamingDayCloseView(APIView):
    permission_classes = [requires("rounds.close_gaming_day")]

    @extend_schema(summary="Close a gaming day (pit boss): store its figures for good",
                   request=GamingDayCloseIn, responses={201: ClosedDayOut})
    def post(self, request: Request) -> Response:
        data = parse(GamingDayCloseIn, request.data)
        closed = gaming_day_close(gaming_day=data["gaming_day"], by=acting_user(request))
        return Response(ClosedDayOut(_closed_days().get(pk=closed.pk)).data,
                        status=status.HTTP_201_CREATED)
