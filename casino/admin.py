"""The floor in the admin: players with their balance (tables: rounds.admin_tables, beside
the round services their settings go through)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.http import HttpRequest

from casino import selectors, services
from casino.models import Player, Refusal
from casino.shared.admin import ReadOnlyAdmin, StyledAdmin, staff_user
from casino.shared.approvals import VIEW_ALL, Approval
from casino.shared.money import format_minor


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

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A player's record stays with their ledger account (and the service's database
        # role has no DELETE on players: casino/shared/db_roles.py).
        return False

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
            services.player_rename(player_id=obj.pk, name=obj.name, by=staff_user(request))
            return
        created = services.player_create(name=obj.name, currency=obj.currency,
                                         by=staff_user(request))
        obj.pk, obj.created_at, obj.created_by = created.pk, created.created_at, created.created_by


@admin.register(Refusal)
class RefusalAdmin(ReadOnlyAdmin):
    """Attempts the service refused (casino.shared.refusals), for auditors and pit bosses: the
    attempts beside the actions."""

    list_display = ["at", "username", "action", "code", "ref", "message"]
    list_filter = ["action", "code"]
    search_fields = ["username", "ref", "message"]
    date_hierarchy = "at"
    fields = ["at", "by", "username", "action", "code", "message", "detail", "ref", "path"]
    list_select_related = ["by"]


@admin.register(Approval)
class ApprovalAdmin(ReadOnlyAdmin):
    """Requests that waited for a second person and what was decided, for oversight; they
    are decided through the API (casino.shared.approvals)."""

    list_display = ["id", "requested_at", "action", "summary", "requested_by", "status",
                    "decided_by", "decided_at"]
    list_filter = ["status", "action"]
    search_fields = ["summary", "ref"]
    fields = ["action", "summary", "ref", "params", "requested_by", "requested_at", "status",
              "decided_by", "decided_at", "note", "result_ref"]
    list_select_related = ["requested_by", "decided_by"]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.has_perm(VIEW_ALL)


# Staff are deactivated, not deleted (entries name who posted them), and the roles' groups
# are defined by casino/roles.py and re-applied at every migrate: the service's database
# role may change neither (casino/shared/db_roles.py), so the admin does not offer it.
admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(User)
class StaffUserAdmin(UserAdmin):
    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Group)
class RoleGroupAdmin(GroupAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
