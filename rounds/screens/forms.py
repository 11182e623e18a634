"""The console's forms: they parse what a person sent into the services' arguments.

Amounts arrive in the currency's unit as the casino writes them ("12,50" in a decimal-comma
casino) and leave as minor units through the one amount field (casino.shared.forms); nothing
here decides anything about money.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django import forms

from casino.shared.forms import AmountField, CurrencyForm
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


# The bank's fee bands shown as rows of money: those of the table and this many empty ones
# to add a band; a sent form brings as many rows as it had (at most BAND_ROWS_MAX).
BAND_ROWS_EXTRA = 2
BAND_ROWS_MAX = 20
_BAND_ROW = re.compile(r"^band-(\d+)-(?:up_to|fee)$")


class TableSettingsForm(forms.Form):
    """Every setting a pit boss may change between rounds, as a person writes it: limits
    and fees in the currency's unit, the bank's fee bands as rows of money ("up to",
    "fee"; the last row's "up to" empty), the deal modes as boxes to tick, the commission
    in % (5 for 5 %).

    It only parses, into the service's arguments (minor units, the commission as the
    fraction the table stores): whether the bands make a schedule, at least one deal mode,
    the commission's range are the service's checks (rounds.services.table_update), the
    same for the API and the admin, shown on the screen in words."""

    FIELDS = ["name", "is_open", *RULE_FIELDS]
    LABELS = {
        "is_open": "Open for play",
        "commission_rounding": "Commission rounding", "wheel": "A-2-3-4-5 (the wheel)",
        "bank_rotation": "Bank rotation",
        "banker_must_have_played": "A banker must have played against the house",
        "house_stake_cap": "House stake cap", "foul_policy": "A fouled hand",
        "co_banking": "Co-banking (the house covers half the bank)",
        "first_stack": "First stack",
        "bank_mode": "Who banks",
        "max_consecutive_banks": "Most consecutive rounds one player banks",
        "rotation_minutes": "The bank moves on after (minutes; empty: no limit)",
    }
    # Shown apart, under "Card room": they apply when a card room's players bank.
    CARD_ROOM = ("collection_player", "max_consecutive_banks", "rotation_minutes")

    def __init__(self, data: Any = None, *, instance: Table) -> None:
        self.instance = instance
        initial = forms.model_to_dict(instance, fields=self.FIELDS)
        # 0.0500 -> 5: the commission as a pit boss says it.
        initial["commission_rate"] = _percent(instance.commission_rate)
        super().__init__(data, initial=initial)
        cur = instance.currency
        # The labels say it all; the model's help texts are the API's and the admin's.
        model_fields = forms.fields_for_model(Table, fields=self.FIELDS, labels=self.LABELS,
                                              help_texts=dict.fromkeys(self.FIELDS, ""))
        own = {
            "min_bet": AmountField(currency=cur, label=f"Minimum wager ({cur})"),
            "max_bet": AmountField(currency=cur, label=f"Maximum wager ({cur})"),
            "commission_rate": forms.DecimalField(
                label="Commission (% of a win)", max_digits=6, decimal_places=2,
                widget=forms.NumberInput(attrs={"step": "0.01", "inputmode": "decimal"}),
                help_text="5 is 5 %; 0 takes none.",
                error_messages={"invalid": "Write the commission as a percentage, e.g. 5.",
                                "max_decimal_places": "The commission is in %% with at "
                                                      "most two decimals, e.g. 5 or 4.75."}),
            "deal_modes": forms.MultipleChoiceField(
                choices=Table.DealMode.choices, required=False,
                widget=forms.CheckboxSelectMultiple, label="How rounds may be dealt"),
            "collection_player": AmountField(
                currency=cur, positive=False,
                label=f"The players' fee: each wager with action ({cur})"),
            "house_way": forms.ChoiceField(
                choices=[(w, w.replace("_", " ").title()) for w in sorted(paigow.HOUSE_WAYS)],
                label="House way"),
        }
        self.fields = {name: own.get(name) or model_fields[name] for name in self.FIELDS
                       if name != "collection_banker"}
        bands = instance.collection_banker
        rows = max(len(bands) + BAND_ROWS_EXTRA, 1 + max(
            (int(m.group(1)) for m in map(_BAND_ROW.match, data or {}) if m), default=-1))
        for i in range(min(rows, BAND_ROWS_MAX)):
            band = bands[i] if i < len(bands) else {"up_to": None, "fee": None}
            last = i == len(bands) - 1
            self.fields[f"band-{i}-up_to"] = AmountField(
                currency=cur, required=False, label=f"Band {i + 1}: up to ({cur})",
                help_text="Empty: any larger action." if last else "")
            self.fields[f"band-{i}-fee"] = AmountField(
                currency=cur, required=False, positive=False, label=f"Band {i + 1}: fee ({cur})")
            self.initial[f"band-{i}-up_to"] = band["up_to"]
            self.initial[f"band-{i}-fee"] = band["fee"]
        self.band_count = min(rows, BAND_ROWS_MAX)

    # --- what the template lays out ------------------------------------------------------

    def table_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields
                if not name.startswith("band-") and name not in self.CARD_ROOM]

    def card_room_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.CARD_ROOM]

    def band_rows(self) -> list[tuple[int, forms.BoundField, forms.BoundField]]:
        return [(i + 1, self[f"band-{i}-up_to"], self[f"band-{i}-fee"])
                for i in range(self.band_count)]

    # --- parsing ---------------------------------------------------------------------------

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        low, high = data.get("min_bet"), data.get("max_bet")
        if low is not None and high is not None:
            why = table_limits_refusal(min_bet=low, max_bet=high,
                                       currency=self.instance.currency)
            if why is not None:
                self.add_error("max_bet", why)
        rate = data.get("commission_rate")
        if rate is not None:
            data["commission_rate"] = (rate / 100).quantize(Decimal("0.0001"))
        data["collection_banker"] = self._bands(data)
        return data

    def _bands(self, data: dict[str, Any]) -> list[dict[str, int | None]]:
        """The rows with a figure, in order, in minor units; a row with a limit but no fee
        is not a band yet (said beside it). Whether they make a schedule (rising limits,
        the last one open) is the service's check."""
        bands: list[dict[str, int | None]] = []
        for i in range(self.band_count):
            up_to, fee = data.get(f"band-{i}-up_to"), data.get(f"band-{i}-fee")
            if up_to is None and fee is None:
                continue
            if fee is None:
                if f"band-{i}-fee" not in self.errors:
                    self.add_error(f"band-{i}-fee", "Give this band's fee (0 for none).")
                continue
            bands.append({"up_to": up_to, "fee": fee})
        return bands

    def changes(self) -> dict[str, Any]:
        """The settings as the service takes them (limits in minor units, as the amount
        field cleans them)."""
        return {name: self.cleaned_data[name] for name in self.FIELDS}


def _percent(rate: Decimal) -> Decimal:
    """0.0500 -> 5, 0.0475 -> 4.75: a fraction of a win in %, without trailing zeros."""
    shown = (Decimal(rate) * 100).quantize(Decimal("0.01"))
    return shown.to_integral() if shown == shown.to_integral() else shown.normalize()
