"""Read-only admin pieces shared by the apps: money and history are changed through the
services (and PostgreSQL refuses edits of ledger rows and round events anyway)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest


class StyledAdmin(admin.ModelAdmin):
    """An admin page with the console's few additions to the admin's styles: red hearts and
    diamonds, wide tables that scroll in their own box on a narrow screen."""

    class Media:
        css = {"all": ["console/admin.css"]}


class ReadOnlyAdmin(StyledAdmin):
    """Viewable by whoever holds the model's view permission; nobody adds, changes or
    deletes rows here."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    """Rows shown inside their parent's page, to whoever may view the parent
    (``view_permission``): they are part of its story, not editable on their own."""

    view_permission = ""
    extra = 0
    can_delete = False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.has_perm(self.view_permission)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

