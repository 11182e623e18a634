"""The reports over the API: a table's and the floor's day; the auditors' report files
(ask for one, watch it, download it); and the closed gaming days.

The request is answered 202 at once; a Celery worker makes the file after the request
commits (reports.services). Every view needs rounds.run_reports, and a report
of a kind the caller's role may not read is not found for them.
"""

from __future__ import annotations

from typing import Any

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.models import Player
from casino.shared.api.pagination import PAGE_PARAMETERS, page_response, paginated
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.serializers import ErrorOutput
from casino.shared.api.views import ApiView
from casino.shared.db import read_in_snapshot
from casino.shared.errors import Conflict, NotFound
from reports import examples as ex
from reports import services as reporting
from reports.closing import gaming_day_close
from reports.files.kinds import KINDS
from reports.models import ClosedDay, Report
from reports.play import DayFigures, floor_day_report, table_day_report
from reports.serializers import (
    ClosedDayOut,
    GamingDayCloseIn,
    RatingOut,
    RatingsIn,
    ReadFromOut,
    ReportIn,
    ReportOut,
    ReportQueryIn,
    TableDayReadOut,
    TableDayReportOut,
)
from rounds.ratings import player_ratings

RUN_REPORTS = requires("rounds.run_reports")


def _visible(request: Request, report_id: int) -> Report:
    report = Report.objects.select_related("requested_by").filter(pk=report_id).first()
    if report is None or not reporting.report_may_read(user=acting_user(request), kind=report.kind):
        raise NotFound(f"There is no report #{report_id}.", detail={"report_id": report_id})
    return report


def _out(request: Request, report: Report, code: int = status.HTTP_200_OK) -> Response:
    return Response(ReportOut(report, context={"request": request}).data, status=code)


class ReportsView(ApiView):
    answers_pages = True
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
                   request=ReportIn, examples=ex.REPORT, responses={202: ReportOut})
    def post(self, request: Request) -> Response:
        fields = parse(ReportIn, request.data)
        kind, fmt = fields.pop("kind"), fields.pop("format")
        report = reporting.report_request(kind=kind, format=fmt, parameters=fields,
                                          by=acting_user(request))
        return _out(request, report, status.HTTP_202_ACCEPTED)


class ReportDetailView(ApiView):
    permission_classes = [RUN_REPORTS]

    @extend_schema(summary="A report: its status, progress and, once done, its file",
                   responses={200: ReportOut})
    def get(self, request: Request, report_id: int) -> Response:
        return _out(request, _visible(request, report_id))


class ReportRetryView(ApiView):
    permission_classes = [RUN_REPORTS]

    @extend_schema(summary="Ask again for a failed report", request=None,
                   responses={202: ReportOut})
    def post(self, request: Request, report_id: int) -> Response:
        _visible(request, report_id)
        report = reporting.report_retry(report_id=report_id, by=acting_user(request))
        return _out(request, report, status.HTTP_202_ACCEPTED)


class ReportFileView(ApiView):
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


class GamingDaysView(ApiView):
    answers_pages = True
    permission_classes = [RUN_REPORTS]

    @extend_schema(summary="Closed gaming days with their stored figures, newest first",
                   operation_id="gaming_days_list", parameters=PAGE_PARAMETERS,
                   responses={200: paginated(ClosedDayOut(many=True),
                                             "PaginatedClosedDayOutList")})
    def get(self, request: Request) -> Response:
        return page_response(request, self, _closed_days().order_by("-gaming_day"),
                             lambda closed: ClosedDayOut(closed).data)


class GamingDayCloseView(ApiView):
    permission_classes = [requires("reports.close_gaming_day")]

    @extend_schema(summary="Close a gaming day (pit boss): store its figures for good",
                   request=GamingDayCloseIn,
                   examples=ex.GAMING_DAY_CLOSE,
                   responses={201: ClosedDayOut})
    def post(self, request: Request) -> Response:
        data = parse(GamingDayCloseIn, request.data)
        closed = gaming_day_close(gaming_day=data["gaming_day"], by=acting_user(request))
        return Response(ClosedDayOut(_closed_days().get(pk=closed.pk)).data,
                        status=status.HTTP_201_CREATED)


# --- a table's and the floor's day ------------------------------------------------------

class TableReportView(ApiView):
    query = ReportQueryIn
    permission_classes = [requires("rounds.run_reports")]

    @extend_schema(
        summary="A table's figures for one gaming day (rules §10)",
        parameters=[OpenApiParameter("gaming_day", OpenApiTypes.DATE, required=True,
                                     description="YYYY-MM-DD")],
        responses={200: TableDayReadOut},
    )
    def get(self, request: Request, table_id: int) -> Response:
        query = self.query_values(request)
        report, source = read_in_snapshot(
            lambda: table_day_report(table_id=table_id, gaming_day=query["gaming_day"]))
        return Response({**TableDayReportOut(report, context={"currency": report.currency}).data,
                         "read_from": ReadFromOut(source).data})


class FloorReportView(ApiView):
    query = ReportQueryIn
    permission_classes = [requires("rounds.run_reports")]

    @extend_schema(
        summary="The floor's figures for one gaming day: every table, a total per currency",
        operation_id="floor_report",
        parameters=[OpenApiParameter("gaming_day", OpenApiTypes.DATE, required=True,
                                     description="YYYY-MM-DD")],
        responses={200: inline_serializer("FloorDayReportOut", {
            "gaming_day": serializers.DateField(),
            "tables": TableDayReportOut(many=True),
            "totals": TableDayReportOut(many=True),
            "read_from": ReadFromOut()})},
    )
    def get(self, request: Request) -> Response:
        query = self.query_values(request)
        floor, source = read_in_snapshot(
            lambda: floor_day_report(gaming_day=query["gaming_day"]))

        def rows(found: list[DayFigures]) -> list[dict]:
            return [TableDayReportOut(r, context={"currency": r.currency}).data for r in found]

        return Response({"gaming_day": floor.gaming_day.isoformat(),
                         "tables": rows(floor.tables), "totals": rows(floor.totals),
                         "read_from": ReadFromOut(source).data})


# --- players' ratings (docs/rules.md, "Player rating") ------------------------------------

class RatingsView(ApiView):
    query = RatingsIn
    permission_classes = [requires("rounds.run_reports", "casino.view_player")]

    @extend_schema(
        summary="Players' ratings per table for a gaming day (pit boss, auditor)",
        parameters=[OpenApiParameter("gaming_day", str, required=True,
                                     description="YYYY-MM-DD"),
                    OpenApiParameter("player", int, required=False,
                                     description="one player's; all players without it")],
        responses={200: RatingOut(many=True)})
    def get(self, request: Request) -> Response:
        query = self.query_values(request)
        player = query.get("player")
        if player is not None and not Player.objects.filter(pk=player).exists():
            raise NotFound(f"There is no player #{player}.", detail={"player": player})
        rows = player_ratings(gaming_day=query["gaming_day"], player_id=player)
        return Response([RatingOut(r, context={"currency": r.currency}).data for r in rows])
