"""The house edge of a table's rules, and players' ratings (docs/rules.md, "House edge"
and "Player rating")."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.models import Player
from casino.shared.api.fields import GamingDayField
from casino.shared.api.parse import parse
from casino.shared.api.permissions import requires
from casino.shared.errors import NotFound
from casino.shared.money import format_minor
from rounds.api.serializers import MoneyOut
from rounds.edges import table_edge
from rounds.ratings import player_ratings


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


class TableEdgeView(APIView):
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


class RatingsIn(serializers.Serializer):
    gaming_day = GamingDayField()
    # A database id at most: a larger number is refused here, not by PostgreSQL.
    player = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)


class RatingOut(serializers.Serializer):
    gaming_day = serializers.DateField()
    player = serializers.IntegerField(source="player_id")
    player_name = serializers.CharField()
    table = serializers.IntegerField(source="table_id")
    table_name = serializers.CharField()
    currency = serializers.CharField()
    time_seated_s = serializers.IntegerField()
    rounds = serializers.IntegerField()
    wagers = serializers.IntegerField()
    wagered = MoneyOut()
    average_wager = MoneyOut()
    rounds_banked = serializers.IntegerField()
    action_covered = MoneyOut()
    actual = MoneyOut(help_text="The player's own result, commission included (+ won).")
    theoretical = MoneyOut(help_text="The house's theoretical win from that play.")


class RatingsView(APIView):
    permission_classes = [requires("rounds.run_reports", "casino.view_player")]

    @extend_schema(
        summary="Players' ratings per table for a gaming day (pit boss, auditor)",
        parameters=[OpenApiParameter("gaming_day", str, required=True,
                                     description="YYYY-MM-DD"),
                    OpenApiParameter("player", int, required=False,
                                     description="one player's; all players without it")],
        responses={200: RatingOut(many=True)})
    def get(self, request: Request) -> Response:
        query = parse(RatingsIn, request.query_params)
        player = query.get("player")
        if player is not None and not Player.objects.filter(pk=player).exists():
            raise NotFound(f"There is no player #{player}.", detail={"player": player})
        rows = player_ratings(gaming_day=query["gaming_day"], player_id=player)
        return Response([RatingOut(r, context={"currency": r.currency}).data for r in rows])
