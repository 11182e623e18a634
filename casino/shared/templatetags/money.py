"""``{{ amount|money:currency }}``: minor units shown in the currency's unit, the one way
money is written on every screen (console, admin, reports' HTML), in the casino's writing
(settings.CASINO_LOCALE: "12,379.50 EUR" in en, "12.379,50 EUR" in de)."""

from __future__ import annotations

from django import template

from casino.shared.errors import DomainError
from casino.shared.money import amount_show, to_minor

register = template.Library()

NOT_YET = "\u2013"  # an en dash: nothing to show yet


def money_text(amount: int | None, currency: str) -> str:
    """``1237950, "EUR"`` -> ``"12,379.50 EUR"`` (en); ``None`` (not known yet) -> an en
    dash."""
    if amount is None:
        return NOT_YET
    return f"{amount_show(int(amount), currency)} {currency}"


@register.filter
def money(amount: int | None, currency: str) -> str:
    return money_text(amount, currency)


def money_signed_text(amount: int, currency: str) -> str:
    """A result that may go either way, its sign always written: ``5200`` -> ``"+52.00
    EUR"``, ``-5225`` -> ``"-52.25 EUR"``, ``0`` -> ``"0.00 EUR"`` (money_text's figure)."""
    return f"+{money_text(amount, currency)}" if amount > 0 else money_text(amount, currency)


@register.filter
def money_signed(amount: int, currency: str) -> str:
    return money_signed_text(amount, currency)


@register.filter
def money_plain(amount: int | None, currency: str) -> str:
    """The figure without its currency, for columns whose header names the currency."""
    return NOT_YET if amount is None else amount_show(int(amount), currency)


def money_said(value: object, currency: str) -> str:
    """An amount written by the machine ("12379.50": a refusal's detail, an event's payload)
    as a screen shows it ("12,379.50 EUR" in en); a value that is not one is left as it is."""
    try:
        return money_text(to_minor(str(value), currency), currency)
    except DomainError:
        return f"{value} {currency}".strip()
