"""``{{ amount|money:currency }}``: minor units shown in the currency's unit, the one way
money is written on every screen (console, admin, reports' HTML)."""

from __future__ import annotations

from django import template

from casino.shared.money import format_minor

register = template.Library()

NOT_YET = "\u2013"  # an en dash: nothing to show yet


def money_text(amount: int | None, currency: str) -> str:
    """``16050, "EUR"`` -> ``"160.50 EUR"``; ``None`` (not known yet) -> an en dash."""
    if amount is None:
        return NOT_YET
    return f"{format_minor(int(amount), currency)} {currency}"


@register.filter
def money(amount: int | None, currency: str) -> str:
    return money_text(amount, currency)


@register.filter
def money_plain(amount: int | None, currency: str) -> str:
    """The figure without its currency, for columns whose header names the currency."""
    return NOT_YET if amount is None else format_minor(int(amount), currency)
