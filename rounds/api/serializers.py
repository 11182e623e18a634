"""Plain input and output classes of the tables and rounds API.

Amounts leave as decimal strings in the table's currency (``"160.00"``); the currency is
put in the serializer context by the view, since every amount of a round or a table is in
that one currency. Cards leave as lists of codes (``["AS", "KD"]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.models import Currency
from casino.shared.api.fields import AmountField, CardsField, GamingDayField
from casino.shared.api.serializers import FieldsOnceOut, TimeOut
from casino.shared.errors import ValidationFailed
from casino.shared.money import format_minor, to_minor
from ledger.api.serializers import BalanceOutput
from rounds import paigow
from rounds.models import POSITIONS, Round, Table
from rounds.round_view import PositionView, RoundView
from rounds.settlement import Outcome


def MoneyOut(**kwargs: Any) -> AmountField:  # called like the field classes beside it
    """An amount in minor units, rendered as a decimal string in the context's currency:
    the API's one amount field, read-only."""
    return AmountField(read_only=True, **kwargs)


# --- tables ---------------------------------------------------------------------------------

@extend_schema_field({"type": "array", "items": {"type": "object", "properties": {
    "up_to": {"type": "string", "nullable": True, "example": "100.00"},
    "fee": {"type": "string", "example": "1.00"}}, "required": ["up_to", "fee"]},
    "example": [{"up_to": "100.00", "fee": "1.00"}, {"up_to": "500.00", "fee": "3.00"},
                {"up_to": None, "fee": "5.00"}]})
class FeeBandsField(serializers.Field):
    """The bank's collection fee bands (card room) as money strings, the last ``up_to``
    null; kept in minor units (rounds.models.Table.collection_banker). Whether they make a
    schedule (rising, the last open) is the service's check."""

    # (DRF formats the message: the braces are doubled)
    default_error_messages = {"shape": 'Bands are a list of {{"up_to": "100.00" or null, '
                                       '"fee": "1.00"}}.'}

    def _currency(self) -> str:
        return str(self.context.get("currency") or Currency.EUR)

    def to_internal_value(self, data: Any) -> list[dict[str, int | None]]:
        if not isinstance(data, list) or not all(
                isinstance(b, dict) and set(b) == {"up_to", "fee"} for b in data):
            self.fail("shape")
        currency = self._currency()
        try:
            return [{"up_to": None if b["up_to"] is None else to_minor(b["up_to"], currency),
                     "fee": to_minor(b["fee"], currency)} for b in data]
        except ValidationFailed as exc:
            raise serializers.ValidationError(exc.message, code=exc.code) from None

    def to_representation(self, value: Any) -> list[dict[str, str | None]]:
        return fee_bands_data(value, self._currency())


def fee_bands_data(bands: Any, currency: str) -> list[dict[str, str | None]]:
    """Fee bands as kept (minor units) -> as the API shows them (money strings)."""
    return [{"up_to": None if b["up_to"] is None else format_minor(b["up_to"], currency),
             "fee": format_minor(b["fee"], currency)} for b in bands]


class SeatOut(FieldsOnceOut):
    number = serializers.IntegerField()
    player = serializers.IntegerField(source="player_id", allow_null=True)
    player_name = serializers.CharField(source="player.name", allow_null=True, default=None)
    since = TimeOut(allow_null=True)


class SeatedPlayerOut(FieldsOnceOut):
    seat = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    balance = BalanceOutput()


class TableOut(FieldsOnceOut):
    id = serializers.IntegerField()
    name = serializers.CharField()
    currency = serializers.CharField()
    is_open = serializers.BooleanField()
    self_service = serializers.BooleanField(
        help_text="Players play their own games here against the house (/api/v1/me/games).")
    min_bet = MoneyOut()
    max_bet = MoneyOut()
    commission_rate = serializers.DecimalField(max_digits=5, decimal_places=4)
    commission_rounding = serializers.CharField()
    wheel = serializers.CharField()
    house_way = serializers.CharField()
    bank_rotation = serializers.CharField()
    banker_must_have_played = serializers.BooleanField()
    house_stake_cap = serializers.CharField()
    foul_policy = serializers.CharField()
    co_banking = serializers.BooleanField()
    first_stack = serializers.CharField()
    deal_modes = serializers.ListField(
        child=serializers.ChoiceField(choices=Table.DealMode.choices),
        help_text="How this table's rounds may be dealt.")
    bank_mode = serializers.CharField()
    collection_banker = FeeBandsField(read_only=True)
    collection_player = MoneyOut()
    max_consecutive_banks = serializers.IntegerField()
    rotation_minutes = serializers.IntegerField(allow_null=True)
    seats = SeatOut(many=True)
    created_at = TimeOut()


class TableIn(serializers.Serializer):
    """Every field optional on PATCH; on POST only ``name`` is required."""

    name = serializers.CharField(max_length=100)
    currency = serializers.ChoiceField(choices=Currency.choices, default=Currency.EUR)
    is_open = serializers.BooleanField(required=False)
    self_service = serializers.BooleanField(
        required=False,
        help_text="A self-service table: each player plays their own game against the house, "
                  "dealt electronically from a committed seed (docs/fairness.md); house-banked "
                  "and electronic only. Default: false.")
    min_bet = AmountField(required=False)
    max_bet = AmountField(required=False)
    commission_rate = serializers.DecimalField(max_digits=5, decimal_places=4,
                                               min_value=Decimal(0), max_value=Decimal("0.9999"),
                                               required=False)
    commission_rounding = serializers.ChoiceField(
        choices=Table.CommissionRounding.choices, required=False)
    wheel = serializers.ChoiceField(choices=Table.Wheel.choices, required=False)
    house_way = serializers.ChoiceField(choices=sorted(paigow.HOUSE_WAYS), required=False)
    bank_rotation = serializers.ChoiceField(choices=Table.BankRotation.choices, required=False)
    banker_must_have_played = serializers.BooleanField(required=False)
    house_stake_cap = serializers.ChoiceField(choices=Table.HouseStakeCap.choices,
                                              required=False)
    foul_policy = serializers.ChoiceField(choices=Table.FoulPolicy.choices, required=False)
    co_banking = serializers.BooleanField(required=False)
    first_stack = serializers.ChoiceField(choices=Table.FirstStack.choices, required=False)
    deal_modes = serializers.ListField(
        child=serializers.ChoiceField(choices=Table.DealMode.choices), min_length=1,
        max_length=len(Table.DealMode.values), required=False,
        help_text='How the table deals: "electronic", "physical" (the dealer records the '
                  'cards), "results" (the dealer records the outcomes). Default: electronic '
                  'and physical.')
    bank_mode = serializers.ChoiceField(
        choices=Table.BankMode.choices, required=False,
        help_text='"casino" (default) or "card_room": the house neither banks nor stakes; '
                  'player-dealers and proposition players bank and pay collection fees.')
    collection_banker = FeeBandsField(required=False)
    collection_player = AmountField(required=False,
                                    help_text="Card room: each wager's fee (0.00 allowed).")
    max_consecutive_banks = serializers.IntegerField(min_value=1, max_value=100,
                                                     required=False)
    rotation_minutes = serializers.IntegerField(min_value=1, max_value=24 * 60,
                                                allow_null=True, required=False)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        # The limits are in the table's currency: the table's own when it changes (the view
        # puts it in the context), the one sent (or the default) when it opens.
        if "currency" not in self.context and isinstance(data, Mapping):
            currency = data.get("currency", Currency.EUR)
            if currency in Currency.values:  # otherwise the currency field says why
                self.context["currency"] = currency
        return super().to_internal_value(data)


class SeatIn(serializers.Serializer):
    player = serializers.IntegerField(min_value=1)


# --- rounds ---------------------------------------------------------------------------------

class WagerOut(FieldsOnceOut):
    seat = serializers.IntegerField()
    player = serializers.IntegerField(source="player_id")
    amount = MoneyOut()
    state = serializers.CharField()
    hold = serializers.IntegerField(source="hold_id")
    placed_at = TimeOut()


@extend_schema_field({"type": "array", "items": {"type": "string"}, "nullable": True,
                      "description": "null while game protection hides the cards"})
class ShownCardsOut(serializers.Field):
    """A hand's cards as the round's reader lets the caller see them: codes, or null."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, value: tuple[str, ...] | None) -> list[str] | None:
        return None if value is None else list(value)


class HandOut(FieldsOnceOut):
    position = serializers.CharField()
    cards = ShownCardsOut()
    high = ShownCardsOut()
    low = ShownCardsOut()
    set_by = serializers.CharField()


class PartyOut(FieldsOnceOut):
    """One party's figures as the settlement stored them; ``result`` is what its account
    moved."""

    role = serializers.CharField()
    position = serializers.CharField()
    player = serializers.IntegerField(source="player_id", allow_null=True)
    account = serializers.IntegerField(source="account_id", allow_null=True)
    wager = MoneyOut()
    covered = MoneyOut()
    won = MoneyOut()
    paid = MoneyOut()
    net = MoneyOut()
    commission = MoneyOut()
    fee = MoneyOut()
    result = MoneyOut()


class PositionResultOut(FieldsOnceOut):
    position = serializers.CharField()
    wager = MoneyOut(source="party.wager")
    outcome = serializers.CharField()
    high = serializers.CharField()
    low = serializers.CharField()
    amount = MoneyOut(source="party.net", help_text="Won (+) or lost (-) before commission.")
    commission = MoneyOut(source="party.commission")
    net = MoneyOut(source="party.result")


class CardRoomPositionOut(PositionResultOut):
    """A position of a card-room round: also who covered its wager and its fee; ``net`` is
    the amount less commission and fee."""

    fee = MoneyOut(source="party.fee",
                   help_text="The wager's collection fee (none when it got no action).")
    cover = serializers.SerializerMethodField(
        help_text="Who covered the wager; the uncovered part got no action and was returned.")

    @extend_schema_field({"type": "object", "nullable": True, "properties": {
        "player_dealer": {"type": "string"}, "third_party": {"type": "string"},
        "uncovered": {"type": "string"}}})
    def get_cover(self, line: PositionView) -> dict[str, str] | None:
        if line.cover is None:
            return None
        cur = self.context["currency"]
        return {"player_dealer": format_minor(line.cover.player_dealer, cur),
                "third_party": format_minor(line.cover.third_party, cur),
                "uncovered": format_minor(line.uncovered, cur)}


class EventOut(FieldsOnceOut):
    kind = serializers.CharField()
    at = TimeOut()
    by = serializers.CharField()
    # The metaclass pops declared fields off the class, so Serializer.data stays the property.
    data = serializers.JSONField()  # type: ignore[assignment]


class PendingApprovalOut(FieldsOnceOut):
    id = serializers.IntegerField()
    action = serializers.CharField()
    summary = serializers.CharField()
    requested_by = serializers.CharField(help_text="The username of the person who asked.")
    requested_at = TimeOut()


class RoundOut(FieldsOnceOut):
    """A round as rounds.round_view.round_for lets the caller see it: game protection is
    the reader's, nothing here hides or works out a figure."""

    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    number = serializers.IntegerField()
    state = serializers.CharField()
    gaming_day = serializers.DateField()
    currency = serializers.CharField()
    rules = serializers.SerializerMethodField(
        help_text="The table's settings when the round opened; the limits as decimal strings.")
    banker = serializers.SerializerMethodField()
    house_stake = MoneyOut()
    bank_declined = serializers.SerializerMethodField(
        help_text="The seats that declined the bank this round, in order (rules §7.1).")
    solvency = serializers.SerializerMethodField()
    wagers = WagerOut(many=True)
    deal = serializers.SerializerMethodField()
    hands = HandOut(many=True, help_text="The bank's and the dealer's cards are null until "
                                         "every player's hand is set (rules §4.1).")
    settlement = serializers.SerializerMethodField()
    events = EventOut(many=True)
    opened_by = serializers.CharField()
    opened_at = TimeOut()
    dealer = serializers.CharField(
        help_text="Who dealt the round: the dealer signed in at the table when it opened, "
                  "else whoever opened it.")
    settled_at = TimeOut(allow_null=True)
    closed_reason = serializers.CharField()
    game_of = serializers.CharField(
        help_text="A self-service game's player (docs/rules.md §15); empty at a live table.")
    fairness = serializers.SerializerMethodField(
        help_text="A self-service game's seeds (docs/fairness.md): the server seed null "
                  "until the game is over; null at a live table.")
    pending_approvals = PendingApprovalOut(
        many=True, source="pending",
        help_text="Requests about this round waiting for a second person (a results-only "
                  "settlement, a reversal): the step they wait for is refused "
                  "(409 approval_pending) until one is approved or rejected.")

    def _money(self, value: int | None) -> str | None:
        return None if value is None else format_minor(value, self.context["currency"])

    @extend_schema_field({"type": "object", "nullable": True, "properties": {
        "algorithm": {"type": "string"}, "commitment": {"type": "string"},
        "server_seed": {"type": "string", "nullable": True},
        "client_seed": {"type": "string"}, "round_id": {"type": "integer"}}})
    def get_fairness(self, round_: RoundView) -> dict[str, Any] | None:
        seeds = round_.fairness
        return None if seeds is None else {
            "algorithm": seeds.algorithm, "commitment": seeds.commitment,
            "server_seed": seeds.server_seed, "client_seed": seeds.client_seed,
            "round_id": seeds.round_id}

    @extend_schema_field({"type": "object", "additionalProperties": True})
    def get_rules(self, round_: RoundView) -> dict[str, Any]:
        # Amounts leave the service in the currency's unit, as everywhere else ("2.00").
        shown = {key: format_minor(value, round_.currency)
                 if key in ("min_bet", "max_bet", "collection_player")
                 and isinstance(value, int) else value
                 for key, value in round_.rules.items()}
        if isinstance(shown.get("collection_banker"), list):
            shown["collection_banker"] = fee_bands_data(shown["collection_banker"],
                                                        round_.currency)
        return shown

    @extend_schema_field({"type": "object", "nullable": True, "properties": {
        "house": {"type": "boolean"}, "seat": {"type": "integer", "nullable": True},
        "player": {"type": "integer", "nullable": True},
        "position": {"type": "string"},
        "cover": {"type": "string", "nullable": True,
                  "description": "card room only: the player-dealer's cover, null for all"},
        "third_party": {"type": "integer", "nullable": True,
                        "description": "card room only: the proposition player"}}})
    def get_banker(self, round_: RoundView) -> dict[str, Any] | None:
        if round_.banker_is_house is None:
            return None
        banker = {"house": round_.banker_is_house, "seat": round_.banker_seat,
                  "player": round_.banker_player_id, "position": round_.banker_position}
        if round_.table_rules.card_room:
            # the player-dealer's cover (null: all the action) and the proposition player
            # covering the rest, or banking alone (no seat)
            banker.update(cover=self._money(round_.banker_cover),
                          third_party=round_.third_party_id)
        return banker

    @extend_schema_field({"type": "array", "items": {"type": "object", "properties": {
        "seat": {"type": "integer"}, "player": {"type": "integer"}},
        "required": ["seat", "player"]}})
    def get_bank_declined(self, round_: RoundView) -> list[dict[str, int]]:
        return round_.bank_declined

    @extend_schema_field({"type": "object", "nullable": True, "properties": {
        "required": {"type": "string"}, "available": {"type": "string"},
        "hold": {"type": "integer"}}})
    def get_solvency(self, round_: RoundView) -> dict[str, Any] | None:
        if round_.solvency_required is None:
            return None
        return {"required": self._money(round_.solvency_required),
                "available": self._money(round_.solvency_available),
                "hold": round_.banker_hold_id}

    @extend_schema_field({"type": "object", "nullable": True})
    def get_deal(self, round_: RoundView) -> dict[str, Any] | None:
        if not round_.deal_kind:
            return None
        return {"kind": round_.deal_kind, "dice": round_.dice,
                "dice_total": sum(round_.dice) if round_.dice else None,
                "counted_position": round_.counted_position or None,
                "order": round_.deal_order,
                "burnt": list(round_.burnt) if round_.burnt else None}

    @extend_schema_field({"type": "object", "nullable": True})
    def get_settlement(self, round_: RoundView) -> dict[str, Any] | None:
        settled = round_.settlement
        if settled is None:
            return None
        positions = CardRoomPositionOut if settled.card_room else PositionResultOut
        # "banker" is the seated banker's side (the house's when it banks); a card room's
        # proposition player has its own, "third_party".
        dealer = next((p for p in settled.parties
                       if p.role in ("player_banker", "player_dealer")), None)
        bank = dealer if settled.card_room else settled.bank
        house = settled.house
        answer: dict[str, Any] = {
            "parties": PartyOut(settled.parties, many=True, context=self.context).data,
            "positions": positions(settled.positions, many=True, context=self.context).data,
            "banker": {
                "position": round_.banker_position,
                "net": self._money(bank.net if bank else 0),
                "commission": self._money(bank.commission if bank else 0),
            },
            "house": {
                "stake_result": self._money(house.net if house and house.wager else 0),
                "bank_share_result": self._money(house.net if house and settled.co_banked
                                                 else 0),
                "commission_income": self._money(settled.commission_income),
            },
            "entry": settled.entry_id,
            "reversal_entry": settled.reversal_entry_id,
        }
        if settled.card_room:
            answer["banker"].update(fee=self._money(dealer.fee if dealer else 0),
                                    result=self._money(dealer.result if dealer else 0))
            prop = settled.proposition
            answer["third_party"] = None if prop is None else {
                "player": prop.player_id, "net": self._money(prop.net),
                "commission": self._money(prop.commission), "fee": self._money(prop.fee),
                "result": self._money(prop.result)}
            answer["collection"] = {
                "banker": self._money(settled.collection_banker),
                "players": self._money(settled.collection_players),
                "total": self._money(settled.collection_banker + settled.collection_players),
                "paid_by": {"player_dealer": "player_dealer", "proposition": "third_party"}
                .get(settled.collection_paid_by or ""),
            }
        return answer


class RoundFilterIn(serializers.Serializer):
    state = serializers.ChoiceField(choices=Round.State.choices, required=False)
    gaming_day = GamingDayField(required=False)


# --- round steps (input) ----------------------------------------------------------------------

class WagerIn(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=6)
    amount = AmountField()


class WagerLowerIn(serializers.Serializer):
    amount = AmountField(help_text="The lower amount: from the table minimum to less than "
                                   "the wager")


class SeatOnlyIn(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=6)


class BankerIn(serializers.Serializer):
    house = serializers.BooleanField(required=False, default=False)
    seat = serializers.IntegerField(min_value=1, max_value=6, required=False, allow_null=True)
    house_stake = AmountField(required=False)
    cover = AmountField(positive=True, required=False, allow_null=True,
                        help_text="Card room: the most the player-dealer covers, wagers taken "
                                  "in seat order from their left (omitted: all the action).")
    third_party = serializers.IntegerField(
        min_value=1, required=False, allow_null=True,
        help_text="Card room: the proposition player (a player id) covering the rest, or "
                  "banking alone when no seat is named.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("house") and attrs.get("seat") is None \
                and attrs.get("third_party") is None:
            raise serializers.ValidationError(
                {"seat": ["Name the banker's seat, or send \"house\": true (at a card-room "
                          "table, or \"third_party\": a proposition player)."]})
        return attrs


class DealIn(serializers.Serializer):
    hands = serializers.DictField(child=CardsField(), required=False,
                                  help_text='{"dealer": ["AS", ...7 cards], "1": [...]}')
    results_only = serializers.BooleanField(required=False, default=False)

    def validate_hands(self, hands: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(hands) - set(POSITIONS))
        if unknown:
            raise serializers.ValidationError(
                f"positions are \"dealer\" and \"1\" to \"6\", not {', '.join(unknown)}")
        return hands


class HandIn(serializers.Serializer):
    position = serializers.ChoiceField(choices=POSITIONS)
    high = CardsField(required=False)
    low = CardsField(required=False)
    house_way = serializers.BooleanField(required=False, default=False)
    as_played = serializers.BooleanField(
        required=False, default=False,
        help_text="Record a live table's hand as the player set it: a foul then follows "
                  "the table's foul policy instead of being refused.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("house_way") and ("high" not in attrs or "low" not in attrs):
            raise serializers.ValidationError(
                {"high": ["Give the high and low hands, or send \"house_way\": true."]})
        return attrs


class SettleIn(serializers.Serializer):
    outcomes = serializers.DictField(
        child=serializers.ChoiceField(choices=[o.value for o in Outcome]), required=False,
        help_text='For results-only tables: {"1": "win", "2": "push", "dealer": "loss"}')


class ReasonIn(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)
