"""Reading a request: the one way every view turns a body or a query string into values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers


def parse(serializer_class: type[serializers.Serializer], data: Mapping[str, Any] | Any, *,
          partial: bool = False, **context: Any) -> dict[str, Any]:
    """``data`` (``request.data`` or ``request.query_params``) checked by the plain input
    class ``serializer_class``: its validated values, amounts already in minor units.

    ``context`` reaches the fields: ``currency=`` for amounts (casino.shared.api.fields).
    Anything refused raises DRF's ValidationError, which the API's one exception handler
    answers as 400 ``invalid`` with ``detail.fields`` (casino.shared.api.errors).
    """
    serializer = serializer_class(data=data, partial=partial, context=context)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
