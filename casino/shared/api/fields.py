"""Serializer fields shared by the API's input classes."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.shared.errors import ValidationFailed
from casino.shared.money import format_minor, to_minor


@extend_schema_field({"oneOf": [{"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$"},
                                {"type": "integer"}], "example": "20.00"})
class AmountField(serializers.Field):
    """An amount as sent: a decimal string ("160.00") or an integer, never a float.

    Kept as given; the view converts it with casino.shared.money.to_minor once the currency is
    known, which is the one place amounts are parsed (and refused: extra decimals...)."""

    default_error_messages = {
        "type": "An amount must be a decimal string such as \"160.00\" or an integer, "
                "not a {kind}.",
    }

    def to_internal_value(self, data: Any) -> str | int:
        if isinstance(data, bool) or not isinstance(data, str | int):
            self.fail("type", kind=type(data).__name__)
        return data

    def to_representation(self, value: Any) -> Any:
        return value


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


@extend_schema_field({"type": "string", "pattern": r"^\d+(\.\d{1,2})?$", "example": "160.00"})
class PositiveAmountField(serializers.Field):
    """An amount to move, parsed into minor units of ``context["currency"]``.

    Refuses floats (a JSON number with a fraction), more decimals than the currency has, zero
    and negative amounts, so nothing imprecise reaches a money path.
    """

    def to_internal_value(self, data: Any) -> int:
        try:
            minor = to_minor(data, self.context["currency"])
        except ValidationFailed as exc:
            raise serializers.ValidationError(exc.message, code="invalid_amount") from None
        if minor <= 0:
            raise serializers.ValidationError("An amount must be positive.",
                                              code="invalid_amount")
        return minor

    def to_representation(self, value: int) -> str:
        return format_minor(value, self.context["currency"])
