"""A table's day against its expected band over HTTP (rounds.variance, docs/rules.md §12.3):
the check as the floor says it, and a pit boss's explanation of a flagged day."""

from __future__ import annotations

from datetime import date

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.shared.api.fields import GamingDayField
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.views import ApiView
from casino.shared.gaming_day import gaming_day_of
from casino.shared.money import format_minor
from rounds.api import examples as ex
from rounds.services.variance import (
    EXPLAIN_VARIANCE,
    variance_explain,
    variance_explainer_check,
)
from rounds.variance import TableVariance, day_said, min_rounds, table_variance

RUN_REPORTS = "rounds.run_reports"


class VarianceQueryIn(serializers.Serializer):
    gaming_day = GamingDayField(required=False, help_text="YYYY-MM-DD; today by default")


class VarianceExplainIn(serializers.Serializer):
    gaming_day = GamingDayField(required=False, help_text="YYYY-MM-DD; today by default")
    reason = serializers.CharField(max_length=2000,
                                   help_text="What explains the table's result, in words")


class ExplanationOut(serializers.Serializer):
    id = serializers.IntegerField()
    reason = serializers.CharField()
    explained_by = serializers.CharField(source="explained_by.username")
    explained_at = serializers.DateTimeField()
    rounds = serializers.IntegerField(help_text="House-banked rounds when it was explained")
    result = serializers.CharField(help_text="The house's house-banked result then")


class VarianceOut(serializers.Serializer):
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    gaming_day = serializers.DateField()
    currency = serializers.CharField()
    rounds = serializers.IntegerField(help_text="The day's settled house-banked rounds")
    min_rounds = serializers.IntegerField(
        help_text="Rounds the check starts at (CASINO_VARIANCE_MIN_ROUNDS)")
    handle = serializers.CharField(help_text="The house-banked wagers")
    expected = serializers.CharField(help_text="The house's expected result from them")
    band = serializers.CharField(help_text="Half-width of the 95 % band around it")
    result = serializers.CharField(help_text="The house's actual result from them")
    checked = serializers.BooleanField(help_text="rounds >= min_rounds")
    outside_band = serializers.BooleanField()
    flagged = serializers.BooleanField(help_text="Checked and outside its band: to explain")
    sentence = serializers.CharField(help_text="The check in words, as the floor says it")
    explanation = ExplanationOut(allow_null=True)


def _out(check: TableVariance, day: date) -> dict:
    b, c = check.band, check.currency
    e = check.explanation
    return VarianceOut({
        "table": check.table_id, "table_name": check.table_name, "gaming_day": day,
        "currency": c, "rounds": b.rounds, "min_rounds": min_rounds(),
        "handle": format_minor(b.handle, c), "expected": format_minor(b.expected, c),
        "band": format_minor(b.band, c), "result": format_minor(b.result, c),
        "checked": b.checked, "outside_band": b.outside_band, "flagged": b.flagged,
        "sentence": check.sentence,
        "explanation": None if e is None else {
            "id": e.pk, "reason": e.reason, "explained_by": e.explained_by,
            "explained_at": e.explained_at, "rounds": e.rounds,
            "result": format_minor(e.result, c)},
    }).data


class TableVarianceView(ApiView):
    query = VarianceQueryIn
    permission_classes = [requires(RUN_REPORTS, POST=EXPLAIN_VARIANCE)]
    refusal_action = "rounds.variance_explain"
    refusal_ref = "table:{table_id}"

    @extend_schema(summary="A table's day against its expected band",
                   description="Pit boss, auditor. The day's settled house-banked rounds "
                               "against the game's expectation (docs/rules.md §12.3): "
                               "checked once the day has min_rounds of them, flagged when "
                               "then outside its band, and the pit boss's explanation.",
                   parameters=[OpenApiParameter("gaming_day", OpenApiTypes.DATE,
                                                description="YYYY-MM-DD; today by default")],
                   responses={200: VarianceOut})
    def get(self, request: Request, table_id: int) -> Response:
        day = self.query_values(request).get("gaming_day") or gaming_day_of()
        return Response(_out(table_variance(table_id=table_id, gaming_day=day,
                                            when=day_said(day)), day))

    @extend_schema(summary="Explain a table's day outside its expected band",
                   description="A pit boss, signed in as themselves. 409 nothing_to_explain "
                               "when the day is not flagged (within its band, or fewer "
                               "rounds than the check starts at); 409 variance_explained "
                               "when it is explained already. Kept as said, never changed.",
                   request=VarianceExplainIn, examples=ex.VARIANCE_EXPLAIN,
                   responses={201: VarianceOut})
    def post(self, request: Request, table_id: int) -> Response:
        variance_explainer_check(by=acting_user(request))
        data = parse(VarianceExplainIn, request.data)
        day = data.get("gaming_day") or gaming_day_of()
        variance_explain(table_id=table_id, gaming_day=day, reason=data["reason"],
                         by=acting_user(request))
        check = table_variance(table_id=table_id, gaming_day=day, when=day_said(day))
        return Response(_out(check, day), status=status.HTTP_201_CREATED)
