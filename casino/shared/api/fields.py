"""Serializer fields shared by the API's input classes: amounts and cards."""

from __future__ import annotations

from datetime import date
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.shared.errors import ValidationFailed
from casino.shared.gaming_day import FIRST_DAY, LAST_DAY
from casino.shared.money import format_minor, to_minor


class AmountField(serializers.Field):
    """An amount in the currency's unit: a decimal string (``"160.00"``) or an integer, never
    a float; parsed into minor units of ``context["currency"]`` (``parse(..., currency=)``),
    and written back as a decimal string.

    The one field for amounts in, so every endpoint refuses the same things the same way
    (casino.shared.money.to_minor: floats, more decimals than the currency has, exponents,
    amounts beyond any table's business), as 400 ``invalid`` with the field named.
    ``positive=True`` also refuses zero and negative amounts (money moved at the cage);
    without it the service judges the figure against its own rule (a table's limits).
    """

    def __init__(self, *, positive: bool = False, **kwargs: Any) -> None:
        self.positive = positive
        super().__init__(**kwargs)

    def _currency(self) -> str:
        currency = self.context.get("currency")
        if not currency:
            raise serializers.ValidationError("An amount needs a known currency.",
                                              code="invalid_currency")
        return str(currency)

    def to_internal_value(self, data: Any) -> int:
        try:
            minor = to_minor(data, self._currency())
        except ValidationFailed as exc:
            raise serializers.ValidationError(exc.message, code=exc.code) from None
        if self.positive and minor <= 0:
            raise serializers.ValidationError("An amount must be positive.",
                                              code="invalid_amount")
        return minor

    def to_representation(self, value: int | None) -> str | None:
        return None if value is None else format_minor(value, self._currency())


class AmountFieldSchema(OpenApiSerializerFieldExtension):
    """What a client may send: a positive amount as a decimal string; any other amount as a
    signed decimal string or an integer (the service judges it). Sent back as a string."""

    target_class = AmountField

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        if self.target.read_only:
            return {"type": "string"}
        if self.target.positive:
            return {"type": "string", "pattern": r"^\d+(\.\d{1,2})?$", "example": "160.00"}
        return {"oneOf": [{"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$"},
                          {"type": "integer"}], "example": "20.00"}


@extend_schema_field({"oneOf": [{"type": "array", "items": {"type": "string"}},
                                {"type": "string"}], "example": ["AS", "KD", "JK"]})
class CardsField(serializers.Field):
    """Cards as a list of codes (["AS", "KD"]) or one string ("AS KD"); parsed by the game."""

    default_error_messages = {"type": "Cards are a list of codes such as [\"AS\", \"JK\"] "
                                      "or one string such as \"AS JK\"."}

    def to_internal_value(self, data: Any) -> str | list[str]:
        if isinstance(data, str):
            return data
        if isinstance(data, list) and all(isinstance(c, str) for c in data):
            return data
        self.fail("type")
        raise AssertionError  # unreachable: fail() raises

    def to_representation(self, value: Any) -> Any:
        return value


class GamingDayField(serializers.DateField):
    """A gaming day (``YYYY-MM-DD``) that the service can work with: its start and the day
    after it are moments Python and PostgreSQL both hold (9999-12-31's next day is not).
    Outside that, a 400 in the one error shape instead of an overflow deep in a report."""

    FIRST = FIRST_DAY
    LAST = LAST_DAY

    def to_internal_value(self, value: Any) -> date:
        day = super().to_internal_value(value)
        if not self.FIRST <= day <= self.LAST:
            raise serializers.ValidationError(
                f"a gaming day from {self.FIRST.isoformat()} to {self.LAST.isoformat()}")
        return day
