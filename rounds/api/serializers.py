"""Plain input and output classes of the tables and rounds API.

Amounts leave as decimal strings in the table's currency (``"160.00"``); the currency is
put in the serializer context by the view, since every amount of a round or a table is in
that one currency. Cards leave as lists of codes (``["AS", "KD"]``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.api.fields import AmountField, CardsField
from casino.models import Currency, Table
from ledger.api.serializers import BalanceOutput
from ledger.money import format_minor
from rounds import paigow
from rounds.models import POSITIONS, Round
from rounds.selectors import PositionSettlement, round_settlement
from rounds.settlement import Outcome


@extend_schema_field(OpenApiTypes.STR)
class MoneyOut(serializers.Field):
    """An amount in minor units, rendered as a decimal string in the context's currency."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, value: int | None) -> str | None:
        return None if value is None else format_minor(value, self.context["currency"])


@extend_schema_field({"type": "array", "items": {"type": "string"}})
class CardsOut(serializers.Field):
    def __init__(self, **kwargs: Any) -> None:
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, value: str) -> list[str]:
        return value.split() if value else []


# --- tables ---------------------------------------------------------------------------------

class SeatOut(serializers.Serializer):
    number = serializers.IntegerField()
    player = serializers.IntegerField(source="player_id", allow_null=True)
    player_name = serializers.CharField(source="player.name", allow_null=True, default=None)
    since = serializers.DateTimeField(allow_null=True)


class SeatedPlayerOut(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    balance = BalanceOutput()


class TableOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    currency = serializers.CharField()
    is_open = serializers.BooleanField()
    min_bet = MoneyOut()
    max_bet = MoneyOut()
    commission_rate = serializers.DecimalField(max_digits=5, decimal_places=4)
    commission_rounding = serializers.CharField()
    wheel = serializers.CharField()
    house_way = serializers.CharField()
    bank_rotation = serializers.CharField()
    banker_must_have_played = serializers.BooleanField()
    house_stake_cap = serializers.CharField()
    foul_policy = serializers.CharField()
    co_banking = serializers.BooleanField()
    first_stack = serializers.CharField()
    deal_modes = serializers.ListField(
        child=serializers.ChoiceField(choices=Table.DealMode.choices),
        help_text="How this table's rounds may be dealt.")
    seats = SeatOut(many=True)
    created_at = serializers.DateTimeField()


class TableIn(serializers.Serializer):
    """Every field optional on PATCH; on POST only ``name`` is required."""

    name = serializers.CharField(max_length=100)
    currency = serializers.ChoiceField(choices=Currency.choices, default=Currency.EUR)
    is_open = serializers.BooleanField(required=False)
    min_bet = AmountField(required=False)
    max_bet = AmountField(required=False)
    commission_rate = serializers.DecimalField(max_digits=5, decimal_places=4,
                                               min_value=Decimal(0), max_value=Decimal("0.9999"),
                                               required=False)
    commission_rounding = serializers.ChoiceField(
        choices=Table.CommissionRounding.choices, required=False)
    wheel = serializers.ChoiceField(choices=Table.Wheel.choices, required=False)
    house_way = serializers.ChoiceField(choices=sorted(paigow.HOUSE_WAYS), required=False)
    bank_rotation = serializers.ChoiceField(choices=Table.BankRotation.choices, required=False)
    banker_must_have_played = serializers.BooleanField(required=False)
    house_stake_cap = serializers.ChoiceField(choices=Table.HouseStakeCap.choices,
                                              required=False)
    foul_policy = serializers.ChoiceField(choices=Table.FoulPolicy.choices, required=False)
    co_banking = serializers.BooleanField(required=False)
    first_stack = serializers.ChoiceField(choices=Table.FirstStack.choices, required=False)
    deal_modes = serializers.ListField(
        child=serializers.ChoiceField(choices=Table.DealMode.choices), min_length=1,
        max_length=len(Table.DealMode.values), required=False,
        help_text='How the table deals: "electronic", "physical" (the dealer records the '
                  'cards), "results" (the dealer records the outcomes). Default: electronic '
                  'and physical.')


class SeatIn(serializers.Serializer):
    player = serializers.IntegerField(min_value=1)


# --- rounds ---------------------------------------------------------------------------------

class WagerOut(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.IntegerField(source="player_id")
    amount = MoneyOut()
    state = serializers.CharField()
    hold = serializers.IntegerField(source="hold_id")
    placed_at = serializers.DateTimeField()


class HandOut(serializers.Serializer):
    position = serializers.CharField()
    cards = CardsOut()
    high = CardsOut()
    low = CardsOut()
    set_by = serializers.CharField()


class PositionResultOut(serializers.Serializer):
    position = serializers.CharField()
    wager = MoneyOut()
    outcome = serializers.CharField()
    high = serializers.CharField()
    low = serializers.CharField()
    amount = MoneyOut(help_text="Won (+) or lost (-) before commission.")
    commission = MoneyOut()
    net = serializers.SerializerMethodField()

    def get_net(self, line: PositionSettlement) -> str:
        return format_minor(line.net, self.context["currency"])


class EventOut(serializers.Serializer):
    kind = serializers.CharField()
    at = serializers.DateTimeField()
    by = serializers.CharField(source="by.username")
    # The metaclass pops declared fields off the class, so Serializer.data stays the property.
    data = serializers.JSONField()  # type: ignore[assignment]


class RoundOut(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    number = serializers.IntegerField()
    state = serializers.CharField()
    gaming_day = serializers.DateField()
    currency = serializers.CharField()
    rules = serializers.SerializerMethodField(
        help_text="The table's settings when the round opened; the limits as decimal strings.")
    banker = serializers.SerializerMethodField()
    house_stake = MoneyOut()
    solvency = serializers.SerializerMethodField()
    wagers = WagerOut(many=True)
    deal = serializers.SerializerMethodField()
    hands = HandOut(many=True)
    settlement = serializers.SerializerMethodField()
    events = EventOut(many=True)
    opened_by = serializers.CharField(source="opened_by.username")
    opened_at = serializers.DateTimeField()
    settled_at = serializers.DateTimeField(allow_null=True)
    closed_reason = serializers.CharField()

    def _money(self, value: int | None) -> str | None:
        return None if value is None else format_minor(value, self.context["currency"])

    @extend_schema_field({"type": "object", "additionalProperties": True})
    def get_rules(self, round_: Round) -> dict[str, Any]:
        # Amounts leave the service in the currency's unit, as everywhere else ("2.00").
        return {key: format_minor(value, round_.currency)
                if key in ("min_bet", "max_bet") and isinstance(value, int) else value
                for key, value in round_.rules.items()}

    @extend_schema_field({"type": "object", "nullable": True, "properties": {
        "house": {"type": "boolean"}, "seat": {"type": "integer", "nullable": True},
        "player": {"type": "integer", "nullable": True},
        "position": {"type": "string"}}})
    def get_banker(self, round_: Round) -> dict[str, Any] | None:
        if round_.banker_is_house is None:
            return None
        return {"house": round_.banker_is_house, "seat": round_.banker_seat,
                "player": round_.banker_player_id, "position": round_.banker_position}

    @extend_schema_field({"type": "object", "nullable": True, "properties": {
        "required": {"type": "string"}, "available": {"type": "string"},
        "hold": {"type": "integer"}}})
    def get_solvency(self, round_: Round) -> dict[str, Any] | None:
        if round_.solvency_required is None:
            return None
        return {"required": self._money(round_.solvency_required),
                "available": self._money(round_.solvency_available),
                "hold": round_.banker_hold_id}

    @extend_schema_field({"type": "object", "nullable": True})
    def get_deal(self, round_: Round) -> dict[str, Any] | None:
        if not round_.deal_kind:
            return None
        return {"kind": round_.deal_kind, "dice": round_.dice,
                "dice_total": sum(round_.dice) if round_.dice else None,
                "counted_position": round_.counted_position or None,
                "order": round_.deal_order, "burnt": round_.burnt.split() or None}

    @extend_schema_field({"type": "object", "nullable": True})
    def get_settlement(self, round_: Round) -> dict[str, Any] | None:
        summary = round_settlement(round_)
        if summary is None:
            return None
        return {
            "positions": PositionResultOut(summary.positions, many=True,
                                           context=self.context).data,
            "banker": {
                "position": summary.banker_position,
                "net": self._money(summary.banker_net),
                "commission": self._money(summary.banker_commission),
            },
            "house": {
                "stake_result": self._money(summary.house_stake_result),
                "bank_share_result": self._money(summary.house_bank_share),
                "commission_income": self._money(summary.commission_income),
            },
            "entry": summary.entry_id,
            "reversal_entry": summary.reversal_entry_id,
        }


# --- round steps (input) ----------------------------------------------------------------------

class WagerIn(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=6)
    amount = AmountField()


class SeatOnlyIn(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=6)


class BankerIn(serializers.Serializer):
    house = serializers.BooleanField(required=False, default=False)
    seat = serializers.IntegerField(min_value=1, max_value=6, required=False, allow_null=True)
    house_stake = AmountField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("house") and attrs.get("seat") is None:
            raise serializers.ValidationError(
                {"seat": ["Name the banker's seat, or send \"house\": true."]})
        return attrs


class DealIn(serializers.Serializer):
    hands = serializers.DictField(child=CardsField(), required=False,
                                  help_text='{"dealer": ["AS", ...7 cards], "1": [...]}')
    results_only = serializers.BooleanField(required=False, default=False)

    def validate_hands(self, hands: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(hands) - set(POSITIONS))
        if unknown:
            raise serializers.ValidationError(
                f"positions are \"dealer\" and \"1\" to \"6\", not {', '.join(unknown)}")
        return hands


class HandIn(serializers.Serializer):
    position = serializers.ChoiceField(choices=POSITIONS)
    high = CardsField(required=False)
    low = CardsField(required=False)
    house_way = serializers.BooleanField(required=False, default=False)
    as_played = serializers.BooleanField(
        required=False, default=False,
        help_text="Record a live table's hand as the player set it: a foul then follows "
                  "the table's foul policy instead of being refused.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("house_way") and ("high" not in attrs or "low" not in attrs):
            raise serializers.ValidationError(
                {"high": ["Give the high and low hands, or send \"house_way\": true."]})
        return attrs


class SettleIn(serializers.Serializer):
    outcomes = serializers.DictField(
        child=serializers.ChoiceField(choices=[o.value for o in Outcome]), required=False,
        help_text='For results-only tables: {"1": "win", "2": "push", "dealer": "loss"}')


class ReasonIn(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


# --- reports --------------------------------------------------------------------------------

class ReportQueryIn(serializers.Serializer):
    gaming_day = serializers.DateField()


class TableDayReportOut(serializers.Serializer):
    table = serializers.IntegerField(source="table_id")
    table_name = serializers.CharField()
    currency = serializers.CharField()
    gaming_day = serializers.DateField()
    rounds_settled = serializers.IntegerField()
    rounds_house_banked = serializers.IntegerField()
    rounds_player_banked = serializers.IntegerField()
    rounds_reversed = serializers.IntegerField()
    rounds_voided = serializers.IntegerField()
    handle = MoneyOut()
    house_stakes = MoneyOut()
    house_win_house_banked = MoneyOut()
    house_win_house_stakes = MoneyOut()
    commission_players = MoneyOut()
    commission_bankers = MoneyOut()
    house_result = MoneyOut()
    hold_percent = serializers.DecimalField(max_digits=9, decimal_places=2, allow_null=True)
