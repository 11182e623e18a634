"""The cage's forms: amounts typed in the currency's unit ("250.00"), parsed by the one
amount parser (casino.shared.money.to_minor), so the screen refuses what the API refuses."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms

from casino.models import Currency, IdDocument, Player
from casino.services import Identity
from casino.shared.errors import DomainError
from casino.shared.money import minor_digits, to_minor


class PlayerForm(forms.Form):
    """A player's registration: the cage records the identity document it reads (the
    service checks the age and the number's shape: casino.services.player_identity_check)."""

    name = forms.CharField(max_length=200, label="Name",
                           help_text="As on the player's identity document.")
    currency = forms.ChoiceField(choices=Currency.choices, initial=Currency.EUR,
                                 label="Currency",
                                 help_text="The player's account is kept in this currency.")
    # A person, or a licensed third-party proposition player (a business, which banks card-
    # room rounds and never sits): that one is known by its licence, not by a document.
    kind = forms.ChoiceField(choices=Player.Kind.choices, initial=Player.Kind.PLAYER,
                             label="Kind", required=False)
    licence = forms.CharField(max_length=60, required=False, label="Licence",
                              help_text="A proposition player's state licence; empty for a "
                                        "player.")
    date_of_birth = forms.DateField(label="Date of birth", required=False,
                                    widget=forms.DateInput(attrs={"type": "date"}))
    id_document_kind = forms.ChoiceField(choices=[("", "Choose…"), *IdDocument.choices],
                                         label="Identity document", required=False)
    id_document_number = forms.CharField(max_length=40, label="Document number",
                                         required=False,
                                         help_text="Letters and digits as printed; spaces "
                                                   "and dashes are left out.")
    photo_ref = forms.CharField(max_length=200, required=False, label="Photo reference",
                                help_text="Optional: where the cage keeps the player's photo.")
    # Ticked once the cashier has seen the players of the same name (shown only then).
    namesakes_seen = forms.BooleanField(
        required=False, label="This is a different person from the players listed above")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        data["kind"] = data.get("kind") or Player.Kind.PLAYER   # not sent: a player
        if data["kind"] != Player.Kind.PROPOSITION:
            # A person is registered with the document the cage reads.
            for name in ("date_of_birth", "id_document_kind", "id_document_number"):
                if not data.get(name) and name not in self.errors:
                    self.add_error(name, forms.Field.default_error_messages["required"])
        return data

    def identity(self) -> Identity:
        data = self.cleaned_data
        return Identity(date_of_birth=data["date_of_birth"],
                        id_document_kind=data["id_document_kind"],
                        id_document_number=data["id_document_number"],
                        photo_ref=data.get("photo_ref", ""))


class MovementForm(forms.Form):
    """A deposit or a withdrawal for one player; ``amount`` comes out in minor units."""

    amount = forms.CharField(max_length=30, label="Amount")
    reference = forms.CharField(max_length=200, required=False, label="Reference",
                                help_text="Slip or cheque number, if any; printed on the "
                                          "receipt and the statement.")

    def __init__(self, *args: Any, currency: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.currency = currency
        digits = minor_digits(currency)
        self.fields["amount"].label = f"Amount ({currency})"
        example = "250." + "0" * digits if digits else "250"
        self.fields["amount"].help_text = f"In {currency}, for example {example}."
        self.fields["amount"].widget.attrs.update({"inputmode": "decimal",
                                                   "autocomplete": "off"})

    def clean_amount(self) -> int:
        try:
            minor = to_minor(self.cleaned_data["amount"], self.currency)
        except DomainError as exc:
            raise forms.ValidationError(exc.message) from None
        if minor <= 0:
            raise forms.ValidationError("The amount must be more than zero.")
        return minor


class StatementForm(forms.Form):
    """The period of a statement, in gaming days (each starts at the casino's start hour)."""

    date_from = forms.DateField(required=False, label="From gaming day",
                                widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To gaming day (inclusive)",
                              widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        first: date | None = cleaned.get("date_from")
        last: date | None = cleaned.get("date_to")
        if first and last and first > last:
            raise forms.ValidationError("The first gaming day must not be after the last.")
        for day in (first, last):
            # The period runs to the start of the day after the last: 9999-12-31 has none.
            if day is not None and not date(1900, 1, 1) <= day <= date(9998, 12, 31):
                raise forms.ValidationError("Choose gaming days between 1900 and 9998.")
        return cleaned
