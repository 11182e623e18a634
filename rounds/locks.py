"""Every row lock a step of play takes, in the one order they are taken (Saleor's
``checkout/lock_objects.py``): a step may skip a level, never go back to one, so two steps
can never wait on each other in a cycle.

  1. the table: settings, seating, opening a round, a buy-in, a drop count, a dealer
     signing in or relieved (``table_lock``); then, a dealer signing in, the dealer's user
     row (``dealer_lock``), which two tables signing in one dealer both take;
  2. the round: every step of a round, and a seat's leaving, which locks the round in play
     (``round_lock``, ``round_in_play_lock``); a self-service game's steps lock its round
     (``game_lock``, found by its player; ``game_any_lock``);
  3. seats: taking and leaving one; a wager or the bank locks its player's seat
     (``seat_lock``, ``seats_lock``); then, seating a player, the player's row
     (``player_seating_lock``), which two tables seating one player both take, as does a
     player opening their own game (after the table's lock, and after the round of their
     game it voids: one game in play per player), and a wager or a bank of a player with
     daily limits of their own (``casino.player_limits.player_limits_check``, after the
     round's and the seat's locks);
  4. a drop count being confirmed or refused by its witness, explained or corrected
     (``drop_count_lock``);
  5. ledger accounts, in primary-key order, every account a step touches at once
     (``ledger.services.account_lock``), then holds and the chain head as the ledger's own
     functions take them (ledger/services.py). A step that places a hold and posts an entry
     in one transaction (a results-only settlement holding the banker's cover) locks the
     union of both's accounts first.

Each returns the locked row, read by the plain ORM (``select_for_update``), and must run
inside the caller's transaction. Only the named row is locked (``of=("self",)``): what is
read with it (the round's table, the seat's player) is only read.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from casino.models import Player
from casino.shared.errors import NotFound
from rounds.models import DropCount, Round, Seat, Table


def table_lock(table_id: int) -> Table:
    """The table's row: its settings, its seats' occupancy and its round numbering wait."""
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise NotFound(f"no table #{table_id}")
    return table


def dealer_lock(user_id: int) -> User | None:
    """The dealer's user row, while a table signs them in (after that table's lock): a
    dealer deals at one table at a time, and two tables signing in the same dealer at once
    would each see them free. FOR NO KEY UPDATE: nothing that only references the user
    waits for it."""
    return User.objects.select_for_update(no_key=True).filter(pk=user_id).first()


def round_lock(round_id: int) -> Round:
    """The round's row, with its table read (not locked): steps of one round queue here."""
    round_ = (Round.objects.select_for_update(of=("self",)).select_related("table")
              .filter(pk=round_id).first())
    if round_ is None:
        raise NotFound(f"no round #{round_id}")
    return round_


def round_in_play_lock(table_id: int) -> Round | None:
    """The table's round in play, locked (after the table's lock), if there is one."""
    return (Round.objects.select_for_update().filter(table_id=table_id,
                                                     state__in=Round.State.OPEN).first())


def seat_lock(*, table_id: int, number: int) -> Seat | None:
    """One seat's row with its player read (after the round's lock, before any account),
    so that its player cannot leave while a wager or the bank is placed for them."""
    return (Seat.objects.select_for_update(of=("self",)).select_related("player")
            .filter(table_id=table_id, number=number).first())


def seats_lock(table_id: int) -> QuerySet[Seat]:
    """Every seat of the table, locked in primary-key order (seating a player)."""
    return Seat.objects.select_for_update().filter(table_id=table_id).order_by("pk")


def player_seating_lock(player_id: int) -> Player | None:
    """The player's row, while a table seats them (after that table's seats): a player sits
    at one table at a time, and two tables seating the same player at once would each see
    the player unseated without it. FOR NO KEY UPDATE: nothing that only references the
    player (a wager, a hold) waits for it."""
    return Player.objects.select_for_update(no_key=True).filter(pk=player_id).first()


def drop_count_lock(count_id: int) -> DropCount | None:
    """A drop count's row (after its table's lock, when the step takes one): it is
    confirmed or refused by its witness once, explained once, corrected once."""
    return DropCount.objects.select_for_update().filter(pk=count_id).first()


def game_lock(*, game_id: int, player_id: int) -> Round:
    """A self-service game's row, found only by its own player (its table read, not
    locked): another player's game, or a live table's round, is not found, so a refusal
    never says that someone else's game exists."""
    game = (Round.objects.select_for_update(of=("self",)).select_related("table", "player")
            .filter(pk=game_id, player_id=player_id).first())
    if game is None:
        raise NotFound(f"You have no game #{game_id}.", detail={"game": game_id})
    return game


def game_any_lock(game_id: int) -> Round | None:
    """A self-service game's row, whoever's (the service finishing a game its player left),
    with its player and their login read."""
    return (Round.objects.select_for_update(of=("self",)).select_related("player__user")
            .filter(pk=game_id, player__isnull=False).first())
