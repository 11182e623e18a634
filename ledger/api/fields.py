"""Money on the wire: decimal strings in the currency's unit ("160.00"); integers accepted."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.errors import ValidationFailed
from ledger.money import format_minor, to_minor


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
