"""A self-service game as its player may see it: the one reader of a game.

The player's API (rounds.api.games), the game screen (/play/) and ``manage.py
fairness_verify`` read a game here, and nowhere else decides what of it shows:

- the player's seven cards once dealt; the dealer's hand only once the game is settled (it
  is dealt face down, rules §4.1);
- the commitment always; the server seed only once the game is over (settled, voided or
  reversed): before that nobody sees it, whoever asks;
- the money as the settlement stored it (RoundParty), never worked out again here.

Another player's game is not found (404), like a game that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Prefetch, QuerySet

from casino.selectors import player_balance, player_get
from casino.shared.errors import Conflict, NotFound
from ledger.selectors import Balance
from rounds import paigow
from rounds.models import GAME_SEAT, Hand, Round, RoundParty, Table
from rounds.paigow import fairness

GAME_POSITION = str(GAME_SEAT)

# How many of a player's games the list shows (the newest first).
GAMES_LISTED = 20


@dataclass(frozen=True)
class Setting:
    high: tuple[str, ...]
    low: tuple[str, ...]


@dataclass(frozen=True)
class GameResult:
    """The player's side of the settlement, as stored (rounds.models.RoundParty)."""

    high: str  # win / push / loss of the five-card hand
    low: str
    won: int
    commission: int
    net: int  # what the settlement moved on the player's account


@dataclass(frozen=True)
class Fairness:
    algorithm: str
    commitment: str
    server_seed: str | None  # hex, once the game is over
    client_seed: str
    round_id: int


@dataclass(frozen=True)
class GameView:
    id: int
    table_id: int
    table_name: str
    currency: str
    state: str
    amount: int | None
    cards: tuple[str, ...] | None
    hand: Setting | None
    set_by: str
    dealer: Setting | None
    outcome: str | None
    result: GameResult | None
    balance: Balance
    fairness: Fairness
    opened_at: datetime
    settled_at: datetime | None


def _games(player_id: int) -> QuerySet[Round]:
    return (Round.objects.filter(player_id=player_id).select_related("table", "seed")
            .prefetch_related(Prefetch("hands", queryset=Hand.objects.order_by("id")),
                              Prefetch("parties", queryset=RoundParty.objects.filter(
                                  player_id=player_id)),
                              "wagers"))


def _codes(text: str) -> tuple[str, ...]:
    return tuple(text.split()) if text else ()


def fairness_shown(*, state: str, algorithm: str, commitment: str, server_seed: bytes,
                   client_seed: str, round_id: int) -> Fairness:
    """A game's seeds as anyone may see them now: the one home of the rule that the server
    seed shows only once the game is over, for the player's reader and the staff's
    (rounds.round_view) alike."""
    over = state in Round.State.FINISHED
    return Fairness(algorithm=algorithm, commitment=commitment,
                    server_seed=bytes(server_seed).hex() if over else None,
                    client_seed=client_seed, round_id=round_id)


def _view(game: Round, balance: Balance) -> GameView:
    hands = {h.position: h for h in game.hands.all()}
    mine, dealer = hands.get(GAME_POSITION), hands.get("dealer")
    played = game.state in Round.State.PLAYED
    wager = next((w for w in game.wagers.all() if w.state == w.State.ACTIVE), None)
    party = next(iter(game.parties.all()), None)
    seed = game.seed
    return GameView(
        id=game.pk, table_id=game.table_id, table_name=game.table.name,
        currency=game.currency, state=game.state,
        amount=wager.amount if wager is not None else None,
        cards=_codes(mine.cards) if mine is not None else None,
        hand=(Setting(_codes(mine.high), _codes(mine.low))
              if mine is not None and mine.high else None),
        set_by=mine.set_by if mine is not None else "",
        # Dealt face down: shown once the player's hand is set and the game settled.
        dealer=(Setting(_codes(dealer.high), _codes(dealer.low))
                if played and dealer is not None else None),
        outcome=(mine.outcome or None) if played and mine is not None else None,
        result=(GameResult(high=mine.high_result, low=mine.low_result, won=party.won,
                           commission=party.commission, net=party.result)
                if played and mine is not None and party is not None else None),
        balance=balance,
        fairness=fairness_shown(state=game.state, algorithm=seed.algorithm,
                                commitment=seed.commitment, server_seed=seed.server_seed,
                                client_seed=seed.client_seed, round_id=game.pk),
        opened_at=game.opened_at, settled_at=game.settled_at,
    )


def game_for(*, player_id: int, game_id: int) -> GameView:
    """The player's game ``game_id``; another's, or none, is not found."""
    game = _games(player_id).filter(pk=game_id).first()
    if game is None:
        raise NotFound(f"You have no game #{game_id}.", detail={"game": game_id})
    return _view(game, player_balance(player_get(player_id=player_id)))


def game_currency(*, player_id: int, game_id: int) -> str:
    """The currency the player's game reads an amount in (one statement); another
    player's game is not found, as everywhere."""
    currency = (Round.objects.filter(pk=game_id, player_id=player_id)
                .values_list("currency", flat=True).first())
    if currency is None:
        raise NotFound(f"You have no game #{game_id}.", detail={"game": game_id})
    return currency


def games_of(*, player_id: int, limit: int = GAMES_LISTED) -> list[GameView]:
    """The player's latest games, the newest first."""
    balance = player_balance(player_get(player_id=player_id))
    return [_view(g, balance) for g in _games(player_id).order_by("-id")[:limit]]


def self_service_tables() -> QuerySet[Table]:
    """The self-service tables open for play."""
    return Table.objects.filter(self_service=True, is_open=True).order_by("name", "id")


@dataclass(frozen=True)
class Check:
    what: str
    recorded: str
    recomputed: str

    @property
    def ok(self) -> bool:
        return self.recorded == self.recomputed


def game_deal_verify(*, game_id: int) -> list[Check]:
    """A settled game's deal recomputed from its revealed seed (docs/fairness.md): the
    commitment from the seed, then the dice, every position's stack and the burnt cards
    from the seeds and the game's id, each beside what the game recorded. Refused while the
    game is in play: its seed is secret until then, to everyone."""
    game = (Round.objects.select_related("seed").filter(pk=game_id, player__isnull=False)
            .prefetch_related("hands", "events").first())
    if game is None:
        raise NotFound(f"Round #{game_id} is not a self-service game.")
    if game.state not in Round.State.FINISHED:
        raise Conflict(f"Game #{game_id} is still in play: its server seed stays secret until "
                       "it is over.", code="game_unfinished", detail={"game": game_id})
    seed = bytes(game.seed.server_seed)
    checks = [Check("commitment = sha256(server seed)", game.seed.commitment,
                    fairness.commitment_of(seed))]
    if not game.dice:
        return checks  # voided before the deal: nothing was dealt
    dealt = fairness.fair_deal(server_seed=seed, client_seed=game.seed.client_seed,
                               round_id=game.pk)
    rules = game.table_rules
    order = paigow.deal_order(sum(dealt.dice), banker=game.banker_position,
                              first_stack=rules.first_stack)
    stacks = order.assign(dealt.deal.stacks)
    event = next(e for e in game.events.all() if e.kind == "dealt")
    checks.append(Check("dice", " ".join(map(str, game.dice)),
                        " ".join(map(str, dealt.dice))))
    for position in order.order:
        who = "the dealer" if position == "dealer" else f"seat {position}"
        checks.append(Check(f"stack of {who}", event.data["stacks"][position],
                            paigow.format_cards(stacks[position])))
    hands = {h.position: h.cards for h in game.hands.all()}
    for position, cards in sorted(hands.items()):
        checks.append(Check(f"hand played at {position}", cards,
                            paigow.format_cards(stacks[position])))
    checks.append(Check("burnt", game.burnt, paigow.format_cards(dealt.deal.burnt)))
    return checks
