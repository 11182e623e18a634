"""Amounts on the screens, in the casino's writing (settings.CASINO_LOCALE): read and shown
by casino.shared.money.amount_read / amount_show, the rule of docs/rules.md ("Amounts on
the screens"). The API keeps the machine's "7.50" (tests/test_api_contract.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import override_settings

from casino.shared.errors import ValidationFailed
from casino.shared.forms import AmountField, CurrencyForm
from casino.shared.money import MINOR_DIGITS, amount_read, amount_show
from casino.shared.templatetags.money import money_said, money_text

DE = override_settings(CASINO_LOCALE="de")
EN = override_settings(CASINO_LOCALE="en")


@DE
@pytest.mark.parametrize(("typed", "minor"), [
    ("7,50", 750), ("7,5", 750), ("7", 700), (" 7,50 ", 750), ("1.000", 100_000),
    ("1.000,50", 100_050), ("12.379,50", 1_237_950), ("1.000.000", 100_000_000),
    ("1000,50", 100_050), ("0,05", 5), ("007", 700),
])
def test_a_decimal_comma_casino_reads_the_comma_as_the_decimal_mark(typed, minor):
    assert amount_read(typed, "EUR") == minor


@DE
@pytest.mark.parametrize("typed", [
    "7.50",       # the machine's writing: never 750, and not guessed as 7,50 either
    "7.5", "1.00", "1.0000", "10.00,50", "1.000.00", "12.3456", ",50", "7,", "7,50,1",
    "-7,50", "+7", "7 50", "1e3", "7,50 EUR", "\u0667,\u0665\u0660", "",  # Arabic-Indic digits
])
def test_a_decimal_comma_casino_refuses_what_it_cannot_read_one_way(typed):
    with pytest.raises(ValidationFailed):
        amount_read(typed, "EUR")


@DE
def test_the_refusal_says_how_amounts_are_written_here():
    with pytest.raises(ValidationFailed) as refused:
        amount_read("7.50", "EUR")
    assert "7,50" in refused.value.message and "1.000,50" in refused.value.message
    assert "comma" in refused.value.message


@DE
def test_more_decimals_than_the_currency_has_are_refused():
    with pytest.raises(ValidationFailed, match="at most 2 decimals"):
        amount_read("7,505", "EUR")


@DE
def test_where_a_currency_has_three_decimals_a_grouped_thousand_is_ambiguous(monkeypatch):
    monkeypatch.setitem(MINOR_DIGITS, "KWD", 3)
    with pytest.raises(ValidationFailed, match="two ways"):
        amount_read("1.000", "KWD")
    assert amount_read("1.000,000", "KWD") == 1_000_000
    assert amount_read("1,5", "KWD") == 1_500


@EN
@pytest.mark.parametrize(("typed", "minor"), [
    ("7.50", 750), ("1,000", 100_000), ("12,379.50", 1_237_950), ("1000.5", 100_050),
])
def test_an_english_casino_reads_the_point_as_the_decimal_mark(typed, minor):
    assert amount_read(typed, "EUR") == minor


@EN
@pytest.mark.parametrize("typed", ["7,50", "1,00", "12,3456.50", "1.000,50"])
def test_an_english_casino_refuses_a_decimal_comma(typed):
    with pytest.raises(ValidationFailed):
        amount_read(typed, "EUR")


@override_settings(CASINO_LOCALE="fr")
def test_a_casino_that_groups_with_a_space_takes_a_typed_plain_space():
    assert amount_read("12 379,50", "EUR") == 1_237_950
    assert amount_read("12\u00a0379,50", "EUR") == 1_237_950
    assert amount_show(1_237_950, "EUR") == "12\u00a0379,50"


@pytest.mark.parametrize(("locale", "shown"), [
    ("en", "12,379.50 EUR"), ("de", "12.379,50 EUR"), ("nl", "12.379,50 EUR"),
])
def test_money_is_shown_with_thousands_separators_in_the_unit(locale, shown):
    with override_settings(CASINO_LOCALE=locale):
        assert money_text(1_237_950, "EUR") == shown
        assert money_said("12379.50", "EUR") == shown
        assert money_text(-5, "EUR") == ("-0.05 EUR" if locale == "en" else "-0,05 EUR")
        assert money_text(75_000, "EUR").startswith("750")  # no separator under a thousand


@DE
def test_every_amount_shown_reads_back_as_the_same_amount():
    for minor in (0, 5, 750, 100_000, 100_050, 123_456_789, 10**15):
        assert amount_read(amount_show(minor, "EUR"), "EUR") == minor
        assert amount_read(amount_show(minor, "EUR", grouped=False), "EUR") == minor


class _Form(CurrencyForm):
    amount = AmountField()
    stake = AmountField(required=False, positive=False)


@DE
def test_the_amount_field_cleans_to_minor_units_in_the_forms_currency():
    form = _Form({"amount": "7,50", "stake": ""}, currency="EUR")
    assert form.is_valid(), form.errors
    assert form.cleaned_data == {"amount": 750, "stake": None}
    field = form.fields["amount"]
    assert isinstance(field, AmountField) and field.currency == "EUR"


@DE
def test_the_amount_field_refuses_in_words_and_refuses_zero():
    form = _Form({"amount": "7.50"}, currency="EUR")
    assert not form.is_valid()
    assert "7,50" in form.errors["amount"][0]
    form = _Form({"amount": "0"}, currency="EUR")
    assert not form.is_valid()
    assert form.errors["amount"] == ["The amount must be more than zero."]


@DE
def test_the_amount_field_shows_an_initial_amount_as_it_is_typed_here():
    form = _Form(initial={"amount": 123_450}, currency="EUR")
    assert 'value="1234,50"' in str(form["amount"])


@DE
def test_the_table_limits_are_typed_and_shown_in_the_casinos_writing():
    from rounds.models import Table
    from rounds.screens.forms import TableSettingsForm

    table = Table(name="T1", currency="EUR", min_bet=200, max_bet=1_000_000)
    shown = TableSettingsForm(instance=table)
    assert 'value="2,00"' in str(shown["min_bet"])
    assert 'value="10000,00"' in str(shown["max_bet"])

    data = {name: shown[name].value() for name in shown.fields}
    data.update({"min_bet": "2,50", "max_bet": "12.500", "is_open": "on"})
    data = {k: v for k, v in data.items() if v is not None}
    sent = TableSettingsForm(data, instance=table)
    assert sent.is_valid(), sent.errors
    assert sent.changes()["min_bet"] == 250 and sent.changes()["max_bet"] == 1_250_000


@DE
def test_a_reports_figure_is_written_for_a_person_as_the_casino_writes_figures():
    from reports.files.readable import shown
    assert shown(Decimal("12379.50")) == "12.379,50"
    assert shown(Decimal("-1000.00")) == "-1.000,00"
    assert shown(Decimal("0.1094")) == "0,1094"
    assert shown(1234) == "1234"   # a count or a number (a player's #) is not a sum


@EN
def test_a_reports_figure_in_the_default_locale():
    from reports.files.readable import shown
    assert shown(Decimal("12379.50")) == "12,379.50"
    assert shown(Decimal("999.99")) == "999.99"
