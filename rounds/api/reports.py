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
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from casino.shared.api.pagination import PAGE_PARAMETERS, Pagination, paginated
from casino.shared.api.permissions import acting_user, requires
from casino.shared.errors import Conflict, NotFound
from casino.shared.money import format_minor
from rounds.models import ClosedDay, Report
from rounds.report_files.formats import FORMATS
from rounds.report_files.kinds import KINDS
from rounds.services import reporting
from rounds.services.gaming_days import gaming_day_close

RUN_REPORTS = requires("rounds.run_reports")


class ReportIn(serializers.Serializer):
    kind = serializers.ChoiceField(choices=sorted(KINDS))
    format = serializers.ChoiceField(choices=sorted(FORMATS))
    # Each kind's parameters (see docs/api.md); which are required depends on the kind,
    # so they are checked by rounds.report_files.kinds.report_parameters.
    table = serializers.CharField(required=False, max_length=20)
    gaming_day = serializers.CharField(required=False, max_length=20,
                                       help_text="YYYY-MM-DD (table_day, floor_day)")
    date_from = serializers.CharField(required=False, max_length=20,
                                      help_text="YYYY-MM-DD (banker, player_statement)")
    date_to = serializers.CharField(required=False, max_length=20,
                                    help_text="YYYY-MM-DD, inclusive")
    player = serializers.CharField(required=False, max_length=20)
    as_of = serializers.CharField(required=False, max_length=40,
                                  help_text="ISO 8601 time with offset (trial_balance)")


class ChainHeadOut(serializers.Serializer):
    seq = serializers.IntegerField()
    hash = serializers.CharField()


class ReportOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    format = serializers.CharField()
    parameters = serializers.DictField(child=serializers.CharField())
    status = serializers.ChoiceField(choices=Report.Status.values)
    progress = serializers.IntegerField(help_text="Percent done.")
    error = serializers.CharField(help_text="Why it failed; empty otherwise.")
    attempts = serializers.IntegerField()
    requested_by = serializers.CharField(source="requested_by.username")
    requested_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    file = serializers.SerializerMethodField(help_text="Where to download it, once done.")
    file_name = serializers.CharField()
    content_type = serializers.CharField()
    chain_head = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_file(self, report: Report) -> str | None:
        if report.status != Report.Status.DONE:
            return None
        return reverse("report-file", args=[report.pk], request=self.context.get("request"))

    @extend_schema_field(ChainHeadOut(allow_null=True))
    def get_chain_head(self, report: Report) -> dict[str, Any] | None:
        """The ledger's chain head the figures were read at (ledger_verify --expect)."""
        if report.chain_seq is None:
            return None
        return {"seq": report.chain_seq, "hash": report.chain_hash}


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
        paginator = Pagination()
        page = paginator.paginate_queryset(reports.order_by("-id"), request, view=self)
        assert page is not None
        return paginator.get_paginated_response(
            [ReportOut(r, context={"request": request}).data for r in page])

    @extend_schema(summary="Ask for a report file (made by a worker; 202 at once)",
                   request=ReportIn, responses={202: ReportOut})
    def post(self, request: Request) -> Response:
        data = ReportIn(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
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
                   responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
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

class ClosedTableDayOut(serializers.Serializer):
    table = serializers.IntegerField(source="table_id", allow_null=True,
                                     help_text="Empty on the floor's total row.")
    table_name = serializers.CharField()
    currency = serializers.CharField()
    rounds_settled = serializers.IntegerField()
    rounds_reversed = serializers.IntegerField()
    rounds_voided = serializers.IntegerField()
    handle = serializers.SerializerMethodField()
    house_result = serializers.SerializerMethodField()
    commission_players = serializers.SerializerMethodField()
    commission_bankers = serializers.SerializerMethodField()
    adjustments = serializers.SerializerMethodField()

    def _money(self, row: Any, name: str) -> str:
        return format_minor(getattr(row, name), row.currency)

    def get_handle(self, row: Any) -> str:
        return self._money(row, "handle")

    def get_house_result(self, row: Any) -> str:
        return format_minor(row.house_win_house_banked + row.house_win_house_stakes
                            + row.commission_players + row.commission_bankers, row.currency)

    def get_commission_players(self, row: Any) -> str:
        return self._money(row, "commission_players")

    def get_commission_bankers(self, row: Any) -> str:
        return self._money(row, "commission_bankers")

    def get_adjustments(self, row: Any) -> str:
        return self._money(row, "adjustments")


class ClosedDayOut(serializers.Serializer):
    gaming_day = serializers.DateField()
    closed_at = serializers.DateTimeField()
    closed_by = serializers.CharField(source="closed_by.username", allow_null=True,
                                      default=None)
    chain_head = serializers.SerializerMethodField()
    tables = ClosedTableDayOut(many=True)

    @extend_schema_field(ChainHeadOut)
    def get_chain_head(self, closed: ClosedDay) -> dict[str, Any]:
        return {"seq": closed.chain_seq, "hash": closed.chain_hash}


def _closed_days() -> Any:
    return ClosedDay.objects.select_related("closed_by").prefetch_related("tables")


class GamingDaysView(APIView):
    permission_classes = [RUN_REPORTS]

    @extend_schema(summary="Closed gaming days with their stored figures, newest first",
                   operation_id="gaming_days_list", parameters=PAGE_PARAMETERS,
                   responses={200: paginated(ClosedDayOut(many=True),
                                             "PaginatedClosedDayOutList")})
    def get(self, request: Request) -> Response:
        paginator = Pagination()
        page = paginator.paginate_queryset(_closed_days().order_by("-gaming_day"), request,
                                           view=self)
        assert page is not None
        return paginator.get_paginated_response(ClosedDayOut(page, many=True).data)


class GamingDayCloseIn(serializers.Serializer):
    gaming_day = serializers.DateField(help_text="YYYY-MM-DD")


class GamingDayCloseView(APIView):
    permission_classes = [requires("rounds.close_gaming_day")]

    @extend_schema(summary="Close a gaming day (pit boss): store its figures for good",
                   request=GamingDayCloseIn, responses={201: ClosedDayOut})
    def post(self, request: Request) -> Response:
        data = GamingDayCloseIn(data=request.data)
        data.is_valid(raise_exception=True)
        closed = gaming_day_close(gaming_day=data.validated_data["gaming_day"],
                                  by=acting_user(request))
        return Response(ClosedDayOut(_closed_days().get(pk=closed.pk)).data,
                        status=status.HTTP_201_CREATED)
