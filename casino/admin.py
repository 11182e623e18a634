"""The floor in the admin: players with their balance (tables: rounds.admin_tables, beside
the round services their settings go through)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from casino import selectors, services
from casino.admin_base import StyledAdmin, staff_user
from casino.models import Player
from ledger.money import format_minor


@admin.register(Player)
class PlayerAdmin(StyledAdmin):
    list_display = ["id", "name", "currency", "available", "created_at"]
    search_fields = ["name"]
    fields = ["name", "currency", "created_at", "created_by", "balance"]
    readonly_fields = ["created_at", "created_by", "balance"]

    def get_queryset(self, request: HttpRequest) -> Any:
        return selectors.player_list()

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # The account is opened in the player's currency, so it never changes after.
        return [*self.readonly_fields, "currency"] if obj is not None else self.readonly_fields

    @admin.display(description="available")
    def available(self, player: Player) -> str:
        balance = selectors.player_balance(player)
        return f"{format_minor(balance.available, balance.currency)} {balance.currency}"

    @admin.display(description="balance")
    def balance(self, player: Player) -> str:
        if player.pk is None:
            return "-"
        b = selectors.player_balance(player)
        cur = b.currency
        return (f"posted {format_minor(b.posted, cur)}, held {format_minor(b.held, cur)}, "
                f"available {format_minor(b.available, cur)} {cur}")

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        if change:
            obj.save(update_fields=["name"])  # a rename; money never moves here
            return
        created = services.player_create(name=obj.name, currency=obj.currency,
                                         by=staff_user(request))
        obj.pk, obj.created_at, obj.created_by = created.pk, created.created_at, created.created_by
