"""The ledger in the admin: read-only. Money moves only through ledger.services."""

from __future__ import annotations

from django.contrib import admin

from casino.admin_base import ReadOnlyAdmin, ReadOnlyInline
from ledger.models import Account, Entry, Hold, Line
from ledger.money import format_minor


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "ref", "name", "currency", "posted_", "held_", "available_",
                    "allow_negative"]
    list_filter = ["kind", "currency"]
    search_fields = ["ref", "name"]

    @admin.display(description="posted", ordering="posted")
    def posted_(self, account: Account) -> str:
        return format_minor(account.posted, account.currency)

    @admin.display(description="held", ordering="held")
    def held_(self, account: Account) -> str:
        return format_minor(account.held, account.currency)

    @admin.display(description="available")
    def available_(self, account: Account) -> str:
        return format_minor(account.available, account.currency)


class LineInline(ReadOnlyInline):
    model = Line
    fields = readonly_fields = ("account", "amount_")
    # An entry's lines are the entry: whoever may see the entry sees them.
    view_permission = "ledger.view_entry"

    @admin.display(description="amount (+ credit, - debit)")
    def amount_(self, line: Line) -> str:
        return format_minor(line.amount, line.account.currency)


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "kind", "ref", "memo", "created_by", "reverses"]
    list_filter = ["kind"]
    search_fields = ["ref", "memo"]
    date_hierarchy = "created_at"
    inlines = [LineInline]
    list_select_related = ["created_by"]


@admin.register(Hold)
class HoldAdmin(ReadOnlyAdmin):
    list_display = ["id", "account", "amount_", "status", "captured_amount", "ref",
                    "created_at", "resolved_at", "entry"]
    list_filter = ["status"]
    search_fields = ["ref", "memo"]
    list_select_related = ["account"]

    @admin.display(description="amount", ordering="amount")
    def amount_(self, hold: Hold) -> str:
        return format_minor(hold.amount, hold.account.currency)
