"""The shapes every app's API shares: the one error answer, a request waiting for a
second person (casino.shared.approvals), and the base of the answers sent at every step of
a round (FieldsOnceOut), with its times (TimeOut)."""

from __future__ import annotations

import threading
from typing import Any

from django.urls import reverse
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.utils.serializer_helpers import BindingDict

from casino.shared import approvals


class FieldsOnceOut(serializers.Serializer):
    # An output serializer whose fields are built once per class and thread. (A comment,
    # not a docstring: the API schema would print an inherited docstring as the description
    # of every answer built on this class.)
    #
    # DRF deep-copies every declared field for each serializer instance, because a field
    # holds its parent; a round's answer, which every step of a round sends, builds five
    # serializers and about fifty fields that way, 40 % of its serialisation time
    # (docs/benchmarks.md). Here the first instance's fields are kept, per thread (one
    # request at a time per thread), and handed to each later instance of the class with
    # their parent pointed at it: a field reads its context and its method through its
    # parent, at the time it renders, and keeps nothing else from one answer to the next.
    #
    # Only for output: nothing validates through these fields, and no instance of the class
    # may render while another renders inside it (no serializer nests its own class).

    _fields_by_class = threading.local()

    @property  # type: ignore[override]
    def fields(self) -> BindingDict:
        cache: dict[type, BindingDict] | None = getattr(self._fields_by_class, "cache", None)
        if cache is None:
            cache = self._fields_by_class.cache = {}
        fields = cache.get(type(self))
        if fields is None:
            fields = BindingDict(self)
            for key, value in self.get_fields().items():
                fields[key] = value
            cache[type(self)] = fields
        elif fields.serializer is not self:
            fields.serializer = self
            for field in fields.values():
                field.parent = self
        return fields

    def to_internal_value(self, data: Any) -> Any:
        raise TypeError(f"{type(self).__name__} is an output serializer")


def TimeOut(**kwargs: Any) -> serializers.DateTimeField:  # called like the field classes
    """A time in an answer, in the casino's time zone (settings.TIME_ZONE), as every answer
    gives it. DRF's field otherwise asks Django for the current time zone at every value
    (a thread-local lookup, a third of the field's time; a round's answer has two dozen),
    and the project never activates another one: should it ever, per request, these fields
    would have to go back to asking."""
    return serializers.DateTimeField(default_timezone=timezone.get_default_timezone(), **kwargs)


class ErrorDetail(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    detail = serializers.DictField()


class ErrorOutput(serializers.Serializer):
    """The one error shape: {"error": {"code", "message", "detail"}}."""

    error = ErrorDetail()


# Each kind of thing an approval makes, and the route that reads it (by name: this module
# names no app).
RESULT_ROUTES = {"entry": "api:ledger-entry", "round": "api:round"}


class ApprovalOutput(serializers.Serializer):
    id = serializers.IntegerField()
    action = serializers.CharField()
    summary = serializers.CharField()
    ref = serializers.CharField()
    params = serializers.SerializerMethodField(
        help_text="What was asked, amounts in the currency's unit.")
    status = serializers.ChoiceField(choices=approvals.Approval.Status.choices)
    requested_by = serializers.SerializerMethodField()
    requested_at = serializers.DateTimeField()
    decided_by = serializers.SerializerMethodField()
    decided_at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField()
    result_ref = serializers.CharField(help_text='What approving made: "entry:13", "round:4".')
    result_id = serializers.SerializerMethodField(
        help_text="The id of what approving made (the ledger entry of a deposit, a "
                  "withdrawal or a buy-in; the round; the drop count); null until approved.")
    result_url = serializers.SerializerMethodField(
        help_text="Where to read what approving made (the entry, the round), or null.")

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_result_id(self, approval: approvals.Approval) -> int | None:
        made = approval.result_ref.partition(":")[2]
        return int(made) if made.isdigit() else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_result_url(self, approval: approvals.Approval) -> str | None:
        kind, _, made = approval.result_ref.partition(":")
        name = RESULT_ROUTES.get(kind)
        if name is None or not made.isdigit():
            return None
        return reverse(name, args=[int(made)])

    def get_requested_by(self, approval: approvals.Approval) -> str:
        return approval.requested_by.get_username()

    @extend_schema_field(serializers.DictField())
    def get_params(self, approval: approvals.Approval) -> dict[str, Any]:
        return approvals.approval_params_shown(approval)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_decided_by(self, approval: approvals.Approval) -> str | None:
        return approval.decided_by.get_username() if approval.decided_by else None


class ApprovalFilters(serializers.Serializer):
    status = serializers.ChoiceField(choices=approvals.Approval.Status.choices, required=False,
                                     default=approvals.Approval.Status.PENDING)


class DecisionInput(serializers.Serializer):
    note = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
