"""Report files and closed gaming days in the admin, read-only: reports are asked for
through the API or the console and made by a worker, days closed by their service; the
admin shows what was asked, by whom, how it went, the figures and the chain head. The house
edges kept per rule set are shown the same way: worked out by rounds.edges, never edited."""

from __future__ import annotations

from django.contrib import admin

from casino.shared.admin import ReadOnlyAdmin, ReadOnlyInline
from casino.shared.templatetags.money import money_text
from reports.models import ClosedDay, ClosedTableDay, Report
from reports.play import closed_figures
from rounds.models import EdgeFigures


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


class ClosedTableDayInline(ReadOnlyInline):
    model = ClosedTableDay
    fields = readonly_fields = ("table_name", "currency", "rounds_settled", "rounds_reversed",
                                "rounds_voided", "handle_shown", "house_result_shown",
                                "commission_players_shown", "commission_bankers_shown",
                                "adjustments_shown")
    view_permission = "reports.view_closedday"

    @admin.display(description="handle")
    def handle_shown(self, row: ClosedTableDay) -> str:
        return money_text(row.handle, row.currency)

    @admin.display(description="house result")
    def house_result_shown(self, row: ClosedTableDay) -> str:
        return money_text(closed_figures(row).house_result, row.currency)

    @admin.display(description="commission from players")
    def commission_players_shown(self, row: ClosedTableDay) -> str:
        return money_text(row.commission_players, row.currency)

    @admin.display(description="commission from bankers")
    def commission_bankers_shown(self, row: ClosedTableDay) -> str:
        return money_text(row.commission_bankers, row.currency)

    @admin.display(description="adjustments")
    def adjustments_shown(self, row: ClosedTableDay) -> str:
        return money_text(row.adjustments, row.currency)


@admin.register(ClosedDay)
class ClosedDayAdmin(ReadOnlyAdmin):
    list_display = ["gaming_day", "closed_at", "closed_by", "chain_seq"]
    readonly_fields = ["gaming_day", "closed_at", "closed_by", "chain_seq", "chain_hash"]
    inlines = [ClosedTableDayInline]


@admin.register(EdgeFigures)
class EdgeFiguresAdmin(ReadOnlyAdmin):
    """A rule set's house edge as it was worked out and kept (rounds.edges): the rules it
    is for, the hands it rests on and the figures ratings and bands use."""

    list_display = ["id", "rules_shown", "how", "hands", "player", "banker", "confidence",
                    "computed_at"]
    readonly_fields = ["key", "rules", "how", "hands", "wins", "pushes", "losses", "player",
                       "banker", "confidence", "player_variance", "banker_variance",
                       "computed_at"]

    @admin.display(description="rules")
    def rules_shown(self, row: EdgeFigures) -> str:
        r = row.rules
        return (f"{r.get('house_way')}, wheel {r.get('wheel')}, commission "
                f"{r.get('commission_rate')} {r.get('commission_rounding')}, on "
                f"{r.get('reference_wager')} minor units")
