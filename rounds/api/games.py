"""The player's own games over HTTP (/api/v1/me/tables, /api/v1/me/games...): parse, call one
service (rounds.services.games), answer with the game as its player may see it (rounds.games,
the one reader). A player's login only (PlayerApiView): the token, or the game screen's
session."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from casino.shared.api.examples import example
from casino.shared.api.fields import AmountField, CardsField
from casino.shared.api.parse import parse
from casino.shared.api.permissions import acting_user
from casino.shared.api.serializers import ErrorOutput, FieldsOnceOut, TimeOut
from casino.shared.api.views import PlayerApiView
from casino.shared.money import minor_digits
from ledger.api.serializers import BalanceOutput, balance_data
from rounds import games as reader
from rounds.services import games

# The German seed's chips, in units of the table's currency: 1, 5, 10, 25 and 100.
CHIP_UNITS = (1, 5, 10, 25, 100)


def chips_of(currency: str) -> list[int]:
    """The chips in minor units of ``currency``."""
    return [units * 10 ** minor_digits(currency) for units in CHIP_UNITS]


# --- the answers ------------------------------------------------------------------------------

class GameTableOut(FieldsOnceOut):
    id = serializers.IntegerField()
    name = serializers.CharField()
    currency = serializers.CharField()
    min_bet = AmountField(read_only=True)
    max_bet = AmountField(read_only=True)
    chips = serializers.ListField(child=AmountField(read_only=True),
                                  help_text="The chips on the felt: 1, 5, 10, 25 and 100 in the "
                                            "table's currency.")


class GameSettingOut(FieldsOnceOut):
    high = serializers.ListField(child=serializers.CharField())
    low = serializers.ListField(child=serializers.CharField())


class GameHandOut(GameSettingOut):
    set_by = serializers.CharField(help_text="player or house_way")


class GameResultOut(FieldsOnceOut):
    high = serializers.CharField(help_text="win, push or loss of the five-card hand")
    low = serializers.CharField(help_text="win, push or loss of the two-card hand")
    won = AmountField(read_only=True, help_text="What the hand won before commission")
    commission = AmountField(read_only=True)
    net = AmountField(read_only=True, help_text="What the game moved on your account: the win "
                                                "less commission, 0.00 on a push, minus the "
                                                "wager on a loss")


class GameFairnessOut(FieldsOnceOut):
    algorithm = serializers.CharField(help_text="docs/fairness.md: v1")
    commitment = serializers.CharField(help_text="sha256 of the server seed, in hex, shown "
                                                 "before the bet")
    server_seed = serializers.CharField(allow_null=True, help_text="hex; null until the game "
                                                                   "is over")
    client_seed = serializers.CharField()
    round_id = serializers.IntegerField(help_text="The game's id, part of every HMAC message")


class GameTableRefOut(FieldsOnceOut):
    id = serializers.IntegerField(source="table_id")
    name = serializers.CharField(source="table_name")


class GameOut(FieldsOnceOut):
    id = serializers.IntegerField()
    table = GameTableRefOut(source="*")
    currency = serializers.CharField()
    state = serializers.CharField(help_text="betting, dealt, settled, voided or reversed")
    amount = AmountField(read_only=True, allow_null=True, help_text="The wager, once dealt")
    cards = serializers.ListField(child=serializers.CharField(), allow_null=True,
                                  help_text="Your seven cards, face up, once dealt")
    hand = serializers.SerializerMethodField()
    dealer = GameSettingOut(allow_null=True, help_text="The dealer's hand, set by the house way: "
                                                   "null until the game is settled")
    outcome = serializers.CharField(allow_null=True, help_text="win, push or loss")
    result = GameResultOut(allow_null=True)
    balance = serializers.SerializerMethodField()
    fairness = GameFairnessOut()
    opened_at = TimeOut()
    settled_at = TimeOut(allow_null=True)

    @extend_schema_field(GameHandOut(allow_null=True))
    def get_hand(self, game: reader.GameView) -> dict[str, Any] | None:
        if game.hand is None:
            return None
        return {"high": list(game.hand.high), "low": list(game.hand.low), "set_by": game.set_by}

    @extend_schema_field(BalanceOutput())
    def get_balance(self, game: reader.GameView) -> dict[str, str]:
        return balance_data(game.balance)


class GameListOut(serializers.Serializer):
    results = GameOut(many=True)


class GameOpenIn(serializers.Serializer):
    table = serializers.IntegerField(min_value=1, help_text="A self-service table's id")


class GameDealIn(serializers.Serializer):
    amount = AmountField(positive=True, help_text="The wager: the chips in the bet circle")
    client_seed = serializers.CharField(required=False, default="", allow_blank=True,
                                        max_length=games.CLIENT_SEED_MAX, trim_whitespace=False,
                                        help_text="Any text of yours that joins the deal's "
                                                  "randomness (docs/fairness.md); default empty")


class GameDoneIn(serializers.Serializer):
    high = CardsField(required=False, help_text="Your five-card hand")
    low = CardsField(required=False, help_text="Your two cards in the \"2nd Highest\" area")
    house_way = serializers.BooleanField(required=False, default=False,
                                         help_text="Set your hand by the house way instead")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("house_way") and "low" not in attrs:
            raise serializers.ValidationError(
                {"low": ["Put two cards in the 2nd Highest area, or send \"house_way\": true."]})
        if attrs.get("house_way") and ("high" in attrs or "low" in attrs):
            raise serializers.ValidationError(
                {"house_way": ["Either your own setting or the house way, not both."]})
        return attrs


def _game(request: Request, view: PlayerApiView, game_id: int,
          status_code: int = status.HTTP_200_OK) -> Response:
    shown = reader.game_for(player_id=view.player_id(request), game_id=game_id)
    return Response(GameOut(shown, context={"currency": shown.currency}).data,
                    status=status_code)


def _errors(more: dict[int, str] | None = None) -> dict[int, OpenApiResponse]:
    return {code: OpenApiResponse(ErrorOutput, description=words)
            for code, words in {403: "Not a player's login (`permission_denied`).",
                                404: "No such game of yours (`not_found`): another player's "
                                     "game is not found either.", **(more or {})}.items()}


# --- the operations ---------------------------------------------------------------------------

class MyTablesView(PlayerApiView):
    @extend_schema(summary="The self-service tables open for play (a player's own)",
                   operation_id="me_tables_list", responses={200: GameTableOut(many=True)})
    def get(self, request: Request) -> Response:
        rows = []
        for table in reader.self_service_tables():
            context = {"currency": table.currency}
            rows.append(GameTableOut({"id": table.pk, "name": table.name,
                                      "currency": table.currency, "min_bet": table.min_bet,
                                      "max_bet": table.max_bet,
                                      "chips": chips_of(table.currency)},
                                     context=context).data)
        return Response(rows)


class MyGamesView(PlayerApiView):
    @extend_schema(summary="Your latest games, the newest first (a player's own)",
                   operation_id="me_games_list", responses={200: GameListOut})
    def get(self, request: Request) -> Response:
        shown = reader.games_of(player_id=self.player_id(request))
        return Response({"results": [GameOut(g, context={"currency": g.currency}).data
                                     for g in shown]})

    @extend_schema(
        summary="Open your next game at a self-service table (a player's own)",
        description="Draws the game's server seed and shows its commitment. Your game still "
                    "taking the wager at this table is answered instead (200).",
        request=GameOpenIn, examples=[example("A game", {"table": 3})],
        responses={201: GameOut, 200: GameOut,
                   **_errors({409: "The table is closed (`table_closed`) or a live table "
                                 "(`not_self_service`), your game elsewhere is dealt and not "
                                 "finished (`game_unfinished`, `detail.game`), you are excluded "
                                 "(`player_excluded`), or the table plays another currency "
                                 "(`wrong_currency`)."})})
    def post(self, request: Request) -> Response:
        data = parse(GameOpenIn, request.data)
        opened = games.game_open(table_id=data["table"], player_id=self.player_id(request),
                                 by=acting_user(request))
        return _game(request, self, opened.game.pk,
                     status.HTTP_201_CREATED if opened.created else status.HTTP_200_OK)


class MyGameView(PlayerApiView):
    @extend_schema(summary="One of your games (a player's own)",
                   description="The server seed is null until the game is over.",
                   responses={200: GameOut, **_errors()})
    def get(self, request: Request, game_id: int) -> Response:
        return _game(request, self, game_id)


class MyGameDealView(PlayerApiView):
    @extend_schema(
        summary="Bet and deal (a player's own)",
        description="The wager is held on your game account and your seven cards dealt face "
                    "up, the dealer's face down, from the committed server seed and your "
                    "client seed (docs/fairness.md).",
        request=GameDealIn,
        examples=[example("Ten on the felt", {"amount": "10.00", "client_seed": "lucky"}),
                  example("No client seed", {"amount": "2.00"})],
        responses={200: GameOut,
                   **_errors({400: "Outside the table's limits (`out_of_limits`), or the client "
                                 "seed too long (`invalid`).",
                             409: "Not enough money on your game account "
                                 "(`insufficient_funds`), past one of your own daily limits "
                                 "(`limit_reached`), excluded (`player_excluded`), or the game "
                                 "is dealt already (`wrong_state`)."})})
    def post(self, request: Request, game_id: int) -> Response:
        currency = reader.game_currency(player_id=self.player_id(request), game_id=game_id)
        data = parse(GameDealIn, request.data, currency=currency)
        games.game_deal(game_id=game_id, player_id=self.player_id(request),
                        amount=data["amount"], client_seed=data["client_seed"],
                        by=acting_user(request))
        return _game(request, self, game_id)


class MyGameDoneView(PlayerApiView):
    @extend_schema(
        summary="Set your hand, see the dealer's and settle (a player's own)",
        description="Your two cards for the \"2nd Highest\" hand (the other five make the "
                    "high hand), or the house way. The dealer's hand is shown and the game "
                    "settles as one ledger entry.",
        request=GameDoneIn,
        examples=[example("Both hands", {"high": ["AS", "AD", "9C", "7H", "3D"],
                                         "low": ["QS", "JH"]}),
                  example("Two cards low", {"low": ["QS", "JH"]},
                          "The other five make the high hand"),
                  example("The house way", {"house_way": True})],
        responses={200: GameOut,
                   **_errors({400: "A foul: the two-card hand outranks the five "
                                 "(`foul_setting`), or cards not yours (`bad_cards`).",
                             409: "The game is not dealt, or settled already (`wrong_state`)."})})
    def post(self, request: Request, game_id: int) -> Response:
        data = parse(GameDoneIn, request.data)
        games.game_done(game_id=game_id, player_id=self.player_id(request), by=acting_user(request),
                        high=data.get("high"), low=data.get("low"),
                        house_way=data["house_way"])
        return _game(request, self, game_id)

