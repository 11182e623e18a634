"""The ledger in the admin: read-only. Money moves only through ledger.services.

Every amount is shown in the currency's unit with its code (``595.00 EUR``), never the
minor units the rows store; the detail pages list their fields explicitly so that no raw
column (``posted: 59500``) slips through.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from casino.shared.admin import ReadOnlyAdmin, ReadOnlyInline
from casino.shared.templatetags.money import money_text
from ledger import selectors
from ledger.models import Account, Block, Checkpoint, Entry, Hold, Line

# Least privilege, as in the API: without this permission (the cage) only players' accounts,
# the entries that move them and their holds are shown, never the house's.
HOUSE = "ledger.view_house_accounts"


def _players_only(request: HttpRequest) -> bool:
    return not request.user.has_perm(HOUSE)


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "ref", "name", "currency", "posted_", "held_", "available_",
                    "allow_negative"]
    list_filter = ["kind", "currency"]
    search_fields = ["ref", "name"]
    fields = readonly_fields = ("kind", "currency", "ref", "name", "allow_negative", "posted_",
                                "held_", "available_", "created_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Account]:
        accounts = super().get_queryset(request)
        return accounts.filter(kind=Account.Kind.PLAYER) if _players_only(request) else accounts

    @admin.display(description="posted", ordering="posted")
    def posted_(self, account: Account) -> str:
        return money_text(account.posted, account.currency)

    @admin.display(description="held", ordering="held")
    def held_(self, account: Account) -> str:
        return money_text(account.held, account.currency)

    @admin.display(description="available")
    def available_(self, account: Account) -> str:
        return money_text(account.available, account.currency)


class LineInline(ReadOnlyInline):
    model = Line
    fields = readonly_fields = ("account", "amount_")
    # An entry's lines are the entry: whoever may see the entry sees them.
    view_permission = "ledger.view_entry"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Line]:
        return super().get_queryset(request).select_related("account")

    @admin.display(description="amount (+ credit, - debit)")
    def amount_(self, line: Line) -> str:
        return money_text(line.amount, line.account.currency)


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "kind", "ref", "memo", "created_by", "reverses"]
    list_filter = ["kind"]
    search_fields = ["ref", "memo"]
    date_hierarchy = "created_at"
    inlines = [LineInline]
    list_select_related = ["created_by"]
    fields = readonly_fields = ("kind", "memo", "ref", "created_at", "created_by", "reverses",
                                "reason", "txid", "seq", "prev_hash", "hash")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Entry]:
        entries = super().get_queryset(request)
        return selectors.entries_moving_players(entries) if _players_only(request) else entries


@admin.register(Hold)
class HoldAdmin(ReadOnlyAdmin):
    list_display = ["id", "account", "amount_", "status", "captured_", "ref",
                    "created_at", "resolved_at", "entry"]
    list_filter = ["status"]
    search_fields = ["ref", "memo"]
    list_select_related = ["account"]
    fields = readonly_fields = ("account", "amount_", "status", "captured_", "ref", "memo",
                                "created_at", "created_by", "entry", "resolved_at",
                                "resolved_by")

    @admin.display(description="amount", ordering="amount")
    def amount_(self, hold: Hold) -> str:
        return money_text(hold.amount, hold.account.currency)

    @admin.display(description="captured")
    def captured_(self, hold: Hold) -> str:
        return money_text(hold.captured_amount, hold.account.currency)


@admin.register(Block)
class BlockAdmin(ReadOnlyAdmin):
    """The sealed chain, for auditors: what ledger_verify rechecks, never changed here."""

    list_display = ["n", "entries", "last_entry_id", "sealed_at", "hash"]
    date_hierarchy = "sealed_at"
    fields = readonly_fields = ("n", "entries", "last_txid", "last_entry_id", "prev_hash",
                                "hash", "sealed_at")


@admin.register(Checkpoint)
class CheckpointAdmin(ReadOnlyAdmin):
    list_display = ["id", "block_n", "verified_at", "hash"]
    fields = readonly_fields = ("block_n", "hash", "verified_at", "signature")
