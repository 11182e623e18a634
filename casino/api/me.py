"""The player's own operations (/api/v1/me...): their account, its statement, their limits,
their self-exclusion. Each is a PlayerApiView: the player's token, or the session of their
own pages (/play/), and nobody else's; the player is the signed-in one, never a path's id,
so no request can name another player.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from casino import exclusions, player_limits, selectors
from casino.api import examples as ex
from casino.api.exclusions import ExclusionOutput
from casino.models import Player
from casino.player_logins import REMINDER_EVERY_MINUTES, session_started_at
from casino.shared.api.fields import AmountField, GamingDayField
from casino.shared.api.pagination import PAGE_PARAMETERS, page_response, paginated
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user
from casino.shared.api.views import PlayerApiView
from casino.shared.gaming_day import gaming_day_of
from casino.shared.money import format_minor

# --- the player's account -------------------------------------------------------------------

class OwnBalanceOutput(serializers.Serializer):
    posted = serializers.CharField()
    available = serializers.CharField(help_text="Posted less what open wagers hold.")
    currency = serializers.CharField()


# "from" is a keyword of Python, so the class is made with its fields named as the answer
# names them.
PendingOutput = type("PendingOutput", (serializers.Serializer,), {
    "amount": serializers.CharField(allow_null=True, help_text="null: no limit from then."),
    "from": serializers.DateTimeField(help_text="When it takes effect."),
})


class LimitOutput(serializers.Serializer):
    amount = serializers.CharField(allow_null=True, help_text="In force now; null: none.")
    pending = PendingOutput(allow_null=True, help_text="A raise or removal waiting for its "
                                                       "time (PLAYER_LIMIT_RAISE_HOURS).")


class LimitsOutput(serializers.Serializer):
    wager_per_day = LimitOutput()
    loss_per_day = LimitOutput()
    wagered_today = serializers.CharField(help_text="Wagers of today's gaming day.")
    lost_today = serializers.CharField(help_text="What today's settled rounds took, less "
                                                 "what they paid; 0.00 when ahead.")


class SessionOutput(serializers.Serializer):
    started_at = serializers.DateTimeField(help_text="When this sign-in began: the token's "
                                                     "or the session's.")
    minutes_played = serializers.IntegerField()
    reminder_every_minutes = serializers.IntegerField()


class MeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    balance = OwnBalanceOutput()
    limits = LimitsOutput()
    session = SessionOutput()


def limits_data(player: Player) -> dict[str, Any]:
    """The player's limits now and today's play against them, amounts as the API writes
    them (also the account page's, casino.screens.play_account)."""
    cur = player.currency
    shown: dict[str, Any] = {}
    for kind, state in player_limits.player_limits(player_id=player.pk).items():
        pending = state.pending
        shown[kind] = {
            "amount": None if state.amount is None else format_minor(state.amount, cur),
            "pending": None if pending is None else {
                "amount": None if pending.amount is None else format_minor(pending.amount, cur),
                "from": pending.effective_from}}
    played = player_limits.player_played_day(player=player, gaming_day=gaming_day_of())
    return {**shown, "wagered_today": format_minor(played.wagered, cur),
            "lost_today": format_minor(played.lost, cur)}


def me_data(request: Request | HttpRequest, player_id: int) -> dict[str, Any]:
    player = selectors.player_get(player_id=player_id)
    balance = selectors.player_balance(player)
    started = session_started_at(request)
    cur = balance.currency
    return {
        "id": player.pk, "name": player.name,
        "balance": {"posted": format_minor(balance.posted, cur),
                    "available": format_minor(balance.available, cur), "currency": cur},
        "limits": limits_data(player),
        "session": {"started_at": started,
                    "minutes_played": int((timezone.now() - started).total_seconds() // 60),
                    "reminder_every_minutes": REMINDER_EVERY_MINUTES},
    }


class MeView(PlayerApiView):
    """The signed-in player's own account."""

    @extend_schema(summary="The signed-in player's own account: balance, limits, session",
                   operation_id="me_get", responses={200: MeOutput})
    def get(self, request: Request) -> Response:
        return Response(MeOutput(me_data(request, self.player_id(request))).data)


# --- the statement ------------------------------------------------------------------------

class OwnStatementQuery(serializers.Serializer):
    date_from = GamingDayField(required=False, help_text="From this gaming day; the first "
                                                         "movement when left out.")
    date_to = GamingDayField(required=False, help_text="To this gaming day (inclusive); now "
                                                       "when left out.")


class OwnStatementLineOutput(serializers.Serializer):
    entry = serializers.IntegerField(source="entry_id")
    posted_at = serializers.DateTimeField()
    kind = serializers.CharField(help_text="deposit, withdrawal, round_settlement, ...")
    reference = serializers.CharField()
    amount = serializers.SerializerMethodField()
    balance = serializers.SerializerMethodField(help_text="The balance after it.")
    currency = serializers.SerializerMethodField()

    def get_amount(self, line: Any) -> str:
        return format_minor(line.amount, self.context["currency"])

    def get_balance(self, line: Any) -> str:
        return format_minor(line.balance, self.context["currency"])

    def get_currency(self, line: Any) -> str:
        return str(self.context["currency"])


class MeStatementView(PlayerApiView):
    """The signed-in player's own account statement."""

    query = OwnStatementQuery
    answers_pages = True

    @extend_schema(
        summary="The signed-in player's own account statement, newest movement first",
        description="The same statement as the cage's for the player, a page at a time.",
        operation_id="me_statement", parameters=[OwnStatementQuery, *PAGE_PARAMETERS],
        responses={200: paginated(OwnStatementLineOutput(many=True),
                                  "PaginatedOwnStatementLineList")})
    def get(self, request: Request) -> Response:
        period = self.query_values(request)
        shown = selectors.player_statement(player_id=self.player_id(request),
                                           date_from=period.get("date_from"),
                                           date_to=period.get("date_to")).statement
        context = {"currency": shown.currency}
        return page_response(request, self, list(reversed(shown.lines)),  # type: ignore[arg-type]
                             lambda line: OwnStatementLineOutput(line, context=context).data)


# --- the limits -----------------------------------------------------------------------------

class LimitsInput(serializers.Serializer):
    wager_per_day = AmountField(positive=True, required=False, allow_null=True,
                                help_text="The most to wager in a gaming day; null: none.")
    loss_per_day = AmountField(positive=True, required=False, allow_null=True,
                               help_text="The most to lose in a gaming day; null: none.")


class MeLimitsView(PlayerApiView):
    """The signed-in player's own daily limits."""

    refusal_action = "player_limits_set"

    @extend_schema(
        summary="Set the signed-in player's own daily wager and loss limits",
        description="Only the limits given change. A lower (or first) limit is in force at "
                    "once; a higher one, or null (none), after PLAYER_LIMIT_RAISE_HOURS "
                    f"({settings.PLAYER_LIMIT_RAISE_HOURS} hours): shown as `pending` until "
                    "then. A wager past a limit is refused (409 `limit_reached`).",
        request=LimitsInput, examples=ex.ME_LIMITS, responses={200: LimitsOutput})
    def put(self, request: Request) -> Response:
        player = selectors.player_get(player_id=self.player_id(request))
        data = parse(LimitsInput, request.data, currency=player.currency)
        player_limits.player_limits_set(player_id=player.pk, changes=data, by=acting_user(request))
        return Response(LimitsOutput(limits_data(player)).data)


# --- self-exclusion -------------------------------------------------------------------------

class SelfExclusionInput(serializers.Serializer):
    period = serializers.ChoiceField(choices=list(exclusions.SELF_PERIODS),
                                     help_text="From today's gaming day: six_months, "
                                               "one_year, five_years or for_good.")


class MeExclusionsView(PlayerApiView):
    """The signed-in player's own exclusions, and self-exclusion."""

    refusal_action = "exclusion.self_record"

    @extend_schema(summary="The signed-in player's own exclusions",
                   operation_id="me_exclusions_list",
                   responses={200: ExclusionOutput(many=True)})
    def get(self, request: Request) -> Response:
        found = exclusions.exclusion_list(current=False, player_id=self.player_id(request))
        return Response(ExclusionOutput(found, many=True).data)

    @extend_schema(
        summary="Exclude oneself from play (self-exclusion)",
        description="In force at once, at every table and at the cage's deposits (409 "
                    "`player_excluded`). It is not lifted here: before its end only the cage "
                    "or a pit boss lifts it, with a second person's approval.",
        request=SelfExclusionInput, examples=ex.ME_EXCLUSION,
        responses={201: ExclusionOutput})
    def post(self, request: Request) -> Response:
        data = parse(SelfExclusionInput, request.data)
        exclusion = exclusions.exclusion_self_record(
            player_id=self.player_id(request), period=data["period"], by=acting_user(request))
        return Response(ExclusionOutput(exclusions.exclusion_get(exclusion_id=exclusion.pk)).data,
                        status=status.HTTP_201_CREATED)

