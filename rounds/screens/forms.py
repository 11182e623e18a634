"""The console's forms: they parse what a person sent into the services' arguments.

Amounts arrive in the currency's unit as the casino writes them ("12,50" in a decimal-comma
casino) and leave as minor units through the one amount field (casino.shared.forms); nothing
here decides anything about money.
"""

from __future__ import annotations

from typing import Any

from django import forms

from casino.shared.errors import DomainError
from casino.shared.forms import AmountField, CurrencyForm
from casino.shared.money import format_minor, to_minor
from rounds import paigow
from rounds.models import Table
from rounds.services import RULE_FIELDS
from rounds.services.tables import table_limits_refusal


class BuyInForm(CurrencyForm):
    """Cash a seated player hands the dealer, in the table's currency."""

    seat = forms.IntegerField(min_value=1, max_value=6)
    amount = AmountField(error_messages={"required": "Type the cash taken, e.g. 250."})


class WagerForm(CurrencyForm):
    """A seat's wager, sent once: the amount built from chips (the screen's script adds them
    up in the amount field) or typed. A chip sent alone (no script) is the whole wager."""

    seat = forms.IntegerField(min_value=1, max_value=6)
    amount = AmountField(required=False)
    chip = AmountField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        amount = data.get("amount") or data.get("chip")
        if not amount and not self.errors:
            raise forms.ValidationError("Type the wager, or add chips, then press Bet.")
        data["amount"] = amount
        return data


class WagerLowerForm(CurrencyForm):
    amount = AmountField(error_messages={"required": "Type the lower amount."})


class BankerForm(CurrencyForm):
    house = forms.BooleanField(required=False)
    seat = forms.IntegerField(min_value=1, max_value=6, required=False)
    house_stake = AmountField(required=False, positive=False)
    # A card room: the most the player-dealer covers (empty: all the action), and the
    # proposition player covering the rest, or banking alone (no seat).
    cover = AmountField(required=False)
    third_party = forms.IntegerField(min_value=1, required=False, error_messages={
        "invalid": "Choose a proposition player from the list."})


class SeatOnlyForm(forms.Form):
    """A step that names a seat and nothing else (the seat offered the bank declines)."""

    seat = forms.IntegerField(min_value=1, max_value=6, error_messages={
        "required": "Name the seat, 1 to 6.", "invalid": "A seat is a number from 1 to 6.",
        "min_value": "A seat is a number from 1 to 6.",
        "max_value": "A seat is a number from 1 to 6."})


class HandForm(forms.Form):
    """House Way in one click, or a manual split: the two cards picked for the low hand."""

    house_way = forms.BooleanField(required=False)
    low = forms.MultipleChoiceField(required=False, choices=[(c, c) for c in
                                                             (card.code for card in paigow.DECK)])

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("house_way") and len(data.get("low") or []) != 2:
            raise forms.ValidationError(
                "Pick exactly two cards for the low hand, or use the House Way.")
        return data


class ReasonForm(forms.Form):
    reason = forms.CharField(max_length=2000, widget=forms.Textarea(attrs={"rows": 3}),
                             help_text="Recorded with the round, for the audit.")


class SeatForm(forms.Form):
    number = forms.IntegerField(min_value=1, max_value=6, label="Seat")
    player = forms.IntegerField(min_value=1, label="Player")


class TableSettingsForm(forms.Form):
    """Every setting a pit boss may change between rounds; limits in the currency's unit.

    A plain form with the model's own form fields (``fields_for_model``): it only parses;
    the service validates and saves (rounds.services.table_update)."""

    FIELDS = ["name", "is_open", *RULE_FIELDS]
    LABELS = {
        "is_open": "Open for play", "commission_rate": "Commission rate (0.05 = 5%)",
        "commission_rounding": "Commission rounding", "wheel": "A-2-3-4-5 (the wheel)",
        "bank_rotation": "Bank rotation",
        "banker_must_have_played": "A banker must have played against the house",
        "house_stake_cap": "House stake cap", "foul_policy": "A fouled hand",
        "co_banking": "Co-banking (the house covers half the bank)",
        "first_stack": "First stack",
        "bank_mode": "Who banks",
        "max_consecutive_banks": "Card room: most consecutive rounds one player banks",
        "rotation_minutes": "Card room: the bank moves on after (minutes; empty: no limit)",
    }

    def __init__(self, data: Any = None, *, instance: Table) -> None:
        self.instance = instance
        super().__init__(data, initial=forms.model_to_dict(instance, fields=self.FIELDS))
        model_fields = forms.fields_for_model(Table, fields=self.FIELDS, labels=self.LABELS)
        own = {
            "min_bet": AmountField(currency=instance.currency,
                                   label=f"Minimum wager ({instance.currency})"),
            "max_bet": AmountField(currency=instance.currency,
                                   label=f"Maximum wager ({instance.currency})"),
            "collection_player": AmountField(
                currency=instance.currency, positive=False,
                label=f"Card room: the fee of each wager with action ({instance.currency})"),
            # Money strings, as the API and the admin show them; kept in minor units.
            "collection_banker": forms.JSONField(
                label=f"Card room: the bank's fee bands ({instance.currency})",
                help_text='By the action covered against the bank: [{"up_to": "100.00", '
                          '"fee": "1.00"}, ..., {"up_to": null, "fee": "5.00"}].'),
            "house_way": forms.ChoiceField(
                choices=[(w, w.replace("_", " ").title()) for w in sorted(paigow.HOUSE_WAYS)],
                label="House way"),
        }
        self.fields = {name: own.get(name) or model_fields[name] for name in self.FIELDS}
        self.initial["collection_banker"] = [
            {"up_to": None if b["up_to"] is None else format_minor(b["up_to"],
                                                                   instance.currency),
             "fee": format_minor(b["fee"], instance.currency)}
            for b in instance.collection_banker]
        self.fields["commission_rate"].help_text = ""

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        low, high = data.get("min_bet"), data.get("max_bet")
        if low is not None and high is not None:
            why = table_limits_refusal(min_bet=low, max_bet=high,
                                       currency=self.instance.currency)
            if why is not None:
                self.add_error("max_bet", why)
        return data

    def clean_collection_banker(self) -> list[dict[str, int | None]]:
        """The bands in minor units; whether they make a schedule is the service's check."""
        bands = self.cleaned_data["collection_banker"]
        shape = forms.ValidationError('The bank\'s fee bands are a list of {"up_to": '
                                      '"100.00" or null, "fee": "1.00"}.')
        if not isinstance(bands, list) or not all(
                isinstance(b, dict) and set(b) == {"up_to", "fee"} for b in bands):
            raise shape
        currency = self.instance.currency
        try:
            return [{"up_to": None if b["up_to"] is None else to_minor(str(b["up_to"]),
                                                                      currency),
                     "fee": to_minor(str(b["fee"]), currency)} for b in bands]
        except DomainError as exc:
            raise forms.ValidationError(exc.message) from exc

    def changes(self) -> dict[str, Any]:
        """The settings as the service takes them (limits in minor units, as the amount
        field cleans them)."""
        return {name: self.cleaned_data[name] for name in self.FIELDS}
