"""The console's one amount field: every form that takes money (a wager, a lower amount, the
house's stake, the cage's deposit and withdrawal, a table's limits) reads it through here.

An amount is typed in the casino's writing (settings.CASINO_LOCALE: "7,50" in a
decimal-comma casino) and cleans to the currency's minor units, an ``int``, through
casino.shared.money.amount_read: one parser, one rule for separators, the currency's own
decimals. The API does not use it: it takes the machine's "7.50" (casino.shared.api.fields).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm

from casino.shared.api.permissions import is_player
from casino.shared.errors import DomainError
from casino.shared.money import amount_read, amount_show

MAX_TYPED = 30  # characters: far beyond any amount the service takes (MAX_MINOR)


class AmountField(forms.Field):
    """An amount in ``currency`` (given, or set by the form: CurrencyForm), cleaned to
    minor units.

    ``positive`` refuses zero (a wager, a deposit); an empty optional field cleans to
    ``None``."""

    widget = forms.TextInput

    def __init__(self, *, currency: str = "", positive: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.currency = currency
        self.positive = positive
        self.widget.attrs.update({"inputmode": "decimal", "autocomplete": "off",
                                  "maxlength": str(MAX_TYPED), "size": "9"})

    def prepare_value(self, value: Any) -> Any:
        # An initial value in minor units is shown as it is typed here (no thousands
        # separators, so a field sent back unchanged reads the same).
        if isinstance(value, int) and not isinstance(value, bool) and self.currency:
            return amount_show(value, self.currency, grouped=False)
        return value

    def to_python(self, value: Any) -> int | None:
        text = "" if value is None else str(value).strip()
        if not text:
            return None
        if len(text) > MAX_TYPED:
            raise forms.ValidationError("That amount is far too long.", code="invalid")
        try:
            minor = amount_read(text, self.currency)
        except DomainError as exc:
            raise forms.ValidationError(exc.message, code="invalid") from None
        if self.positive and minor <= 0:
            raise forms.ValidationError("The amount must be more than zero.", code="invalid")
        return minor


class CurrencyForm(forms.Form):
    """A form whose AmountFields are in one currency: ``Form(data, currency="EUR")``. (No
    placeholder: a grey "7,50" in a money field reads as an amount already typed; a form's
    help text shows how amounts are written here.)"""

    def __init__(self, *args: Any, currency: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.currency = currency
        for field in self.fields.values():
            if isinstance(field, AmountField):
                field.currency = currency


class StaffAuthenticationForm(AuthenticationForm):
    """The console's sign-in (/login/), for staff: a player's login is refused in words and
    sent to their own. Django's form checks the password with ``authenticate()`` and the
    request, as before, so a wrong password still counts towards the lockout (axes); a
    player's right password is no failed login and locks nobody out."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "player_login": "This is the staff sign-in; players sign in at /play/login/.",
    }

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        if is_player(user):
            raise forms.ValidationError(self.error_messages["player_login"],
                                        code="player_login")


class PlayerAuthenticationForm(AuthenticationForm):
    """The players' sign-in (/play/login/): a staff login is refused in words and sent to
    the console's. The password is checked as on the staff sign-in (``authenticate()``
    with the request), so the lockout counts a player's wrong passwords alike."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "staff_login": "This is the players' sign-in; staff sign in at /login/.",
    }

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        if not is_player(user):
            raise forms.ValidationError(self.error_messages["staff_login"],
                                        code="staff_login")
