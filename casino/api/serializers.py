"""Plain input and output classes of the players, the cage and the tokens API.

Amounts come in and leave as decimal strings in the player's currency (``"160.00"``).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino import selectors
from casino.models import Currency, IdDocument, Player
from casino.shared.api.fields import AmountField
from ledger.api.serializers import BalanceOutput, balance_data


class PlayerInput(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    currency = serializers.ChoiceField(choices=Currency.choices, default=Currency.EUR)
    # The identity the cage records (casino.services.player_identity_check): all three of
    # date of birth, document kind and number, or none.
    date_of_birth = serializers.DateField(required=False, allow_null=True, default=None,
                                          help_text="YYYY-MM-DD; the player must be of age "
                                                    "(CASINO_MIN_PLAYER_AGE, 18 by default).")
    id_document_kind = serializers.ChoiceField(choices=IdDocument.choices, required=False,
                                               allow_blank=True, default="")
    id_document_number = serializers.CharField(max_length=40, required=False,
                                               allow_blank=True, default="",
                                               help_text="5 to 20 letters and digits; "
                                                         "spaces and dashes are dropped.")
    photo_ref = serializers.CharField(max_length=200, required=False, allow_blank=True,
                                      default="", help_text="Where the cage keeps the photo.")
    kind = serializers.ChoiceField(
        choices=Player.Kind.choices, default=Player.Kind.PLAYER,
        help_text='"proposition": a third-party proposition player, a licensed business that '
                  'banks card-room rounds and never takes a seat.')
    licence = serializers.CharField(max_length=60, required=False, allow_blank=True,
                                    default="",
                                    help_text="A proposition player's state licence "
                                              "(required for one, none for a player).")


class NamesakeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    date_of_birth = serializers.DateField(allow_null=True)


class PlayerOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    currency = serializers.CharField()
    date_of_birth = serializers.DateField(allow_null=True)
    id_document_kind = serializers.CharField()
    id_document_number = serializers.CharField()
    photo_ref = serializers.CharField()
    kind = serializers.CharField()
    licence = serializers.CharField()
    created_at = serializers.DateTimeField()
    balance = serializers.SerializerMethodField()

    @extend_schema_field(BalanceOutput)
    def get_balance(self, player: Player) -> dict[str, str]:
        return balance_data(selectors.player_balance(player))


class PlayerSearch(serializers.Serializer):
    search = serializers.CharField(required=False, allow_blank=True, default="",
                                   help_text="Part of the name, or the exact id.")


class CashInput(serializers.Serializer):
    amount = AmountField(positive=True,
                         help_text='A decimal string in the player\'s currency, e.g. '
                                   '"160.00" (an integer is accepted).')
    reference = serializers.CharField(max_length=200, required=False, allow_blank=True,
                                      default="", help_text="The cage's slip or receipt.")


class CorrectionInput(serializers.Serializer):
    entry = serializers.IntegerField(min_value=1, help_text="The deposit or withdrawal.")
    reason = serializers.CharField(max_length=2000)


class LoginInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class TokenOutput(serializers.Serializer):
    token = serializers.CharField()
    expiry = serializers.DateTimeField(allow_null=True)


class Health(serializers.Serializer):
    status = serializers.CharField()
    database = serializers.CharField()
    version = serializers.CharField()


# The same fields, answered with 503 when the database cannot answer; a schema of its own.
class HealthDown(Health):
    pass


class PlayerCreatedOutput(PlayerOutput):
    namesakes = NamesakeOutput(many=True, help_text=(
        "Other players already registered under the same name (case aside): registered all "
        "the same, the caller checks this is a different person."))
