"""The house edge of a table's rules (docs/rules.md, "House edge"); players' ratings are
a report (reports/api.py)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from casino.shared.api.permissions import requires
from casino.shared.api.views import ApiView
from casino.shared.money import format_minor
from rounds.edges import table_edge


class EdgeOut(serializers.Serializer):
    player = serializers.CharField(help_text="A seat's expected loss per unit wagered "
                                             "against the bank (0.02735 = 2.735 %).")
    banker = serializers.CharField(help_text="A player-banker's expected loss per unit of "
                                             "action covered, commission included.")
    how = serializers.ChoiceField(choices=["exact", "simulated"])
    confidence = serializers.CharField(help_text="95 % half-width of the estimates.")
    rounds = serializers.IntegerField(help_text="Hands played to estimate them.")
    variance_per_wager = serializers.CharField(
        help_text="Variance of a seat's result per unit wagered (for the day's band).")
    reference_wager = serializers.CharField(
        help_text="The wager the commission's rounding is taken on: the table minimum.")


class TableEdgeView(ApiView):
    permission_classes = [requires("rounds.view_table")]

    @extend_schema(summary="The house edge of each position under the table's current rules",
                   responses={200: EdgeOut})
    def get(self, request: Request, table_id: int) -> Response:
        table, edge = table_edge(table_id=table_id)
        return Response(EdgeOut({
            "player": str(edge.player), "banker": str(edge.banker), "how": edge.how,
            "confidence": str(edge.confidence), "rounds": edge.rounds,
            "variance_per_wager": str(edge.variance_per_wager),
            "reference_wager": format_minor(edge.reference_wager, table.currency),
        }).data)
