"""Cash at the table and the drop counts over HTTP: parse, call one service, render.

A buy-in (dealer, pit boss) credits the seated player's account from the table's drop box;
a drop count (the cage or the count room) awaits the witness it names, who confirms it with
their own credentials (POST /drop-counts/{id}/witness); then it moves the counted cash to
the cage and the variance to the table's variance account, for someone other than the
counter to explain (docs/rules.md).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.shared import approvals
from casino.shared.api.approvals import approval_response
from casino.shared.api.fields import AmountField, GamingDayField
from casino.shared.api.pagination import PAGE_PARAMETERS, page_response, paginated
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user, requires
from casino.shared.api.serializers import ApprovalOutput
from casino.shared.api.views import ApiView
from casino.shared.errors import NotFound, ValidationFailed
from casino.shared.money import format_minor
from rounds.api import examples as ex
from rounds.drop import drop_count_list
from rounds.models import DropCount, Table
from rounds.services.drop import (
    CORRECT_BUY_IN,
    CORRECT_COUNT,
    CORRECT_DROP,
    COUNT_DROP,
    TAKE_BUY_IN,
    WITNESS_DROP,
    BuyIn,
    buy_in_submit,
    drop_count_confirm,
    drop_count_explain,
    drop_count_explain_check,
    drop_count_record,
    drop_count_refuse,
    drop_count_witness_check,
)

VIEW_COUNTS = "rounds.view_dropcount"


def _table_currency(table_id: int) -> str:
    currency = Table.objects.filter(pk=table_id).values_list("currency", flat=True).first()
    if currency is None:
        raise NotFound(f"There is no table #{table_id}.", detail={"table_id": table_id})
    return currency


class BuyInIn(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=6)
    amount = AmountField(positive=True, help_text="The cash taken, in the table's currency")


class BuyInOut(serializers.Serializer):
    id = serializers.IntegerField(source="entry_id", help_text="The ledger entry's id.")
    table = serializers.IntegerField(source="table_id")
    seat = serializers.IntegerField()
    player = serializers.IntegerField(source="player_id")
    player_name = serializers.CharField()
    amount = serializers.SerializerMethodField()
    currency = serializers.CharField()
    gaming_day = serializers.DateField()
    created_at = serializers.DateTimeField()

    def get_amount(self, buy_in: BuyIn) -> str:
        return format_minor(buy_in.amount, buy_in.currency)


class DropCountIn(serializers.Serializer):
    gaming_day = GamingDayField()
    counted = AmountField(help_text="The cash counted in the box, in the table's currency")
    witness = serializers.CharField(max_length=150,
                                    help_text="The witness's username: they confirm the "
                                              "count with their own credentials")
    note = serializers.CharField(max_length=2000, required=False, allow_blank=True,
                                 help_text="The counter's note (what they think a variance "
                                           "comes from): it does not explain the variance, "
                                           "someone else does")
    reason = serializers.CharField(max_length=2000, required=False, allow_blank=True,
                                   help_text="The note's older name, taken as the note")
    by = serializers.CharField(max_length=150, required=False,
                               help_text="The counter's username: the signed-in user")


class DropCountCorrectIn(serializers.Serializer):
    counted = AmountField(help_text="The cash counted again")
    witness = serializers.CharField(max_length=150,
                                    help_text="The recount's witness, who confirms it")
    reason = serializers.CharField(max_length=2000)


class DropCountWitnessIn(serializers.Serializer):
    confirm = serializers.BooleanField(help_text="true: the witness confirms the count and "
                                                 "it posts; false: they refuse it")
    reason = serializers.CharField(max_length=2000, required=False, allow_blank=True,
                                   help_text="Why the witness refuses the count (only with "
                                             "confirm false, and then required)")


class DropCountExplainIn(serializers.Serializer):
    reason = serializers.CharField(max_length=2000,
                                   help_text="Why the count differs from the buy-ins recorded")


class DropCountOut(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    table_name = serializers.CharField(source="table.name")
    gaming_day = serializers.DateField()
    currency = serializers.CharField()
    recorded = serializers.SerializerMethodField(
        help_text="The day's buy-ins at the table, read when the witness confirmed the "
                  "count; null until then")
    counted = serializers.SerializerMethodField()
    variance = serializers.SerializerMethodField(
        help_text="counted - recorded; null until the witness confirms the count")
    status = serializers.ChoiceField(choices=DropCount.Status.choices)
    explained = serializers.SerializerMethodField(
        help_text="A variance with its reason (an exception someone explained)")
    note = serializers.CharField(help_text="The counter's note (it explains nothing)")
    reason = serializers.CharField(
        help_text="The explanation of the variance by someone other than the counter, or "
                  "why the witness refused the count")
    explained_by = serializers.CharField(source="explained_by.username", allow_null=True,
                                         default=None)
    explained_at = serializers.DateTimeField(allow_null=True)
    counted_by = serializers.CharField(source="counted_by.username")
    witness = serializers.CharField(source="witness.username")
    counted_at = serializers.DateTimeField()
    witnessed_at = serializers.DateTimeField(
        allow_null=True, help_text="When the witness confirmed (or refused) the count")
    entry = serializers.IntegerField(source="entry_id", allow_null=True,
                                     help_text="Drop box to cage; none when nothing counted")
    variance_entry = serializers.IntegerField(source="variance_entry_id", allow_null=True)
    corrects = serializers.IntegerField(source="corrects_id", allow_null=True)

    @extend_schema_field(OpenApiTypes.STR)
    def get_recorded(self, count: DropCount) -> str | None:
        return None if count.recorded is None else format_minor(count.recorded,
                                                                 count.currency)

    def get_counted(self, count: DropCount) -> str:
        return format_minor(count.counted, count.currency)

    @extend_schema_field(OpenApiTypes.STR)
    def get_variance(self, count: DropCount) -> str | None:
        return None if count.variance is None else format_minor(count.variance,
                                                                 count.currency)

    def get_explained(self, count: DropCount) -> bool:
        return count.status == DropCount.Status.EXPLAINED


class DropCountQueryIn(serializers.Serializer):
    gaming_day = GamingDayField(required=False)
    exceptions = serializers.BooleanField(required=False, default=False)
    status = serializers.ChoiceField(choices=DropCount.Status.choices, required=False)


def _count_out(count: DropCount, code: int = status.HTTP_200_OK) -> Response:
    fresh = drop_count_list().get(pk=count.pk)
    return Response(DropCountOut(fresh).data, status=code)


class BuyInsView(ApiView):
    permission_classes = [requires(TAKE_BUY_IN)]
    refusal_action = "rounds.buy_in"
    refusal_ref = "table:{table_id}"

    @extend_schema(summary="Take a seated player's cash at the table (a buy-in)",
                   description="The player's account is credited from the table's drop box "
                               "(a ledger entry of kind buy_in). One that brings the "
                               "player's buy-ins at this table in the gaming day above "
                               "CASINO_BUY_IN_APPROVAL_ABOVE (2,000.00 by default) moves "
                               "nothing yet: the answer is 202 with a pending request that "
                               "another pit boss approves (POST /api/v1/approvals/{id}/"
                               "approve), and the buy-in posts then (the player still "
                               "seated, the box not counted).",
                   request=BuyInIn, examples=ex.BUY_IN,
                   responses={201: BuyInOut, 202: ApprovalOutput})
    def post(self, request: Request, table_id: int) -> Response:
        data = parse(BuyInIn, request.data, currency=_table_currency(table_id))
        done = buy_in_submit(table_id=table_id, seat=data["seat"], amount=data["amount"],
                             by=acting_user(request))
        if done.approval is not None:
            return approval_response(done.approval, status.HTTP_202_ACCEPTED)
        return Response(BuyInOut(done.result).data, status=status.HTTP_201_CREATED)


def _counts_page(request: Request, view: ApiView, table_id: int | None) -> Response:
    query = view.query_values(request)
    counts = drop_count_list(table_id=table_id, gaming_day=query.get("gaming_day"),
                             exceptions=query["exceptions"], status=query.get("status"))
    return page_response(request, view, counts, lambda c: DropCountOut(c).data)


_COUNTS_PAGE = paginated(DropCountOut(many=True), "PaginatedDropCountOutList")
_COUNT_QUERY = [
    OpenApiParameter("gaming_day", OpenApiTypes.DATE, description="YYYY-MM-DD"),
    OpenApiParameter("exceptions", OpenApiTypes.BOOL,
                     description="Only posted counts with a variance (the exceptions)"),
    OpenApiParameter("status", OpenApiTypes.STR, enum=DropCount.Status.values,
                     description="Only counts of this status (awaiting_witness: the counts "
                                 "waiting for their witness's signature)"),
    *PAGE_PARAMETERS]


class TableDropCountsView(ApiView):
    query = DropCountQueryIn
    answers_pages = True
    permission_classes = [requires(VIEW_COUNTS, POST=COUNT_DROP)]
    refusal_action = "rounds.drop_count"
    refusal_ref = "table:{table_id}"

    @extend_schema(summary="A table's drop counts, newest day first",
                   operation_id="table_drop_counts_list", parameters=_COUNT_QUERY,
                   responses={200: _COUNTS_PAGE})
    def get(self, request: Request, table_id: int) -> Response:
        _table_currency(table_id)
        return _counts_page(request, self, table_id)

    @extend_schema(summary="Count a table's drop box for a gaming day, naming a witness",
                   description="The counter is the signed-in user. The count is recorded "
                               "with status awaiting_witness and nothing is posted until "
                               "the named witness confirms it with their own credentials "
                               "(POST /drop-counts/{id}/witness). Then the counted cash "
                               "goes to the cage and a variance (counted - recorded, "
                               "recorded read then) to the table's variance account: an "
                               "exception (status unexplained) that someone other than "
                               "the counter explains (POST /drop-counts/{id}/explain); the "
                               "counter's note explains nothing. A second count of the "
                               "day is 409 already_counted, or 409 awaiting_witness while "
                               "one waits for its witness.",
                   request=DropCountIn, examples=ex.DROP_COUNT, responses={201: DropCountOut})
    def post(self, request: Request, table_id: int) -> Response:
        data = parse(DropCountIn, request.data, currency=_table_currency(table_id))
        user = acting_user(request)
        if data.get("by") not in (None, user.get_username()):
            raise ValidationFailed("The counter is the person signed in.", code="invalid",
                                   detail={"fields": {"by": ["the signed-in user"]}})
        count = drop_count_record(table_id=table_id, gaming_day=data["gaming_day"],
                                  counted=data["counted"], witness=data["witness"],
                                  note=data.get("note") or data.get("reason", ""), by=user)
        return _count_out(count, status.HTTP_201_CREATED)


class DropCountsView(ApiView):
    query = DropCountQueryIn
    answers_pages = True
    permission_classes = [requires(VIEW_COUNTS)]

    @extend_schema(summary="Drop counts of every table, newest day first",
                   operation_id="drop_counts_list", parameters=_COUNT_QUERY,
                   responses={200: _COUNTS_PAGE})
    def get(self, request: Request) -> Response:
        return _counts_page(request, self, None)


class DropCountCorrectView(ApiView):
    permission_classes = [requires(CORRECT_DROP)]
    refusal_action = "rounds.drop_count_correct"
    refusal_ref = "drop_count:{count_id}"

    @extend_schema(summary="Correct a drop count (pit boss): reverse it, count again",
                   description="The count's entries are reversed and the recount (201) "
                               "awaits its witness, who confirms it (POST "
                               "/drop-counts/{id}/witness) before it posts. With dual "
                               "control on, the answer is 202 with a pending request that "
                               "a second pit boss approves (POST /approvals/{id}/approve); "
                               "nothing moves before.",
                   request=DropCountCorrectIn,
                   examples=ex.DROP_CORRECT,
                   responses={201: DropCountOut,
                                                          202: ApprovalOutput})
    def post(self, request: Request, count_id: int) -> Response:
        currency = DropCount.objects.filter(pk=count_id).values_list(
            "currency", flat=True).first()
        if currency is None:
            raise NotFound(f"There is no drop count #{count_id}.",
                           detail={"count_id": count_id})
        data = parse(DropCountCorrectIn, request.data, currency=currency)
        done = approvals.action_submit(
            action=CORRECT_COUNT,
            params={"count_id": count_id, "counted_minor": data["counted"],
                    "witness": data["witness"], "reason": data["reason"]},
            by=acting_user(request))
        if done.approval is not None:
            return approval_response(done.approval, status.HTTP_202_ACCEPTED)
        return _count_out(done.result, status.HTTP_201_CREATED)


class DropCountWitnessView(ApiView):
    permission_classes = [requires(WITNESS_DROP)]
    refusal_action = "rounds.drop_count_witness"
    refusal_ref = "drop_count:{count_id}"

    @extend_schema(summary="The named witness confirms (or refuses) a drop count",
                   description="Only the witness the count names, signed in as themselves "
                               "(their session or token): anyone else is 403 "
                               "not_the_witness. Confirmed, the count posts (the cash to "
                               "the cage, the variance to the table's variance account, "
                               "recorded read now); refused (confirm false, with a reason), "
                               "nothing is posted and the box may be counted again. 409 "
                               "not_awaiting_witness for a count already confirmed or "
                               "refused.",
                   request=DropCountWitnessIn, examples=ex.DROP_WITNESS,
                   responses={200: DropCountOut})
    def post(self, request: Request, count_id: int) -> Response:
        user = acting_user(request)
        drop_count_witness_check(count_id=count_id, by=user)
        data = parse(DropCountWitnessIn, request.data)
        reason = data.get("reason", "").strip()
        if data["confirm"]:
            if reason:
                raise ValidationFailed(
                    "A confirmation carries no reason: once the count is posted, a "
                    "variance is explained with POST /drop-counts/{id}/explain.",
                    code="invalid", detail={"fields": {"reason": ["only with confirm "
                                                                  "false"]}})
            count = drop_count_confirm(count_id=count_id, by=user)
        else:
            count = drop_count_refuse(count_id=count_id, reason=reason, by=user)
        return _count_out(count)


class DropCountExplainView(ApiView):
    permission_classes = [requires(VIEW_COUNTS)]
    refusal_action = "rounds.drop_count_explain"
    refusal_ref = "drop_count:{count_id}"

    @extend_schema(summary="Explain a drop count's variance after the count",
                   description="The count room, the cage or a pit boss, never the count's "
                               "own counter (403 own_count); 409 nothing_to_explain for a "
                               "count with no open variance.",
                   request=DropCountExplainIn,
                   examples=ex.DROP_EXPLAIN,
                   responses={200: DropCountOut})
    def post(self, request: Request, count_id: int) -> Response:
        drop_count_explain_check(count_id=count_id, by=acting_user(request))
        data = parse(DropCountExplainIn, request.data)
        count = drop_count_explain(count_id=count_id, reason=data["reason"],
                                   by=acting_user(request))
        return _count_out(count)


class BuyInCorrectIn(serializers.Serializer):
    reason = serializers.CharField(max_length=2000, help_text="Why the buy-in was wrong")


class BuyInCorrectOut(serializers.Serializer):
    entry = serializers.IntegerField(source="reverses_id", help_text="The buy-in corrected")
    reversal = serializers.IntegerField(source="id", help_text="The entry that reverses it")
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class BuyInCorrectView(ApiView):
    permission_classes = [requires(CORRECT_DROP)]
    refusal_action = "rounds.buy_in_correct"
    refusal_ref = "entry:{entry_id}"

    @extend_schema(summary="Correct a buy-in taken in error (pit boss): reverse it",
                   description="The player's account back to the drop box, the player's "
                               "cash in for its day lowered; 409 drop_counted once the "
                               "box of its day is counted (correct the count instead). "
                               "With dual control on, the answer is 202 with a pending "
                               "request that a second pit boss approves (POST "
                               "/approvals/{id}/approve); nothing moves before.",
                   request=BuyInCorrectIn,
                   examples=ex.BUY_IN_CORRECT,
                   responses={201: BuyInCorrectOut,
                                                      202: ApprovalOutput})
    def post(self, request: Request, entry_id: int) -> Response:
        data = parse(BuyInCorrectIn, request.data)
        done = approvals.action_submit(
            action=CORRECT_BUY_IN, params={"entry_id": entry_id, "reason": data["reason"]},
            by=acting_user(request))
        if done.approval is not None:
            return approval_response(done.approval, status.HTTP_202_ACCEPTED)
        return Response(BuyInCorrectOut(done.result).data, status=status.HTTP_201_CREATED)
