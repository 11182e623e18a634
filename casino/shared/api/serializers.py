"""The shapes every app's API shares: the one error answer, and a request waiting for a
second person (casino.shared.approvals)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.shared import approvals


class ErrorDetail(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    detail = serializers.DictField()


class ErrorOutput(serializers.Serializer):
    """The one error shape: {"error": {"code", "message", "detail"}}."""

    error = ErrorDetail()


class ApprovalOutput(serializers.Serializer):
    id = serializers.IntegerField()
    action = serializers.CharField()
    summary = serializers.CharField()
    ref = serializers.CharField()
    params = serializers.DictField()
    status = serializers.ChoiceField(choices=approvals.Approval.Status.choices)
    requested_by = serializers.SerializerMethodField()
    requested_at = serializers.DateTimeField()
    decided_by = serializers.SerializerMethodField()
    decided_at = serializers.DateTimeField(allow_null=True)
    note = serializers.CharField()
    result_ref = serializers.CharField(help_text='What approving made: "entry:13", "round:4".')

    def get_requested_by(self, approval: approvals.Approval) -> str:
        return approval.requested_by.get_username()

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_decided_by(self, approval: approvals.Approval) -> str | None:
        return approval.decided_by.get_username() if approval.decided_by else None


class ApprovalFilters(serializers.Serializer):
    status = serializers.ChoiceField(choices=approvals.Approval.Status.choices, required=False,
                                     default=approvals.Approval.Status.PENDING)


class DecisionInput(serializers.Serializer):
    note = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
