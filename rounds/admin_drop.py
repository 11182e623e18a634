"""Drop counts, variance explanations and dealers' shifts in the admin, read-only: a count
is recorded and corrected only through rounds.services.drop (the API and the count room's
screen), an explanation given only through rounds.services.variance (the floor and the
API), a shift through rounds.services.dealers, never edited here."""

from __future__ import annotations

from django.contrib import admin

from casino.shared.admin import ReadOnlyAdmin
from casino.shared.templatetags.money import money_text
from rounds.models import DealerShift, DropCount, VarianceExplanation


@admin.register(DropCount)
class DropCountAdmin(ReadOnlyAdmin):
    list_display = ["id", "table", "gaming_day", "recorded_", "counted_", "variance_",
                    "status", "counted_by", "witness", "counted_at"]
    list_filter = ["status", "table", "gaming_day"]
    search_fields = ["table__name", "reason"]
    list_select_related = ["table", "counted_by", "witness"]
    fields = ("table", "gaming_day", "recorded_", "counted_", "variance_", "status", "note",
              "reason", "explained_by", "explained_at", "counted_by", "witness", "counted_at",
              "witnessed_at", "entry", "variance_entry", "corrects")
    readonly_fields = fields

    @admin.display(description="recorded (buy-ins)")
    def recorded_(self, obj: DropCount) -> str:
        # Read when the witness confirms the count: none before.
        return "" if obj.recorded is None else money_text(obj.recorded, obj.currency)

    @admin.display(description="counted")
    def counted_(self, obj: DropCount) -> str:
        return money_text(obj.counted, obj.currency)

    @admin.display(description="variance (counted - recorded)")
    def variance_(self, obj: DropCount) -> str:
        return "" if obj.variance is None else money_text(obj.variance, obj.currency)


@admin.register(VarianceExplanation)
class VarianceExplanationAdmin(ReadOnlyAdmin):
    """A pit boss's explanation of a day outside its band, as said: written only through
    rounds.services.variance (the floor and the API), never edited here."""

    list_display = ["id", "table", "gaming_day", "rounds", "result_", "explained_by",
                    "explained_at"]
    list_filter = ["table", "gaming_day"]
    search_fields = ["table__name", "reason"]
    list_select_related = ["table", "explained_by"]
    fields = ("table", "gaming_day", "reason", "rounds", "result_", "explained_by",
              "explained_at")
    readonly_fields = fields

    @admin.display(description="house result then")
    def result_(self, obj: VarianceExplanation) -> str:
        return money_text(obj.result, obj.table.currency)


@admin.register(DealerShift)
class DealerShiftAdmin(ReadOnlyAdmin):
    """Dealers' shifts, read-only: signed in and relieved only through
    rounds.services.dealers (the API and the table screen)."""

    list_display = ["id", "table", "dealer", "gaming_day", "started_at", "ended_at",
                    "started_by", "ended_by"]
    list_filter = ["table", "gaming_day"]
    search_fields = ["table__name", "dealer__username"]
    list_select_related = ["table", "dealer", "started_by", "ended_by"]
    fields = ("table", "dealer", "gaming_day", "started_at", "started_by", "ended_at",
              "ended_by")
    readonly_fields = fields
