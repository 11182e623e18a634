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
