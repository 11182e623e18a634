"""Tables in the admin: settings through rounds.services (so the "only between rounds"
check and the change record happen), seats and the settings history read-only."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypedDict

from django import forms
from django.contrib import admin
from django.db.models import Count, Model, Q, QuerySet
from django.http import HttpRequest, HttpResponse

from casino.shared.admin import ReadOnlyInline, StyledAdmin
from casino.shared.errors import DomainError
from casino.shared.guards import staff_user
from casino.shared.money import format_minor, to_minor
from casino.shared.refusals import refusal_trace_request
from casino.shared.templatetags.money import money_text
from rounds import paigow, services
from rounds.models import Seat, SeatChange, Table, TableSettingsChange
from rounds.services.tables import table_limits_refusal

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations



class TableForm(forms.ModelForm):
    """The table's settings, with the limits in the currency's units ("2.00"), not cents."""

    min_bet = forms.DecimalField(decimal_places=2, min_value=Decimal("0.01"),
                                 label="Minimum bet")
    max_bet = forms.DecimalField(decimal_places=2, min_value=Decimal("0.01"),
                                 label="Maximum bet")
    house_way = forms.ChoiceField(choices=[(w, w) for w in sorted(paigow.HOUSE_WAYS)])
    deal_modes = forms.TypedMultipleChoiceField(
        choices=Table.DealMode.choices, widget=forms.CheckboxSelectMultiple,
        label="Deal modes",
        help_text="Results only lets the dealer record each position's outcome: allow it "
                  "only at a table that records outcomes dealt elsewhere.")

    collection_player = forms.DecimalField(
        decimal_places=2, min_value=Decimal(0), label="Collection fee per wager",
        required=False, help_text="Card room: each wager with action pays it (empty or "
                                  "0.00: none).")
    collection_banker = forms.JSONField(
        label="Bank's collection fee bands", required=False,
        help_text='Card room, by the action covered against the bank: [{"up_to": "100.00", '
                  '"fee": "1.00"}, {"up_to": "500.00", "fee": "3.00"}, {"up_to": null, '
                  '"fee": "5.00"}].')

    class Meta:
        model = Table
        fields = list(services.TABLE_FIELDS)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("min_bet", "max_bet", "house_way", "deal_modes"):
            # A new table's form starts from the rules' defaults, like the model's fields.
            self.initial.setdefault(name, getattr(self.instance, name))
        for name in ("collection_player", "collection_banker"):
            self.initial.setdefault(name, getattr(self.instance, name))
        for limit in ("min_bet", "max_bet"):
            if isinstance(self.initial.get(limit), int):
                self.initial[limit] = Decimal(format_minor(self.initial[limit],
                                                           self.instance.currency))
        if isinstance(self.initial.get("collection_player"), int):
            # As text: a zero fee is still a value the page shows and sends back.
            self.initial["collection_player"] = format_minor(
                self.initial["collection_player"], self.instance.currency)
        bands = self.initial.get("collection_banker")
        if isinstance(bands, list) and all(isinstance(b, dict) for b in bands):
            # Shown in the currency's units, as the API shows them.
            currency = self.instance.currency
            self.initial["collection_banker"] = [
                {"up_to": None if b.get("up_to") is None else format_minor(b["up_to"], currency),
                 "fee": format_minor(b.get("fee", 0), currency)} for b in bands]

    def _minor(self, value: Decimal) -> int:
        currency = self.cleaned_data.get("currency") or self.instance.currency
        try:
            return to_minor(value, currency)
        except DomainError as exc:
            raise forms.ValidationError(exc.message) from exc

    def clean_min_bet(self) -> int:
        return self._minor(self.cleaned_data["min_bet"])

    def clean_max_bet(self) -> int:
        return self._minor(self.cleaned_data["max_bet"])

    def clean_collection_player(self) -> int:
        fee = self.cleaned_data["collection_player"]
        return 0 if fee is None else self._minor(fee)

    def clean_collection_banker(self) -> list[dict[str, int | None]]:
        bands = self.cleaned_data["collection_banker"]
        if bands is None:  # left empty: the table's bands stay as they are
            return list(self.instance.collection_banker)
        if not isinstance(bands, list) or not all(
                isinstance(b, dict) and set(b) == {"up_to", "fee"} for b in bands):
            raise forms.ValidationError('Bands are a list of {"up_to": "100.00" or null, '
                                        '"fee": "1.00"}.')
        currency = self.cleaned_data.get("currency") or self.instance.currency
        try:
            return [{"up_to": None if b["up_to"] is None else to_minor(str(b["up_to"]),
                                                                      currency),
                     "fee": to_minor(str(b["fee"]), currency)} for b in bands]
        except DomainError as exc:
            raise forms.ValidationError(exc.message) from exc

    def clean(self) -> dict[str, Any]:
        # The table's CHECK constraints, said in words before the model's own validation
        # would name them ("Constraint “table_limits_positive_and_ordered” is violated"); a
        # field with an error here is left out of that validation.
        cleaned = super().clean() or {}
        low, high = cleaned.get("min_bet"), cleaned.get("max_bet")
        if isinstance(low, int) and isinstance(high, int):
            why = table_limits_refusal(
                min_bet=low, max_bet=high,
                currency=cleaned.get("currency") or self.instance.currency)
            if why is not None:
                self.add_error("max_bet", why)
        rate = cleaned.get("commission_rate")
        if rate is not None and not Decimal(0) <= rate < 1:
            self.add_error("commission_rate", "The commission rate is a fraction of the win: "
                                              "at least 0 and below 1 (0.05 is 5%).")
        return cleaned


class SeatInline(ReadOnlyInline):
    """Who sits where; players take and leave seats through the API (rounds.services)."""

    model: type[Model] = Seat
    fields = readonly_fields = ("number", "player", "since")
    ordering = ["number"]
    view_permission = "rounds.view_table"


class SeatChangeInline(ReadOnlyInline):
    """Who took and left each seat, and when (recorded by seat_take and seat_leave)."""

    model = SeatChange
    fields = readonly_fields = ("at", "number", "player", "kind", "by")
    ordering = ["-id"]
    view_permission = "rounds.view_table"
    verbose_name = "seating change"
    verbose_name_plural = "seating history"

    def get_queryset(self, request: HttpRequest) -> QuerySet[SeatChange]:
        return super().get_queryset(request).select_related("player", "by")


class TableSettingsChangeInline(SeatInline):
    """Every change of the table's settings: who, when, what (recorded by table_update)."""

    model = TableSettingsChange
    fields = readonly_fields = ("changed_at", "changed_by", "what")
    ordering = ["-id"]
    verbose_name = "settings change"
    verbose_name_plural = "settings history"

    def get_queryset(self, request: HttpRequest) -> QuerySet[TableSettingsChange]:
        return super().get_queryset(request).select_related("table", "changed_by")

    @staticmethod
    def _label(field: str) -> str:
        """A setting as the table's form names it ("Minimum bet", not ``min_bet``)."""
        form_field = TableForm.base_fields.get(field)
        if form_field is not None and form_field.label:
            return str(form_field.label)
        return field.replace("_", " ").capitalize()

    @admin.display(description="changes (old → new)")
    def what(self, change: TableSettingsChange) -> str:
        currency = change.table.currency
        parts = []
        for field, (old, new) in change.changes.items():
            if field in ("min_bet", "max_bet"):
                old, new = money_text(old, currency), money_text(new, currency)
            elif field == "deal_modes":
                old, new = ", ".join(old), ", ".join(new)
            parts.append(f"{self._label(field)}: {old} → {new}")
        return "; ".join(parts)


class _SeatsTaken(TypedDict):
    taken: int  # annotated by TableAdmin.get_queryset


class _Refused(Exception):
    """A service refused the save; carries the DomainError to the form's second pass."""


@admin.register(Table)
class TableAdmin(StyledAdmin):
    """Settings change only through rounds.services: between rounds, by a pit boss, and
    each change recorded; a refusal shows on the form."""

    form = TableForm
    list_display = ["name", "currency", "limits", "is_open", "seats_taken"]
    list_filter = ["is_open", "currency"]
    search_fields = ["name"]
    fieldsets = [
        (None, {"fields": ["name", "currency", "is_open", "self_service"]}),
        ("Limits and commission", {"fields": ["min_bet", "max_bet", "commission_rate",
                                              "commission_rounding"]}),
        ("The game", {"fields": ["wheel", "house_way", "foul_policy", "first_stack",
                                 "deal_modes"]}),
        ("The bank", {"fields": ["bank_mode", "bank_rotation", "banker_must_have_played",
                                 "house_stake_cap", "co_banking"]}),
        ("Card room", {"fields": ["collection_banker", "collection_player",
                                  "max_consecutive_banks", "rotation_minutes"]}),
        ("Opened", {"fields": ["created_at", "created_by"]}),
    ]
    # Shown instead of the minor-unit fields to staff who may only look.
    _LIMITS_SHOWN = {"min_bet": "minimum_bet", "max_bet": "maximum_bet"}
    readonly_fields = [*_LIMITS_SHOWN.values(), "created_at", "created_by"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Table]:
        return super().get_queryset(request).annotate(
            taken=Count("seats", filter=Q(seats__player__isnull=False)))

    def get_inlines(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        return ([SeatInline, SeatChangeInline, TableSettingsChangeInline] if obj is not None
                else [])

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        if obj is None or self.has_change_permission(request, obj):
            return self.fieldsets
        return [(name, {**options, "fields": [self._LIMITS_SHOWN.get(f, f) if isinstance(f, str)
                                              else f for f in options["fields"]]})
                for name, options in self.fieldsets]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # A table's accounts are opened in its currency, so it never changes after.
        return [*self.readonly_fields, "currency"] if obj is not None else self.readonly_fields

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="limits")
    def limits(self, table: Table) -> str:
        return (f"{format_minor(table.min_bet, table.currency)}\N{EN DASH}"
                f"{format_minor(table.max_bet, table.currency)}")

    @admin.display(description="seats taken", ordering="taken")
    def seats_taken(self, table: WithAnnotations[Table, _SeatsTaken]) -> str:
        return f"{table.taken} of 6"

    @admin.display(description="minimum bet")
    def minimum_bet(self, table: Table) -> str:
        return f"{format_minor(table.min_bet, table.currency)} {table.currency}"

    @admin.display(description="maximum bet")
    def maximum_bet(self, table: Table) -> str:
        return f"{format_minor(table.max_bet, table.currency)} {table.currency}"

    def save_model(self, request: HttpRequest, obj: Table, form: Any, change: bool) -> None:
        try:
            if change:
                changes = {f: form.cleaned_data[f] for f in form.changed_data}
                services.table_update(table_id=obj.pk, by=staff_user(request), changes=changes)
                return
            settings = {f: form.cleaned_data[f] for f in form.fields if f != "name"}
            created = services.table_create(by=staff_user(request), name=form.cleaned_data["name"],
                                        **settings)
        except DomainError as exc:
            raise _Refused(exc) from exc
        obj.pk, obj.created_at, obj.created_by = created.pk, created.created_at, created.created_by
        obj._state.adding = False

    def changeform_view(self, request: HttpRequest, object_id: str | None = None,
                        form_url: str = "", extra_context: dict[str, Any] | None = None,
                        ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except _Refused as refused:
            # The service refused (say, a round is in play) and its transaction rolled
            # back; show the same form again, with the refusal as its error, and trace it.
            request.table_refusal = refused.args[0]  # type: ignore[attr-defined]
            refusal_trace_request(request, refused.args[0],
                                  action="table_update" if object_id else "table_create",
                                  ref=f"table:{object_id}" if object_id else "")
            return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False,
                 **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        refusal: DomainError | None = getattr(request, "table_refusal", None)
        if refusal is None:
            return form
        error: DomainError = refusal  # mypy does not carry the narrowing into the class below

        class RefusedForm(form):  # type: ignore[valid-type, misc]  # form: made by get_form
            def clean(self) -> dict[str, Any]:
                cleaned = super().clean()
                for field, errors in error.detail.get("fields", {}).items():
                    if field in self.fields:
                        self.add_error(field, errors)
                self.add_error(None, f"Not saved: {error.message}")
                return cleaned

        return RefusedForm
