"""The ledger's API shapes. Amounts leave as decimal strings in the currency's unit."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.shared.money import format_minor
from ledger.models import Account, Entry, Hold, Line
from ledger.selectors import Balance


class BalanceOutput(serializers.Serializer):
    posted = serializers.CharField()
    held = serializers.CharField()
    available = serializers.CharField()
    currency = serializers.CharField()


def balance_data(balance: Balance) -> dict[str, str]:
    cur = balance.currency
    return {"posted": format_minor(balance.posted, cur), "held": format_minor(balance.held, cur),
            "available": format_minor(balance.available, cur), "currency": cur}


class AccountOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    currency = serializers.CharField()
    ref = serializers.CharField()
    name = serializers.CharField()
    allow_negative = serializers.BooleanField()
    balance = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    @extend_schema_field(BalanceOutput)
    def get_balance(self, account: Account) -> dict[str, str]:
        return balance_data(Balance(posted=account.posted, held=account.held,
                                    currency=account.currency))


class LineOutput(serializers.Serializer):
    account = serializers.IntegerField(source="account_id")
    account_kind = serializers.CharField(source="account.kind")
    account_ref = serializers.CharField(source="account.ref")
    amount = serializers.SerializerMethodField(help_text="Signed change to the account's "
                                               "balance: positive credits, negative debits.")
    currency = serializers.CharField(source="account.currency")

    def get_amount(self, line: Line) -> str:
        return format_minor(line.amount, line.account.currency)


class EntryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    memo = serializers.CharField()
    ref = serializers.CharField()
    created_at = serializers.DateTimeField()
    created_by = serializers.SerializerMethodField()
    reverses = serializers.IntegerField(source="reverses_id", allow_null=True)
    reversed_by = serializers.SerializerMethodField()
    reason = serializers.CharField()
    lines = LineOutput(many=True)
    block = serializers.IntegerField(
        allow_null=True, help_text="the sealed block of the ledger's chain that holds it; null "
                                   "for a moment after posting, until the sealer has run")
    # Entries chained one at a time before blocks carry their own hashes; later ones are
    # hashed in their block (docs/ledger.md).
    prev_hash = serializers.CharField(allow_null=True)
    hash = serializers.CharField(allow_null=True)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_created_by(self, entry: Entry) -> str | None:
        return entry.created_by.get_username() if entry.created_by is not None else None

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_reversed_by(self, entry: Entry) -> int | None:
        reversal: Any = getattr(entry, "reversed_by", None)
        return reversal.pk if reversal is not None else None


class ReverseInput(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class HoldOutput(serializers.Serializer):
    id = serializers.IntegerField()
    account = serializers.IntegerField(source="account_id")
    amount = serializers.SerializerMethodField()
    captured_amount = serializers.SerializerMethodField()
    status = serializers.CharField()
    ref = serializers.CharField()
    memo = serializers.CharField()
    created_at = serializers.DateTimeField()
    resolved_at = serializers.DateTimeField(allow_null=True)
    entry = serializers.IntegerField(source="entry_id", allow_null=True)

    def get_amount(self, hold: Hold) -> str:
        return format_minor(hold.amount, hold.account.currency)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_captured_amount(self, hold: Hold) -> str | None:
        if hold.captured_amount is None:
            return None
        return format_minor(hold.captured_amount, hold.account.currency)


# --- filters (query strings) --------------------------------------------------------------

class AccountFilters(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Account.Kind.choices, required=False)
    currency = serializers.CharField(max_length=3, required=False)
    ref = serializers.CharField(max_length=100, required=False)


class EntryFilters(serializers.Serializer):
    account = serializers.IntegerField(required=False, min_value=1)
    ref = serializers.CharField(max_length=100, required=False)
    round = serializers.IntegerField(required=False, min_value=1,
                                     help_text='Shorthand for ref "round:<id>".')
    kind = serializers.CharField(max_length=40, required=False)
    created_after = serializers.DateTimeField(required=False, help_text="Inclusive.")
    created_before = serializers.DateTimeField(required=False, help_text="Exclusive.")


class HoldFilters(serializers.Serializer):
    account = serializers.IntegerField(required=False, min_value=1)
    status = serializers.ChoiceField(choices=Hold.Status.choices, required=False)
    ref = serializers.CharField(max_length=100, required=False)
