"""The cage's forms: amounts typed in the currency's unit as the casino writes them
("250,00" in a decimal-comma casino), read by the console's one amount field
(casino.shared.forms.AmountField)."""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms

from casino.models import Currency, IdDocument, Player
from casino.services import Identity
from casino.shared.forms import AmountField, CurrencyForm
from casino.shared.money import amount_show


class IdentityForm(forms.Form):
    """A player's identity as the cage reads it from their document (the service checks the
    age, the number's shape and the country codes: casino.services.player_identity_check)."""

    date_of_birth = forms.DateField(label="Date of birth",
                                    widget=forms.DateInput(attrs={"type": "date"}))
    id_document_kind = forms.ChoiceField(choices=[("", "Choose…"), *IdDocument.choices],
                                         label="Identity document")
    id_document_number = forms.CharField(max_length=40, label="Document number",
                                         help_text="Letters and digits as printed; spaces "
                                                   "and dashes are left out.")
    id_document_country = forms.CharField(max_length=2, required=False,
                                          label="Document issued by",
                                          help_text="The issuing country's two-letter code, "
                                                    "e.g. NL, DE, GB.")
    nationality = forms.CharField(max_length=2, required=False, label="Nationality",
                                  help_text="Optional: a two-letter country code.")
    photo_ref = forms.CharField(max_length=200, required=False, label="Photo reference",
                                help_text="Optional: where the cage keeps the player's photo.")

    def identity(self) -> Identity:
        data = self.cleaned_data
        return Identity(date_of_birth=data["date_of_birth"],
                        id_document_kind=data["id_document_kind"],
                        id_document_number=data["id_document_number"],
                        photo_ref=data.get("photo_ref", ""),
                        id_document_country=data.get("id_document_country", ""),
                        nationality=data.get("nationality", ""))


class PlayerForm(IdentityForm):
    """A player's registration with the identity the cage records, or a licensed third-party
    proposition player's (a business, which banks card-room rounds and never sits: known by
    its licence, not by a document)."""

    DOCUMENT = ("date_of_birth", "id_document_kind", "id_document_number")

    name = forms.CharField(max_length=200, label="Name",
                           help_text="As on the player's identity document.")
    currency = forms.ChoiceField(choices=Currency.choices, initial=Currency.EUR,
                                 label="Currency",
                                 help_text="The player's account is kept in this currency.")
    kind = forms.ChoiceField(choices=Player.Kind.choices, initial=Player.Kind.PLAYER,
                             label="Kind", required=False)
    licence = forms.CharField(max_length=60, required=False, label="Licence",
                              help_text="A proposition player's state licence; empty for a "
                                        "player.")
    # Ticked once the cashier has seen the players of the same name (shown only then).
    namesakes_seen = forms.BooleanField(
        required=False, label="This is a different person from the players listed above")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Required of a person, not of a proposition player: clean() says which.
        for name in self.DOCUMENT:
            self.fields[name].required = False

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        data["kind"] = data.get("kind") or Player.Kind.PLAYER   # not sent: a player
        if data["kind"] != Player.Kind.PROPOSITION:
            # A person is registered with the document the cage reads.
            for name in self.DOCUMENT:
                if not data.get(name) and name not in self.errors:
                    self.add_error(name, forms.Field.default_error_messages["required"])
        return data


class MovementForm(CurrencyForm):
    """A deposit or a withdrawal for one player; ``amount`` comes out in minor units."""

    amount = AmountField(label="Amount")
    reference = forms.CharField(max_length=200, required=False, label="Reference",
                                help_text="Slip or cheque number, if any; printed on the "
                                          "receipt and the statement.")

    def __init__(self, *args: Any, currency: str, **kwargs: Any) -> None:
        super().__init__(*args, currency=currency, **kwargs)
        self.fields["amount"].label = f"Amount ({currency})"
        self.fields["amount"].help_text = (f"In {currency}, for example "
                                           f"{amount_show(25000, currency)}.")


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


class GamingDayForm(forms.Form):
    """The gaming day a cash screen shows; the current one when none is chosen."""

    gaming_day = forms.DateField(required=False, label="Gaming day",
                                 widget=forms.DateInput(attrs={"type": "date"}),
                                 error_messages={"invalid": "Choose a day, e.g. 2026-12-06."})


class PlayerLoginForm(forms.Form):
    """The login the cage gives a player, or its new password (casino.player_logins)."""

    username = forms.CharField(max_length=150, label="Username",
                               help_text="What the player types to sign in; a reset keeps "
                                         "the same one.")
    password = forms.CharField(max_length=4096, strip=False, label="Password",
                               widget=forms.PasswordInput(render_value=False),
                               help_text="At least 8 characters, not only digits, not a "
                                         "common password.")
