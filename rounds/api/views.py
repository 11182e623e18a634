"""Tables, seats and rounds over HTTP: parse, call one service, render the result.

Every step of a round answers with the whole round (``RoundOut``), so a client always sees
the state the step left behind.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.selectors import player_balance
from casino.shared import approvals
from casino.shared.api.approvals import approval_response
from casino.shared.api.pagination import PAGE_PARAMETERS, page_response, paginated
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.serializers import ApprovalOutput
from casino.shared.api.views import ApiView
from casino.shared.errors import PermissionRefused
from ledger.api.serializers import balance_data
from rounds import selectors, services
from rounds.api import examples as ex
from rounds.api.serializers import (
    BankerIn,
    DealIn,
    HandIn,
    ReasonIn,
    RoundFilterIn,
    RoundOut,
    SeatedPlayerOut,
    SeatIn,
    SeatOnlyIn,
    SettleIn,
    TableIn,
    TableOut,
    WagerIn,
    WagerLowerIn,
)
from rounds.approvals import REVERSE, SETTLE_RESULTS
from rounds.models import Round
from rounds.round_view import round_for, round_view, rounds_read

RUN = "rounds.run_rounds"
VIEW_ROUNDS = "rounds.view_round"


def _round_response(request: Request, round_id: int,
                    status_code: int = status.HTTP_200_OK) -> Response:
    """The round as the caller may see it (rounds.round_view): every step answers with it."""
    shown = round_for(acting_user(request), round_id)
    return Response(RoundOut(shown, context={"currency": shown.currency}).data,
                    status=status_code)


def _table_response(table_id: int, status_code: int = status.HTTP_200_OK) -> Response:
    table = selectors.table_detail(table_id=table_id)
    return Response(TableOut(table, context={"currency": table.currency}).data,
                    status=status_code)


# --- tables and seats -------------------------------------------------------------------------

class TablesView(ApiView):
    answers_pages = True
    permission_classes = [requires("rounds.view_table", POST="rounds.add_table")]

    @extend_schema(summary="List tables", operation_id="tables_list", parameters=PAGE_PARAMETERS,
                   responses={200: paginated(TableOut(many=True), "PaginatedTableOutList")})
    def get(self, request: Request) -> Response:
        return page_response(request, self, selectors.table_list(),
                             lambda t: TableOut(t, context={"currency": t.currency}).data)

    @extend_schema(summary="Open a new table (pit boss)", request=TableIn,
                   examples=ex.TABLE_CREATE,
                   responses={201: TableOut})
    def post(self, request: Request) -> Response:
        table = services.table_create(by=acting_user(request), **parse(TableIn, request.data))
        return _table_response(table.pk, status.HTTP_201_CREATED)


class TableDetailView(ApiView):
    permission_classes = [requires("rounds.view_table", PATCH="rounds.change_table")]

    @extend_schema(summary="A table with its settings and seats", responses={200: TableOut})
    def get(self, request: Request, table_id: int) -> Response:
        return _table_response(table_id)

    @extend_schema(summary="Change a table's settings between rounds (pit boss)",
                   request=TableIn(partial=True),
                   examples=ex.TABLE_CHANGE,
                   responses={200: TableOut})
    def patch(self, request: Request, table_id: int) -> Response:
        table = selectors.table_detail(table_id=table_id)
        changes = parse(TableIn, request.data, partial=True, currency=table.currency)
        services.table_update(table_id=table_id, by=acting_user(request), changes=changes)
        return _table_response(table_id)


class SeatView(ApiView):
    # Seating is the pit's: a dealer who could seat any player could wager an absent
    # player's money at a deal they run. Recording that a player left stays the dealer's.
    permission_classes = [requires(RUN, PUT="rounds.change_table")]

    @extend_schema(summary="Seat a player", request=SeatIn,
                   examples=ex.SEAT,
                   responses={200: TableOut})
    def put(self, request: Request, table_id: int, number: int) -> Response:
        data = parse(SeatIn, request.data)
        services.seat_take(table_id=table_id, number=number, player_id=data["player"],
                           by=acting_user(request))
        return _table_response(table_id)

    @extend_schema(summary="The player leaves the seat", request=None,
                   responses={200: TableOut})
    def delete(self, request: Request, table_id: int, number: int) -> Response:
        services.seat_leave(table_id=table_id, number=number, by=acting_user(request))
        return _table_response(table_id)


class TablePlayersView(ApiView):
    permission_classes = [requires("rounds.view_seat")]

    @extend_schema(
        summary="The players seated at a table, with their balances",
        description="Staff with casino.view_player see any table's. A dealer sees the "
                    "players of the tables they run: where they opened a round or took a "
                    "step of one this gaming day (403 `not_your_table` otherwise).",
        responses={200: SeatedPlayerOut(many=True)})
    def get(self, request: Request, table_id: int) -> Response:
        selectors.table_detail(table_id=table_id)  # 404 for no such table
        user = acting_user(request)
        if not user.has_perm("casino.view_player") and not selectors.table_run_by(
                table_id=table_id, user=user):
            raise PermissionRefused(
                "You see the players of the tables you run: open a round at this table, "
                "or take a step of one, first.", code="not_your_table",
                detail={"table_id": table_id})
        return Response([
            {"seat": seat, "player": player.pk, "name": player.name,
             "balance": balance_data(player_balance(player))}
            for seat, player in selectors.table_players(table_id=table_id)])


class TableRoundsView(ApiView):
    query = RoundFilterIn
    answers_pages = True
    permission_classes = [requires(VIEW_ROUNDS, POST=RUN)]

    @extend_schema(
        summary="Rounds played at a table", operation_id="tables_rounds_list",
        parameters=[
            OpenApiParameter("state", str, enum=[s for s, _ in Round.State.choices]),
            OpenApiParameter("gaming_day", OpenApiTypes.DATE, description="YYYY-MM-DD"),
            *PAGE_PARAMETERS,
        ],
        responses={200: paginated(RoundOut(many=True), "PaginatedRoundOutList")},
    )
    def get(self, request: Request, table_id: int) -> Response:
        filters = self.query_values(request)
        rounds = rounds_read(acting_user(request)).filter(table_id=table_id, **filters)
        return page_response(request, self, rounds.order_by("-number"),
                             lambda r: RoundOut(round_view(r),
                                                context={"currency": r.currency}).data)

    @extend_schema(summary="Open the next round at the table", request=None,
                   responses={201: RoundOut})
    def post(self, request: Request, table_id: int) -> Response:
        round_ = services.round_open(table_id=table_id, by=acting_user(request))
        return _round_response(request, round_.pk, status.HTTP_201_CREATED)


# --- rounds ---------------------------------------------------------------------------------

class RoundDetailView(ApiView):
    permission_classes = [requires(VIEW_ROUNDS)]

    @extend_schema(summary="A round: its whole story and settlement",
                   responses={200: RoundOut})
    def get(self, request: Request, round_id: int) -> Response:
        return _round_response(request, round_id)


class WagersView(ApiView):
    permission_classes = [requires(RUN)]

    @extend_schema(summary="Place a seat's wager (held on the player's account)",
                   request=WagerIn, examples=ex.WAGER, responses={201: RoundOut})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(WagerIn, request.data,
                     currency=selectors.round_currency(round_id=round_id))
        services.wager_place(round_id=round_id, seat=data["seat"], amount=data["amount"],
                             by=acting_user(request))
        return _round_response(request, round_id, status.HTTP_201_CREATED)


class WagerView(ApiView):
    permission_classes = [requires(RUN)]

    @extend_schema(summary="Clear a seat's wager before the deal",
                   description="While betting, or once the banker is set (to bring the felt "
                               "down to what a player-banker covers).",
                   request=None, responses={200: RoundOut})
    def delete(self, request: Request, round_id: int, seat: int) -> Response:
        services.wager_clear(round_id=round_id, seat=seat, by=acting_user(request))
        return _round_response(request, round_id)

    @extend_schema(summary="Lower a seat's wager before the deal",
                   description="While betting, or once the banker is set; never up. The old "
                               "hold is released and the lower amount held (400 "
                               "`out_of_limits` below the table minimum or not lower).",
                   request=WagerLowerIn, examples=ex.WAGER_LOWER, responses={200: RoundOut})
    def patch(self, request: Request, round_id: int, seat: int) -> Response:
        data = parse(WagerLowerIn, request.data,
                     currency=selectors.round_currency(round_id=round_id))
        services.wager_lower(round_id=round_id, seat=seat, amount=data["amount"],
                             by=acting_user(request))
        return _round_response(request, round_id)


class RebetView(ApiView):
    permission_classes = [requires(RUN)]

    @extend_schema(summary="Repeat the seat's last wager", request=SeatOnlyIn,
                   examples=ex.SEAT_ONLY,
                   responses={201: RoundOut})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(SeatOnlyIn, request.data)
        services.wager_rebet(round_id=round_id, seat=data["seat"], by=acting_user(request))
        return _round_response(request, round_id, status.HTTP_201_CREATED)


class BankerView(ApiView):
    permission_classes = [requires(RUN)]

    @extend_schema(summary="Set the banker: the house, or a seat with its house stake; at a "
                           "card-room table a player-dealer's seat with its cover and a "
                           "proposition player, or the proposition player alone",
                   description="Card room: `{\"seat\": 1, \"cover\": \"150.00\", "
                               "\"third_party\": 9}` (cover omitted: all the action), or "
                               "`{\"third_party\": 9}` once every seated player declined. "
                               "409 `house_may_not_bank`, `house_may_not_stake`, "
                               "`bank_limit_reached`, `bank_time_up`, `bank_not_offered`, "
                               "`not_a_proposition_player`; 409 `not_card_room` for a cover "
                               "or a proposition player at a casino table.",
                   request=BankerIn, examples=ex.BANKER, responses={200: RoundOut})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(BankerIn, request.data,
                     currency=selectors.round_currency(round_id=round_id))
        services.banker_set(round_id=round_id, by=acting_user(request),
                            house=data["house"], seat=data.get("seat"),
                            house_stake=data.get("house_stake", 0), cover=data.get("cover"),
                            third_party=data.get("third_party"))
        return _round_response(request, round_id)


class BankDeclineView(ApiView):
    permission_classes = [requires(RUN)]

    @extend_schema(summary="The seat offered the bank declines it; the offer passes on",
                   description="Only the seat the rotation offers the bank to now may "
                               "decline, while the round takes wagers (409 "
                               "`bank_not_offered` otherwise). The round's `bank_declined` "
                               "lists who declined, in order.",
                   request=SeatOnlyIn, examples=ex.DECLINE, responses={200: RoundOut})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(SeatOnlyIn, request.data)
        services.round_bank_decline(round_id=round_id, seat=data["seat"],
                                    by=acting_user(request))
        return _round_response(request, round_id)


class DealView(ApiView):
    permission_classes = [requires(RUN)]
    # A refused deal (an insolvent banker, ...) leaves a trace (casino.shared.refusals).
    refusal_action = "round_deal"
    refusal_ref = "round:{round_id}"

    @extend_schema(summary="Solvency check, then deal (electronic, physical, results only)",
                   request=DealIn, examples=ex.DEAL, responses={200: RoundOut})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(DealIn, request.data)
        services.round_deal(round_id=round_id, by=acting_user(request),
                            hands=data.get("hands"), results_only=data["results_only"])
        return _round_response(request, round_id)


class HandsView(ApiView):
    permission_classes = [requires(RUN)]

    @extend_schema(summary="Set a position's hand (or by the house way)", request=HandIn,
                   examples=ex.HAND,
                   responses={200: RoundOut})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(HandIn, request.data)
        services.hand_set(round_id=round_id, position=data["position"],
                          by=acting_user(request), high=data.get("high"), low=data.get("low"),
                          house_way=data["house_way"], as_played=data["as_played"])
        return _round_response(request, round_id)


class SettleView(ApiView):
    permission_classes = [requires(RUN)]
    # A results-only round checks the banker's cover here instead of at the deal.
    refusal_action = "round_settle"
    refusal_ref = "round:{round_id}"

    @extend_schema(summary="Settle the round: one ledger entry", request=SettleIn,
                   examples=ex.SETTLE,
                   description="With outcomes (a results-only round) and dual control on, "
                               "the answer is 202 with a pending request that a second "
                               "person with casino.approve_results approves.",
                   responses={200: RoundOut, 202: ApprovalOutput})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(SettleIn, request.data)
        outcomes = data.get("outcomes")
        if outcomes is None:
            services.round_settle(round_id=round_id, by=acting_user(request))
            return _round_response(request, round_id)
        done = approvals.action_submit(action=SETTLE_RESULTS,
                                       params={"round_id": round_id, "outcomes": outcomes},
                                       by=acting_user(request))
        if done.approval is not None:
            return approval_response(done.approval, status.HTTP_202_ACCEPTED)
        return _round_response(request, round_id)


class VoidView(ApiView):
    permission_classes = [requires("rounds.void_round")]

    @extend_schema(summary="Void the round before settlement (pit boss)", request=ReasonIn,
                   examples=ex.REASON_VOID,
                   responses={200: RoundOut})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(ReasonIn, request.data)
        services.round_void(round_id=round_id, reason=data["reason"], by=acting_user(request))
        return _round_response(request, round_id)


class ReverseView(ApiView):
    permission_classes = [requires("rounds.reverse_round")]
    # Every refused reversal leaves a trace (casino.shared.refusals).
    refusal_action = "rounds.reverse"
    refusal_ref = "round:{round_id}"

    @extend_schema(summary="Reverse a settled round with a reason (pit boss)",
                   description="With dual control on, the answer is 202 with a pending "
                               "request that a second person approves.",
                   request=ReasonIn,
                   examples=ex.REASON_REVERSE,
                   responses={200: RoundOut, 202: ApprovalOutput})
    def post(self, request: Request, round_id: int) -> Response:
        data = parse(ReasonIn, request.data)
        done = approvals.action_submit(action=REVERSE,
                                       params={"round_id": round_id, "reason": data["reason"]},
                                       by=acting_user(request))
        if done.approval is not None:
            return approval_response(done.approval, status.HTTP_202_ACCEPTED)
        return _round_response(request, round_id)
