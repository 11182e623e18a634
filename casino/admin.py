"""The floor in the admin: players with their balance (tables: rounds.admin_tables, beside
the round services their settings go through)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import QuerySet
from django.http import HttpRequest

from casino import cash, selectors, services
from casino.models import CashReport, Exclusion, Player, Refusal
from casino.shared.admin import ReadOnlyAdmin, StyledAdmin
from casino.shared.approvals import VIEW_ALL, Approval
from casino.shared.errors import DomainError
from casino.shared.guards import staff_user
from casino.shared.money import format_minor


class PlayerAdminForm(forms.ModelForm):
    """The identity checked by the service's own rule (player_identity_check) before the
    model's constraint sees it, so a refusal reads as the cage's screen words it."""

    kind = forms.ChoiceField(choices=Player.Kind.choices, required=False,
                             initial=Player.Kind.PLAYER,
                             help_text="A third-party proposition player banks card-room "
                                       "rounds and never sits; it needs its licence.")

    class Meta:
        model = Player
        fields = ["name", "currency", "date_of_birth", "id_document_kind", "id_document_number",
                  "id_document_country", "nationality", "photo_ref", "kind", "licence"]

    def clean_kind(self) -> str:
        return str(self.cleaned_data.get("kind") or Player.Kind.PLAYER)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.instance.pk is None:
            # A proposition player is known by its licence, a player has none: said here in
            # words, before the service (and the constraint player_kind_licence) refuses.
            licence = (data.get("licence") or "").strip()
            if data.get("kind") == Player.Kind.PROPOSITION and not licence:
                self.add_error("licence", "A third-party proposition player is registered "
                                          "with its state licence.")
            elif data.get("kind") == Player.Kind.PLAYER and licence:
                self.add_error("licence", "Only a third-party proposition player has a "
                                          "licence.")
            try:
                identity = services.player_identity_check(identity=services.Identity(
                    date_of_birth=data.get("date_of_birth"),
                    id_document_kind=data.get("id_document_kind") or "",
                    id_document_number=data.get("id_document_number") or "",
                    photo_ref=data.get("photo_ref") or "",
                    id_document_country=data.get("id_document_country") or "",
                    nationality=data.get("nationality") or ""))
            except DomainError as exc:
                raise forms.ValidationError(exc.message) from None
            for name in ("id_document_number", "id_document_country", "nationality"):
                data[name] = getattr(identity, name)
                setattr(self.instance, name, getattr(identity, name))
        return data


@admin.register(Player)
class PlayerAdmin(StyledAdmin):
    form = PlayerAdminForm
    list_display = ["id", "name", "currency", "date_of_birth", "available", "created_at"]
    search_fields = ["name", "id_document_number", "licence"]
    fields = ["name", "currency", "date_of_birth", "id_document_kind", "id_document_number",
              "id_document_country", "nationality", "photo_ref", "kind", "licence",
              "created_at", "created_by", "balance"]
    readonly_fields = ["created_at", "created_by", "balance"]
    # Recorded at registration, from the document the cage read; a rename is the only change
    # here (the cage records a later identity: casino.services.player_identity_update).
    IDENTITY = ["currency", "date_of_birth", "id_document_kind", "id_document_number",
                "id_document_country", "nationality", "photo_ref", "kind", "licence"]

    def get_queryset(self, request: HttpRequest) -> Any:
        return selectors.player_list()

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # The account is opened in the player's currency, so it never changes after.
        return [*self.readonly_fields, *self.IDENTITY] if obj is not None \
            else self.readonly_fields

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
        created = services.player_create(
            name=obj.name, currency=obj.currency, by=staff_user(request),
            identity=services.Identity(
                date_of_birth=obj.date_of_birth, id_document_kind=obj.id_document_kind,
                id_document_number=obj.id_document_number, photo_ref=obj.photo_ref,
                id_document_country=obj.id_document_country, nationality=obj.nationality),
            kind=obj.kind, licence=obj.licence)
        others = selectors.player_namesakes(name=created.name, exclude_id=created.pk)
        if others:
            self.message_user(request, "Registered beside players of the same name: "
                              + "; ".join(selectors.namesake_text(p) for p in others)
                              + ". Check this is a different person.", messages.WARNING)
        obj.pk, obj.created_at, obj.created_by = created.pk, created.created_at, created.created_by


@admin.register(CashReport)
class CashReportAdmin(ReadOnlyAdmin):
    """Cash transaction reports (casino.cash), read as the auditors read them; they are
    written by the movements themselves and filed through the API."""

    list_display = ["gaming_day", "player", "cash_in_shown", "cash_out_shown",
                    "report_line_passed", "splitting_suspected", "filings_shown"]
    list_filter = ["report_line_passed", "splitting_suspected"]
    date_hierarchy = "gaming_day"
    fields = ["player", "gaming_day", "currency", "cash_in_shown", "cash_out_shown",
              "movements", "report_line_passed", "splitting_suspected", "reasons",
              "identity", "history", "created_at", "updated_at", "filings_shown"]
    readonly_fields = ["cash_in_shown", "cash_out_shown", "filings_shown"]
    list_select_related = ["player"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[CashReport]:
        return super().get_queryset(request).prefetch_related(cash.FILINGS)

    @admin.display(description="filed")
    def filings_shown(self, report: CashReport) -> str:
        return cash.cash_report_filed_words(report)

    @admin.display(description="cash in")
    def cash_in_shown(self, report: CashReport) -> str:
        return f"{format_minor(report.cash_in, report.currency)} {report.currency}"

    @admin.display(description="cash out")
    def cash_out_shown(self, report: CashReport) -> str:
        return f"{format_minor(report.cash_out, report.currency)} {report.currency}"


@admin.register(Exclusion)
class ExclusionAdmin(ReadOnlyAdmin):
    """Self-excluded and barred players, read as the regulator reads them; recorded and
    lifted through the services' doors (the console's Exclusions page, the API), so every
    lift of a self-exclusion before its end waits for a second person."""

    list_display = ["id", "player", "kind", "starts", "until", "recorded_by", "recorded_at",
                    "lifted_at"]
    list_filter = ["kind"]
    search_fields = ["player__name", "reason"]
    fields = ["player", "kind", "starts", "until", "reason", "recorded_by", "recorded_at",
              "lifted_at", "lifted_by", "lift_reason", "lift_approved_by"]
    list_select_related = ["player", "recorded_by"]


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
