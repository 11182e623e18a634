from decimal import Decimal

import pytest

from casino.shared.errors import ValidationFailed
from casino.shared.money import format_minor, to_minor


@pytest.mark.parametrize(("value", "minor"), [
    ("160.00", 16000), ("160.5", 16050), ("160", 16000), (160, 16000), ("0.01", 1),
    (Decimal("12.34"), 1234), (Decimal("7"), 700), ("-5.25", -525), ("0", 0),
])
def test_decimal_strings_integers_and_decimals_become_minor_units(value, minor):
    assert to_minor(value, "EUR") == minor


@pytest.mark.parametrize("value", [
    160.0, 0.1, True, "1.001", "1e3", "NaN", "Infinity", " 1.00", "1.00 ", "+1", "01.00",
    "1.", ".5", "", "1,00", Decimal("1.001"), Decimal("NaN"), None, [1], "10000000000000.01",
    "\u0663", "1.\u0665\u0660",  # digits of other scripts, which int() would accept
])
def test_anything_imprecise_or_ambiguous_is_refused(value):
    with pytest.raises(ValidationFailed) as refused:
        to_minor(value, "EUR")
    assert refused.value.code == "invalid_amount"


def test_an_unknown_currency_is_refused_rather_than_guessed():
    with pytest.raises(ValidationFailed) as refused:
        to_minor("1.00", "XYZ")
    assert refused.value.code == "invalid_currency"


@pytest.mark.parametrize(("minor", "text"), [
    (16000, "160.00"), (16050, "160.50"), (1, "0.01"), (0, "0.00"), (-525, "-5.25"), (-5, "-0.05"),
])
def test_minor_units_are_shown_with_the_currencys_two_decimals(minor, text):
    assert format_minor(minor, "EUR") == text
    assert to_minor(text, "EUR") == minor


def test_a_decimal_with_a_huge_exponent_is_refused_not_overflowed():
    for value in (Decimal("1E+999999"), Decimal("1e999999999"), Decimal("-9E+40")):
        with pytest.raises(ValidationFailed):
            to_minor(value, "EUR")
