"""Dealers at the tables over HTTP: sign in, relieve, and the shifts (rounds.services.dealers).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.shared.api.fields import GamingDayField
from casino.shared.api.pagination import PAGE_PARAMETERS, page_response, paginated
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.views import ApiView
from rounds.api import examples as ex
from rounds.models import DealerShift
from rounds.selectors import dealer_shift_list, table_detail
from rounds.services.dealers import RUN, dealer_shift_end, dealer_shift_start

VIEW_SHIFTS = "rounds.view_dealershift"


class DealerSignInIn(serializers.Serializer):
    dealer = serializers.CharField(
        max_length=150, required=False, allow_blank=True,
        help_text="The dealer's username; empty or left out: the signed-in user. Only a pit "
                  "boss names another dealer.")


class DealerShiftOut(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    table_name = serializers.CharField(source="table.name")
    dealer = serializers.CharField(source="dealer.username")
    gaming_day = serializers.DateField()
    started_at = serializers.DateTimeField()
    started_by = serializers.CharField(source="started_by.username")
    ended_at = serializers.DateTimeField(allow_null=True,
                                         help_text="null while the dealer is still dealing")
    ended_by = serializers.CharField(source="ended_by.username", allow_null=True,
                                     default=None)


class DealerShiftQueryIn(serializers.Serializer):
    table = serializers.IntegerField(required=False, min_value=1)
    dealer = serializers.CharField(required=False, max_length=150)
    gaming_day = GamingDayField(required=False)
    open = serializers.BooleanField(required=False, default=False)


def _shift_out(shift: DealerShift, code: int = status.HTTP_200_OK) -> Response:
    fresh = dealer_shift_list().get(pk=shift.pk)
    return Response(DealerShiftOut(fresh).data, status=code)


class TableDealerView(ApiView):
    permission_classes = [requires(RUN)]
    refusal_action = "dealer_sign_in"

    @extend_schema(
        summary="Sign in at a table as its dealer",
        description="The signed-in user deals at the table from now; a pit boss may name "
                    "another dealer. The dealer signed in there until now is relieved. "
                    "Each round opened meanwhile records who dealt it. 409 `already_dealing`"
                    ", `dealing_elsewhere` (relieved at the other table first), "
                    "`table_closed`; 403 `not_your_shift` for a dealer naming someone else.",
        request=DealerSignInIn, examples=ex.DEALER_SIGN_IN,
        responses={201: DealerShiftOut})
    def post(self, request: Request, table_id: int) -> Response:
        data = parse(DealerSignInIn, request.data)
        shift = dealer_shift_start(table_id=table_id, by=acting_user(request),
                                   dealer=data.get("dealer") or None)
        return _shift_out(shift, status.HTTP_201_CREATED)


class TableDealerRelieveView(ApiView):
    permission_classes = [requires(RUN)]
    refusal_action = "dealer_relieve"

    @extend_schema(
        summary="Relieve the table's dealer",
        description="By the dealer themselves or a pit boss (403 `not_your_shift` for "
                    "another dealer); 409 `no_dealer` when nobody is signed in there.",
        request=None, responses={200: DealerShiftOut})
    def post(self, request: Request, table_id: int) -> Response:
        shift = dealer_shift_end(table_id=table_id, by=acting_user(request))
        return _shift_out(shift)


class DealerShiftsView(ApiView):
    query = DealerShiftQueryIn
    answers_pages = True
    permission_classes = [requires(VIEW_SHIFTS)]

    @extend_schema(
        summary="Dealers' shifts at the tables, newest first",
        operation_id="dealer_shifts_list",
        parameters=[
            OpenApiParameter("table", int, description="Only this table's"),
            OpenApiParameter("dealer", str, description="Only this dealer's (username)"),
            OpenApiParameter("gaming_day", OpenApiTypes.DATE,
                             description="Started on this gaming day (YYYY-MM-DD)"),
            OpenApiParameter("open", OpenApiTypes.BOOL,
                             description="Only the dealers signed in now"),
            *PAGE_PARAMETERS],
        responses={200: paginated(DealerShiftOut(many=True), "PaginatedDealerShiftOutList")})
    def get(self, request: Request) -> Response:
        query = self.query_values(request)
        if query.get("table") is not None:
            table_detail(table_id=query["table"])  # 404 for no such table
        shifts = dealer_shift_list(table_id=query.get("table"), dealer=query.get("dealer"),
                                   gaming_day=query.get("gaming_day"),
                                   open_only=query["open"])
        return page_response(request, self, shifts, lambda s: DealerShiftOut(s).data)
