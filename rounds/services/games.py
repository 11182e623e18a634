"""A player's own game at a self-service table: the German seed's electronic game.

One player against the house, each game a round of its table (``Round.player``): opened by
the player with a fresh server seed whose commitment alone is shown (docs/fairness.md), the
wager placed and dealt in one step from the committed seed and the player's client seed,
finished by the player's setting (or the house way) and settled at once. Every step is the
live table's own service (wager_post, banker_set, round_deal, hand_set, round_settle), so the
limits, exclusions, the ledger's holds and the one settlement entry are the same rules for a
game as for a live round; this module only says whose game it is and in which order.

A game is found only by its own player: another player's game is "not found", so a refusal
never says that a game of someone else exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from casino.exclusions import player_exclusion_check
from casino.shared.errors import Conflict, NotFound, ValidationFailed
from casino.shared.gaming_day import gaming_day_of
from rounds.errors import FoulRefused
from rounds.locks import (
    game_any_lock,
    game_lock,
    player_seating_lock,
    round_lock,
    table_lock,
)
from rounds.models import GAME_SEAT, GameSeed, Round
from rounds.paigow import fairness
from rounds.services.play import banker_set, hand_set, round_deal, wager_post
from rounds.services.settling import round_settle, round_void
from rounds.services.steps import round_event_add, round_require_state
from rounds.services.tables import round_rules_of

GAME_POSITION = str(GAME_SEAT)
# A client seed is the player's own text, kept short enough to show and to type again.
CLIENT_SEED_MAX = 64


@dataclass(frozen=True)
class GameOpened:
    """The game the player plays next, and whether this step opened it (or found it open)."""

    game: Round
    created: bool


@transaction.atomic
def game_open(*, table_id: int, player_id: int, by: User) -> GameOpened:
    """Open the player's next game at a self-service table, drawing its server seed and
    committing to it. A game of theirs still taking the wager at this table is the one they
    play (a retry, or "New Game" twice, opens no second one); one taking the wager at
    another table is voided (nothing was bet); one dealt and not finished, at any table, is
    finished first.

    Locks the table (its round numbering), then the player's row (one game in play per
    player; the database's ``round_one_game_per_player`` says it too)."""
    table = table_lock(table_id)
    if not table.self_service:
        raise Conflict(f"{table.name} is a live table: its rounds are dealt by its dealer, not "
                       "played as your own game", code="not_self_service",
                       detail={"table": table.pk})
    if not table.is_open:
        raise Conflict(f"{table.name} is closed", code="table_closed", detail={"table": table.pk})
    # A game of theirs left before the bet at another table gives way (voided: nothing was
    # bet). Its round is locked before the player's row, in rounds.locks' order: a deal of
    # that game, which locks the player's row after its round (their limits), cannot wait on
    # us while we wait on it.
    left = (Round.objects.filter(player_id=player_id, state=Round.State.BETTING)
            .exclude(table=table).values_list("pk", flat=True).first())
    if left is not None and round_lock(left).state == Round.State.BETTING:
        round_void(round_id=left, by=by, reason=f"left before the bet for a game at {table.name}")
    player = player_seating_lock(player_id)
    if player is None:
        raise NotFound(f"no player #{player_id}")
    player_exclusion_check(player=player, doing="play")
    if player.currency != table.currency:
        raise Conflict(f"{table.name} plays in {table.currency}; your game account is in "
                       f"{player.currency}", code="wrong_currency",
                       detail={"table": table.pk, "currency": table.currency})
    in_play = Round.objects.filter(player=player, state__in=Round.State.OPEN).first()
    if in_play is not None and in_play.state == Round.State.BETTING \
            and in_play.table_id == table.pk:
        return GameOpened(in_play, created=False)
    if in_play is not None:
        raise Conflict(f"Your game #{in_play.pk} is still in play: finish it first.",
                       code="game_unfinished", detail={"game": in_play.pk})
    last = Round.objects.filter(table=table).aggregate(last=Max("number"))["last"]
    rules = round_rules_of(table)
    game = Round.objects.create(table=table, number=(last or 0) + 1, gaming_day=gaming_day_of(),
                                currency=table.currency, rules=rules, opened_by=by,
                                dealer=None, player=player)
    seed = fairness.server_seed_new()
    commitment = fairness.commitment_of(seed)
    GameSeed.objects.create(round=game, algorithm=fairness.ALGORITHM, server_seed=seed,
                            commitment=commitment)
    # The commitment is public from now on; the seed stays in GameSeed alone.
    round_event_add(game, "opened", by, rules=rules, game_of=player.pk, commitment=commitment)
    return GameOpened(game, created=True)


@transaction.atomic
def game_deal(*, game_id: int, player_id: int, amount: int, by: User,
              client_seed: str = "") -> Round:
    """The player's wager and the deal, in one step: the wager is held on their game account
    (within the table's limits, their own limits and any exclusion, as at a live seat), the
    house banks, and the cards come from the committed server seed and the client seed
    (docs/fairness.md). Locks the game, then (in ledger) the player's account."""
    game = game_lock(game_id=game_id, player_id=player_id)
    round_require_state(game, Round.State.BETTING, doing="deal")
    if not isinstance(client_seed, str) or len(client_seed) > CLIENT_SEED_MAX:
        raise ValidationFailed(f"A client seed is up to {CLIENT_SEED_MAX} characters.",
                               detail={"fields": {"client_seed": [f"at most {CLIENT_SEED_MAX}"]}})
    if game.player is None:  # game_lock finds a game by its player: never so
        raise NotFound(f"You have no game #{game_id}.", detail={"game": game_id})
    # Written while the game takes the bet: the database refuses it once dealt (0026).
    seed = GameSeed.objects.get(round=game)
    if seed.client_seed != client_seed:
        seed.client_seed = client_seed
        seed.save(update_fields=["client_seed"])
    wager_post(game, seat=GAME_SEAT, player=game.player, amount=amount, by=by)
    banker_set(round_id=game.pk, by=by, house=True)
    dealt = fairness.fair_deal(server_seed=bytes(seed.server_seed), client_seed=client_seed,
                               round_id=game.pk)
    return round_deal(round_id=game.pk, by=by, seeded=dealt)


@transaction.atomic
def game_done(*, game_id: int, player_id: int, by: User,
              high: list[str] | None = None, low: list[str] | None = None,
              house_way: bool = False) -> Round:
    """The player's hand set (their five and two, a foul refused in words; or the house
    way), the dealer's hand shown and the game settled as one ledger entry. Locks the game
    (hand_set and round_settle take the same lock again in this transaction)."""
    game = game_lock(game_id=game_id, player_id=player_id)
    round_require_state(game, Round.State.DEALT, doing="set your hand")
    if house_way and (high is not None or low is not None):
        raise ValidationFailed("Either your own setting or the house way, not both.",
                               detail={"fields": {"house_way": ["not with high or low"]}})
    try:
        hand_set(round_id=game.pk, position=GAME_POSITION, by=by, high=high, low=low,
                 house_way=house_way)
    except FoulRefused as foul:
        # Said in the game's own words (the German seed's "Highest" and "2nd Highest"): there
        # is no dealer to re-set the hand, the player sets it again.
        two, five = foul.detail.get("low", ""), foul.detail.get("high", "")
        raise FoulRefused(
            f"Foul: your 2nd Highest hand ({two}) outranks your Highest hand ({five}). "
            "The five cards must make the higher hand: move other cards into 2nd Highest, "
            "or press House Way.", detail=foul.detail) from foul
    return round_settle(round_id=game.pk, by=by)


def games_abandoned(*, now: datetime | None = None) -> list[int]:
    """The games dealt more than ``SELF_SERVICE_FINISH_AFTER_MINUTES`` ago (timed from the
    deal, not the opening: a game may wait for its bet as long as the player likes) and not
    finished: their wagers stay held until someone finishes them."""
    cutoff = (now or timezone.now()) - timedelta(
        minutes=settings.SELF_SERVICE_FINISH_AFTER_MINUTES)
    return list(Round.objects.filter(player__isnull=False, state=Round.State.DEALT,
                                     events__kind="dealt", events__at__lt=cutoff)
                .order_by("pk").values_list("pk", flat=True).distinct())


@transaction.atomic
def game_finish_abandoned(*, game_id: int) -> Round:
    """Finish a game its player left after the deal: their hand set by the house way (what
    the German seed's House Way button does) and the game settled, so the held wager does
    not stay held (docs/rules.md, self-service table). Recorded in the player's name, as
    their game, with an event that says the service finished it. Locks the game."""
    game = game_any_lock(game_id)
    if game is None:
        raise NotFound(f"no self-service game #{game_id}")
    if game.state != Round.State.DEALT:
        return game  # finished meanwhile by its player
    if game.player is None or game.player.user is None:
        raise NotFound(f"game #{game_id} has no player with a login to finish it for")
    by = game.player.user
    round_event_add(game, "finished_for_player", by,
                    after_minutes=settings.SELF_SERVICE_FINISH_AFTER_MINUTES)
    return game_done(game_id=game.pk, player_id=game.player.pk, by=by, house_way=True)
