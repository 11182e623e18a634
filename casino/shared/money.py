"""Money at the edges: decimal strings in, integer minor units inside, decimal strings out.

Inside the service every amount is an ``int`` of the currency's minor unit (cents for EUR).
These two functions are the only place that converts; they are strict on purpose, because a
float that sneaks into a money path loses cents silently (0.1 + 0.2 != 0.3).
"""

from __future__ import annotations

import re
from decimal import Decimal

from casino.shared.errors import ValidationFailed

# Digits after the decimal point, per ISO 4217. Currencies the floor does not list are
# refused rather than guessed.
MINOR_DIGITS: dict[str, int] = {"EUR": 2, "USD": 2, "GBP": 2, "CHF": 2}

# Far beyond any table's business, and far inside PostgreSQL's bigint (9.2e18), so sums of
# many amounts cannot overflow either.
MAX_MINOR = 10**15

_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")  # ASCII digits only


def minor_digits(currency: str) -> int:
    try:
        return MINOR_DIGITS[currency]
    except KeyError:
        raise ValidationFailed(
            f"Unknown currency {currency!r}.", code="invalid_currency",
            detail={"currency": currency, "known": sorted(MINOR_DIGITS)},
        ) from None


def _refuse(value: object, why: str) -> ValidationFailed:
    return ValidationFailed(f"{why} (got {value!r}).", code="invalid_amount",
                            detail={"value": str(value)})


def to_minor(value: str | int | Decimal, currency: str) -> int:
    """``"160.5"`` / ``"160.50"`` / ``160`` / ``Decimal("160.50")`` in EUR -> ``16050``.

    Refuses floats (even ``160.0``: a float on a money path is a bug upstream), booleans,
    exponents, NaN and infinities, surrounding spaces, more decimals than the currency has,
    and amounts beyond ``MAX_MINOR``. Sign is allowed; callers refuse zero or negative
    amounts where those make no sense.
    """
    digits = minor_digits(currency)
    if isinstance(value, bool | float):
        raise _refuse(value, "An amount must be a decimal string or an integer, not a "
                             + type(value).__name__)
    if isinstance(value, int):
        minor = value * 10**digits
    elif isinstance(value, Decimal):
        if not value.is_finite():
            raise _refuse(value, "An amount must be a finite number")
        if -value.as_tuple().exponent > digits:  # type: ignore[operator]
            raise _refuse(value, f"{currency} amounts have at most {digits} decimals")
        if value.adjusted() > 30:
            # Far beyond MAX_MINOR; scaleb would overflow the decimal context (1E+999999).
            raise _refuse(value, "The amount is too large")
        minor = int(value.scaleb(digits))
    elif isinstance(value, str):
        if not _DECIMAL.fullmatch(value):
            raise _refuse(value, "An amount must look like 160 or 160.50")
        whole, _, fraction = value.lstrip("-").partition(".")
        if len(whole.lstrip("0")) > 30:
            # Far beyond MAX_MINOR, and past Python's limit on digits int() reads.
            raise _refuse(value[:40] + ("…" if len(value) > 40 else ""),
                          "The amount is too large")
        if len(fraction) > digits:
            raise _refuse(value, f"{currency} amounts have at most {digits} decimals")
        minor = int(whole) * 10**digits + int(fraction.ljust(digits, "0") or 0)
        if value.startswith("-"):
            minor = -minor
    else:
        raise _refuse(value, "An amount must be a decimal string or an integer")
    if abs(minor) > MAX_MINOR:
        raise _refuse(value, "The amount is too large")
    return minor


def format_minor(amount: int, currency: str) -> str:
    """``16050`` in EUR -> ``"160.50"``; ``-5`` -> ``"-0.05"``."""
    digits = minor_digits(currency)
    sign = "-" if amount < 0 else ""
    whole, fraction = divmod(abs(amount), 10**digits)
    return f"{sign}{whole}.{fraction:0{digits}d}" if digits else f"{sign}{whole}"


# --- amounts as people write them: the console, in the casino's locale ------------------------
#
# The API, CSV files and report data speak the machine's "12379.50" (above). A person at the
# table reads and types the casino's own writing (settings.CASINO_LOCALE, through Django's
# format files): "12.379,50" in German or Dutch, "12,379.50" in English. The rule that keeps
# "7.50" from ever becoming 750 (docs/rules.md, "Amounts on the screens"):
#
# - the locale's decimal separator is the only decimal mark ("7,50" in de, "7.50" in en);
# - its thousands separator is allowed only between groups of exactly three digits after a
#   first group of one to three ("1.000", "12.379,50"), and never after the decimal mark;
# - anything else is refused in words, the decimal separator named with an example: "7.50"
#   in a decimal-comma casino is refused, not read as 7.50 nor as 750;
# - where the currency has three decimals, "1.000" could be one or a thousand: refused too.

GROUP = 3  # digits between two thousands separators, as every locale the floor uses


def amount_separators() -> tuple[str, str]:
    """The casino's (decimal separator, thousands separator), e.g. ``(",", ".")`` in de."""
    from django.conf import settings
    from django.utils.formats import get_format

    lang = settings.CASINO_LOCALE
    return (str(get_format("DECIMAL_SEPARATOR", lang=lang)),
            str(get_format("THOUSAND_SEPARATOR", lang=lang)))


def _shown_separator(sep: str) -> str:
    return "a space" if sep.isspace() else {",": "a comma", ".": "a point"}.get(sep, f"“{sep}”")


def amount_show(amount: int, currency: str, *, grouped: bool = True) -> str:
    """``1237950`` in EUR -> ``"12,379.50"`` (en) or ``"12.379,50"`` (de, nl): the figure as
    the casino writes it, for screens only. ``grouped=False`` leaves out the thousands
    separators (the value put back in a field to edit)."""
    return _written(format_minor(amount, currency), grouped=grouped)


def decimal_show(value: Decimal) -> str:
    """A figure already in the unit (a report's ``Decimal("12379.50")``, a ratio's
    ``Decimal("0.1094")``) as the casino writes it: ``"12,379.50"`` (en), ``"12.379,50"``
    (de, nl), its decimals as they are."""
    return _written(format(value, "f"))


def _written(machine: str, *, grouped: bool = True) -> str:
    # "-12379.50" -> the locale's separators, the whole part grouped by thousands.
    decimal_sep, group_sep = amount_separators()
    sign = "-" if machine.startswith("-") else ""
    whole, _, fraction = machine.lstrip("-").partition(".")
    if grouped:
        head = len(whole) % GROUP or GROUP
        parts = [whole[:head]] + [whole[i:i + GROUP] for i in range(head, len(whole), GROUP)]
        whole = group_sep.join(parts)
    return f"{sign}{whole}{decimal_sep}{fraction}" if fraction else f"{sign}{whole}"


def amount_example(currency: str) -> str:
    """How an amount is typed here: ``"7,50"`` in de, ``"7.50"`` in en."""
    return amount_show(750, currency)


def amount_read(text: str, currency: str) -> int:
    """What a person typed, in the casino's writing, -> minor units: ``"7,50"`` in de -> 750;
    ``"1.000,50"`` -> 100050; ``"7.50"`` in de -> refused in words (the rule above).

    Spaces around the figure are ignored; a sign is refused (a person never types a negative
    amount); the currency's decimals and the ceiling are to_minor's, the one conversion."""
    digits = minor_digits(currency)
    decimal_sep, group_sep = amount_separators()
    typed = text.strip()
    if not typed:
        raise ValidationFailed("Type an amount.", code="invalid_amount", detail={"value": text})
    # A locale that groups with a (non-breaking) space also takes a plain one as typed.
    groups = [re.escape(group_sep)] + ([" ", "\u00a0", "\u202f"] if group_sep.isspace() else [])
    group = "(?:" + "|".join(groups) + ")"
    shape = re.compile(rf"([0-9]{{1,{GROUP}}}(?:{group}[0-9]{{{GROUP}}})+|[0-9]+)"
                       rf"(?:{re.escape(decimal_sep)}([0-9]+))?")
    found = shape.fullmatch(typed)
    if found is None:
        raise ValidationFailed(
            f"“{text.strip()}” is not an amount as this casino writes them: the decimals come "
            f"after {_shown_separator(decimal_sep)}, as in {amount_show(750, currency)}; "
            f"{_shown_separator(group_sep)} only separates thousands, as in "
            f"{amount_show(100050, currency)}.",
            code="invalid_amount", detail={"value": text})
    whole, fraction = found.group(1), found.group(2) or ""
    grouped = not whole.isdigit()
    if grouped and not fraction and digits == GROUP and group_sep in ".,":
        raise ValidationFailed(
            f"“{typed}” could be read two ways in {currency}: write the decimals after "
            f"{_shown_separator(decimal_sep)}, as in {amount_show(10**digits, currency)}.",
            code="invalid_amount", detail={"value": text})
    if len(fraction) > digits:
        raise ValidationFailed(
            f"{currency} amounts have at most {digits} decimals (got “{typed}”).",
            code="invalid_amount", detail={"value": text})
    plain = "".join(c for c in whole if c.isdigit()).lstrip("0") or "0"
    return to_minor(f"{plain}.{fraction}" if fraction else plain, currency)
