"""The cash rules' records (casino.cash): the multiple transaction log and the cash
transaction reports of a gaming day, and filing a report. Thin: parse, call, render."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from casino import cash
from casino.models import CashReport, CashReportFiling
from casino.shared.api.fields import GamingDayField
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.views import ApiView
from casino.shared.gaming_day import gaming_day_of
from casino.shared.money import format_minor


class GamingDayQuery(serializers.Serializer):
    gaming_day = GamingDayField(required=False, help_text="YYYY-MM-DD; the current one by "
                                                          "default.")


class CashLogRowOutput(serializers.Serializer):
    player = serializers.IntegerField(help_text="The player's id.")
    player_name = serializers.CharField()
    time = serializers.DateTimeField()
    direction = serializers.ChoiceField(choices=["in", "out"])
    amount = serializers.CharField(help_text="In the player's currency; negative for a "
                                             "correction.")
    currency = serializers.CharField()
    kind = serializers.CharField(help_text="deposit, buy_in, withdrawal or correction")
    entry = serializers.IntegerField(help_text="The ledger entry.")
    corrects = serializers.IntegerField(allow_null=True,
                                        help_text="For a correction, the entry it corrects.")
    by = serializers.CharField(help_text="Who recorded it (empty: the system).")


def _log_row(row: cash.CashLogRow) -> dict[str, Any]:
    m = row.movement
    return {"player": row.player_id, "player_name": row.player_name, "time": m.at,
            "direction": m.direction, "amount": format_minor(m.amount, row.currency),
            "currency": row.currency, "kind": m.kind, "entry": m.entry_id,
            "corrects": m.corrects, "by": m.by}


class CashLogView(ApiView):
    query = GamingDayQuery
    permission_classes = [requires("casino.view_cash_log")]

    @extend_schema(
        summary="The multiple transaction log of a gaming day",
        description="Every single cash movement above CASINO_CASH_LOG_ABOVE (3,000.00 by "
                    "default, in the player's currency): deposits, table buy-ins, "
                    "withdrawals, and corrections of them, in time order.",
        parameters=[GamingDayQuery], responses={200: CashLogRowOutput(many=True)})
    def get(self, request: Request) -> Response:
        day = self.query_values(request).get("gaming_day") or gaming_day_of()
        rows = [_log_row(r) for r in cash.cash_log(gaming_day=day)]
        return Response(CashLogRowOutput(rows, many=True).data)


class CashReportFilingOutput(serializers.Serializer):
    filed_at = serializers.DateTimeField()
    filed_by = serializers.CharField(source="filed_by.username")
    cash_in = serializers.SerializerMethodField()
    cash_out = serializers.SerializerMethodField()

    def get_cash_in(self, filing: CashReportFiling) -> str:
        return format_minor(filing.cash_in, filing.report.currency)

    def get_cash_out(self, filing: CashReportFiling) -> str:
        return format_minor(filing.cash_out, filing.report.currency)


class CashReportOutput(serializers.Serializer):
    id = serializers.IntegerField()
    player = serializers.IntegerField(source="player_id")
    player_name = serializers.CharField(source="player.name")
    gaming_day = serializers.DateField()
    currency = serializers.CharField()
    cash_in = serializers.SerializerMethodField()
    cash_out = serializers.SerializerMethodField()
    movements = serializers.ListField(child=serializers.IntegerField(),
                                      help_text="The day's ledger entry ids.")
    report_line_passed = serializers.BooleanField()
    splitting_suspected = serializers.BooleanField()
    reasons = serializers.ListField(child=serializers.CharField())
    identity = serializers.JSONField(help_text="The player's identity on file when the "
                                               "figures were last written.")
    history = serializers.JSONField(help_text="Earlier versions of the figures.")
    updated_at = serializers.DateTimeField()
    filed_at = serializers.DateTimeField(source="last_filing.filed_at", allow_null=True,
                                         help_text="When it was last filed; null: never.")
    filed_by = serializers.CharField(source="last_filing.filed_by.username", allow_null=True,
                                     help_text="Who filed it last; null: nobody yet.")
    amended_since_filing = serializers.BooleanField(
        help_text="Filed, and its figures now differ from the last filing's: to be filed "
                  "again (an amendment).")
    filings = CashReportFilingOutput(many=True, source="filings.all",
                                     help_text="Every filing, oldest first, with the "
                                               "figures filed; the first is the filing, "
                                               "the others amendments.")

    def get_cash_in(self, report: CashReport) -> str:
        return format_minor(report.cash_in, report.currency)

    def get_cash_out(self, report: CashReport) -> str:
        return format_minor(report.cash_out, report.currency)



class CashReportListView(ApiView):
    query = GamingDayQuery
    permission_classes = [requires("casino.view_cashreport")]

    @extend_schema(
        summary="The cash transaction reports of a gaming day",
        description="A player's day whose cash in or cash out passed "
                    "CASINO_CASH_REPORT_ABOVE (10,000.00 by default), or whose movements "
                    "look split to stay under a line (`splitting_suspected`, docs/rules.md).",
        parameters=[GamingDayQuery], responses={200: CashReportOutput(many=True)})
    def get(self, request: Request) -> Response:
        day = self.query_values(request).get("gaming_day") or gaming_day_of()
        return Response(CashReportOutput(cash.cash_reports(gaming_day=day), many=True).data)


class CashReportFileView(ApiView):
    permission_classes = [requires("casino.file_cashreport")]

    @extend_schema(summary="File a cash transaction report, or file it again as an amendment",
                   description="Records a filing (who, when, the figures filed). A report "
                               "whose figures changed since its last filing "
                               "(`amended_since_filing`) is filed again as an amendment; "
                               "one unchanged since its last filing is refused (409 "
                               "`cash_report_filed`).",
                   request=None, responses={200: CashReportOutput})
    def post(self, request: Request, report_id: int) -> Response:
        cash.cash_report_file(report_id=report_id, by=acting_user(request))
        return Response(CashReportOutput(cash.cash_report_get(report_id=report_id)).data)

