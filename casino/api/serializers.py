"""Plain input and output classes of the players, the cage and the tokens API.

Amounts come in and leave as decimal strings in the player's currency (``"160.00"``).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino import cash, selectors
from casino.models import Currency, IdDocument, Player
from casino.shared.api.fields import AmountField
from casino.shared.money import format_minor
from ledger.api.serializers import BalanceOutput, balance_data


class IdDocumentInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=IdDocument.choices)
    number = serializers.CharField(max_length=40, help_text="5 to 20 letters and digits; "
                                                            "spaces and dashes are dropped.")
    country = serializers.CharField(max_length=10, required=False, allow_blank=True,
                                    help_text="The issuing state, ISO 3166 alpha-2 (FR).")


class IdentityInput(serializers.Serializer):
    """The identity the cage records (casino.services.player_identity_check): a date of
    birth and a document together, or neither. ``birth_date`` and ``id_document`` are the
    names to use; ``date_of_birth`` and the flat ``id_document_*`` fields are accepted
    too, as before (giving both names with different values is refused)."""

    birth_date = serializers.DateField(required=False, allow_null=True,
                                       help_text="YYYY-MM-DD; the player must be of age "
                                                 "(CASINO_MIN_PLAYER_AGE, 18 by default).")
    id_document = IdDocumentInput(required=False, allow_null=True)
    nationality = serializers.CharField(max_length=10, required=False, allow_blank=True,
                                        help_text="ISO 3166 alpha-2 (DE); optional.")
    date_of_birth = serializers.DateField(required=False, allow_null=True,
                                          help_text="The same as birth_date.")
    id_document_kind = serializers.ChoiceField(choices=IdDocument.choices, required=False,
                                               allow_blank=True,
                                               help_text="The same as id_document.kind.")
    id_document_number = serializers.CharField(max_length=40, required=False,
                                               allow_blank=True,
                                               help_text="The same as id_document.number.")
    id_document_country = serializers.CharField(max_length=10, required=False,
                                                allow_blank=True,
                                                help_text="The same as id_document.country.")
    photo_ref = serializers.CharField(max_length=200, required=False, allow_blank=True,
                                      help_text="Where the cage keeps the photo.")


class PlayerInput(IdentityInput):
    name = serializers.CharField(max_length=200)
    currency = serializers.ChoiceField(choices=Currency.choices, default=Currency.EUR)
    kind = serializers.ChoiceField(
        choices=Player.Kind.choices, default=Player.Kind.PLAYER,
        help_text='"proposition": a third-party proposition player, a licensed business that '
                  'banks card-room rounds and never takes a seat.')
    licence = serializers.CharField(max_length=60, required=False, allow_blank=True,
                                    default="",
                                    help_text="A proposition player's state licence "
                                              "(required for one, none for a player).")


class PlayerChangeInput(IdentityInput):
    """PATCH: only the fields given change; a name corrects a typo at registration."""

    name = serializers.CharField(max_length=200, required=False)


class NamesakeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    date_of_birth = serializers.DateField(allow_null=True)


class IdDocumentOutput(serializers.Serializer):
    kind = serializers.CharField(source="id_document_kind")
    number = serializers.CharField(source="id_document_number")
    country = serializers.CharField(source="id_document_country")


class PlayerOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    currency = serializers.CharField()
    birth_date = serializers.DateField(source="date_of_birth", allow_null=True)
    id_document = serializers.SerializerMethodField()
    nationality = serializers.CharField()
    identity_on_file = serializers.BooleanField(
        help_text="A date of birth and an identity document are recorded (casino.cash).")
    date_of_birth = serializers.DateField(allow_null=True)
    id_document_kind = serializers.CharField()
    id_document_number = serializers.CharField()
    id_document_country = serializers.CharField()
    photo_ref = serializers.CharField()
    kind = serializers.CharField()
    licence = serializers.CharField()
    created_at = serializers.DateTimeField()
    balance = serializers.SerializerMethodField()
    cash_in = serializers.SerializerMethodField(
        help_text="Cash in of the current gaming day: deposits and table buy-ins, net of "
                  "their corrections.")
    cash_out = serializers.SerializerMethodField(
        help_text="Cash out of the current gaming day: withdrawals, net of corrections.")

    @extend_schema_field(IdDocumentOutput(allow_null=True))
    def get_id_document(self, player: Player) -> dict[str, str] | None:
        if not player.id_document_kind:
            return None
        return dict(IdDocumentOutput(player).data)

    @extend_schema_field(BalanceOutput)
    def get_balance(self, player: Player) -> dict[str, str]:
        return balance_data(selectors.player_balance(player))

    def _day(self, player: Player) -> cash.CashDay:
        # Both figures from one reading of the day.
        days = self.context.setdefault("cash_days", {})
        if player.pk not in days:
            days[player.pk] = cash.cash_day(player=player)
        return days[player.pk]

    def get_cash_in(self, player: Player) -> str:
        # A list's players come annotated (casino.cash.with_cash_today): no query per row.
        figure = getattr(player, "cash_in_today", None)
        if figure is None:
            figure = self._day(player).cash_in
        return format_minor(figure, player.currency)

    def get_cash_out(self, player: Player) -> str:
        figure = getattr(player, "cash_out_today", None)
        if figure is None:
            figure = self._day(player).cash_out
        return format_minor(figure, player.currency)


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


class PlayerLoginInput(LoginInput):
    """The login the cage gives a player (casino.player_logins): the same username again
    resets the password."""


class PlayerLoginOutput(serializers.Serializer):
    player = serializers.IntegerField()
    username = serializers.CharField()
