"""Report files in the admin, read-only: asked for through the API or the console, made
by a worker; the admin shows what was asked, by whom, how it went and the chain head."""

from __future__ import annotations

from django.contrib import admin

from casino.admin_base import ReadOnlyAdmin
from rounds.models import Report


@admin.register(Report)
class ReportAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "format", "status", "progress", "requested_by",
                    "requested_at", "finished_at", "attempts"]
    list_filter = ["kind", "format", "status"]
    search_fields = ["kind", "requested_by__username", "error"]
    readonly_fields = ["kind", "format", "parameters", "status", "progress", "error",
                       "attempts", "requested_by", "requested_at", "started_at",
                       "finished_at", "file", "file_name", "content_type", "chain_seq",
                       "chain_hash"]
