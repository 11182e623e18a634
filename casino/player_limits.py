"""A player's own limits: a daily wager limit and a daily loss limit the player sets.

Lowering a limit (or setting a first one) takes effect at once; raising it, or removing it,
``PLAYER_LIMIT_RAISE_HOURS`` (24 by default) later: the protection is meant for the moment
a player would rather not have it, so undoing it takes a night's sleep (the usual rule of
responsible-gambling regulators, e.g. the UK Gambling Commission's RTS 12).

Each setting is a row (casino.models.PlayerLimit, append-only): what is in force at a
moment is read from the history, never stored twice. A setting replaces any setting still
pending before it: a raise asked yesterday and a lower limit asked today leave the lower
one, and a second raise replaces the first's amount and restarts its wait.

``player_limits_check`` is the one rule, called by the wager's service
(rounds.services.play.wager_place) whatever door places the wager: a wager that would
bring the gaming day's wagers past the wager limit, or could bring the day's loss past the
loss limit (the day's loss so far plus this wager, all of which it may lose), is refused
(409 ``limit_reached``) in words. What a player wagered and lost in a gaming day is play's
to say: rounds registers the reader (rounds.apps), as the cage reads uncounted buy-ins
(casino.services.uncounted_cash_register); the floor's models are not read from here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from casino.models import Player, PlayerLimit
from casino.shared.errors import Conflict, NotFound, ValidationFailed
from casino.shared.money import format_minor
from casino.shared.permissions import permission_refused
from casino.shared.templatetags.money import money_text

if TYPE_CHECKING:
    from django.contrib.auth.models import User

KINDS = tuple(PlayerLimit.Kind.values)
WORDS = {PlayerLimit.Kind.WAGER_PER_DAY: "daily wager limit",
         PlayerLimit.Kind.LOSS_PER_DAY: "daily loss limit"}


class LimitReached(Conflict):
    code = "limit_reached"


# --- what play says a player wagered and lost in a gaming day -------------------------------

@dataclass(frozen=True)
class PlayedDay:
    """A player's gaming day at play, in minor units of their currency: the wagers placed
    (not cleared, in rounds not voided), the loss (what settled rounds took from them, less
    what they paid them; 0 when they are ahead) and what is at stake (their wagers in
    rounds not finished yet, all of which they may still lose)."""

    wagered: int = 0
    lost: int = 0
    at_stake: int = 0


PlayedDayReader = Callable[[Player, date], PlayedDay]
_READERS: list[PlayedDayReader] = []


def played_day_register(reader: PlayedDayReader) -> None:
    _READERS.append(reader)


def player_played_day(*, player: Player, gaming_day: date) -> PlayedDay:
    found = [reader(player, gaming_day) for reader in _READERS]
    return PlayedDay(wagered=sum(f.wagered for f in found), lost=sum(f.lost for f in found),
                     at_stake=sum(f.at_stake for f in found))


# --- reading the limits ---------------------------------------------------------------------

@dataclass(frozen=True)
class Pending:
    amount: int | None
    effective_from: datetime


@dataclass(frozen=True)
class LimitState:
    """One kind of limit at a moment: the amount in force (None: no limit) and a change
    waiting for its time (a raise or a removal), if any."""

    kind: str
    amount: int | None
    pending: Pending | None


def _state(kind: str, rows: list[PlayerLimit], at: datetime) -> LimitState:
    """The limit in force at ``at`` from the kind's rows in the order they were set: the
    last row in effect by then that no later setting replaced before it took effect."""
    amount: int | None = None
    for i, row in enumerate(rows):
        after = rows[i + 1] if i + 1 < len(rows) else None
        replaced = after is not None and after.set_at < row.effective_from
        if row.effective_from <= at and not replaced:
            amount = row.amount
    last = rows[-1] if rows else None
    pending = (Pending(amount=last.amount, effective_from=last.effective_from)
               if last is not None and last.effective_from > at else None)
    return LimitState(kind=kind, amount=amount, pending=pending)


def player_limits(*, player_id: int, at: datetime | None = None) -> dict[str, LimitState]:
    """Each kind of the player's limits at ``at`` (now by default), in one read."""
    at = at or timezone.now()
    rows: dict[str, list[PlayerLimit]] = {kind: [] for kind in KINDS}
    for row in PlayerLimit.objects.filter(player_id=player_id).order_by("set_at", "id"):
        rows[row.kind].append(row)
    return {kind: _state(kind, found, at) for kind, found in rows.items()}


# --- the one check --------------------------------------------------------------------------

def player_limits_check(*, player: Player, amount: int, gaming_day: date,
                        banking: bool = False) -> None:
    """Refuse (409 ``limit_reached``) a wager of ``amount`` that would bring the gaming
    day's wagers past the player's daily wager limit, or whose loss would bring the day's
    loss past their daily loss limit (counting what is at stake in rounds still in play as
    lost, so two rounds not settled yet cannot pass it together). ``banking``: the player
    banks a round and ``amount`` is the most the bank can lose (its cover); a bank is no
    wager, so only the loss limit applies.

    A player with a limit has their row locked (FOR NO KEY UPDATE, after the round's and the
    seat's locks, before the accounts': rounds.locks' order) before the day is read, so two
    wagers of one player at once (a live seat and their own game) queue and the second reads
    the first."""
    if player.user_id is None:
        # Only the player's own login sets limits (player_limits_set), and a login once
        # given is never taken away (casino.player_logins): a player without one has none,
        # and a wager at a live table reads nothing more for it.
        return
    limits = player_limits(player_id=player.pk)
    wager_limit = None if banking else limits[PlayerLimit.Kind.WAGER_PER_DAY].amount
    loss_limit = limits[PlayerLimit.Kind.LOSS_PER_DAY].amount
    if wager_limit is None and loss_limit is None:
        return
    list(Player.objects.select_for_update(no_key=True).filter(pk=player.pk)
         .values_list("pk", flat=True))
    played = player_played_day(player=player, gaming_day=gaming_day)
    for kind, limit, used in ((PlayerLimit.Kind.WAGER_PER_DAY, wager_limit, played.wagered),
                              (PlayerLimit.Kind.LOSS_PER_DAY, loss_limit,
                               played.lost + played.at_stake)):
        if limit is not None and used + amount > limit:
            cur = player.currency
            left = max(limit - used, 0)
            what = (f"banking this round puts {money_text(amount, cur)} at stake, past it"
                    if banking else f"a wager of {money_text(amount, cur)} is past it")
            raise LimitReached(
                f"Your {WORDS[kind]} of {money_text(limit, cur)} leaves "
                f"{money_text(left, cur)} today: {what}.",
                detail={"player": player.pk, "limit": kind,
                        "amount": format_minor(limit, cur), "left": format_minor(left, cur),
                        "wager": format_minor(amount, cur), "currency": cur,
                        "banking": banking, "gaming_day": gaming_day.isoformat()})


# --- setting them ---------------------------------------------------------------------------

def raise_wait() -> timedelta:
    return timedelta(hours=settings.PLAYER_LIMIT_RAISE_HOURS)


def player_limits_set(*, player_id: int, changes: Mapping[str, int | None],
                      by: User | None) -> dict[str, LimitState]:
    """Set the player's own limits: ``changes`` maps a kind to an amount in minor units
    (None: no limit). Only the player's own login sets them (403 otherwise, whatever the
    door). A lower or first limit is in force at once; a higher one or none after
    PLAYER_LIMIT_RAISE_HOURS (module docstring); the same amount as in force cancels a
    pending change. Holds the player's row locked, so two settings at once queue and each
    compares with what the other wrote."""
    unknown = sorted(set(changes) - set(KINDS))
    if unknown:
        raise ValidationFailed(f"A limit is one of {', '.join(KINDS)}.",
                               detail={"fields": {k: ["no such limit"] for k in unknown}})
    for kind, amount in changes.items():
        if amount is not None and amount <= 0:
            raise ValidationFailed("A limit is more than nothing; to have none, send null.",
                                   code="invalid_amount",
                                   detail={"fields": {kind: ["more than 0, or null"]}})
    with transaction.atomic():
        player = (Player.objects.select_for_update(no_key=True)
                  .filter(pk=player_id).first())
        if player is None:
            raise NotFound(f"There is no player #{player_id}.", detail={"player_id": player_id})
        if by is None or player.user_id is None or by.pk != player.user_id:
            raise permission_refused("casino.play_games",
                                     "Only the player sets their own limits.")
        now = timezone.now()
        before = player_limits(player_id=player.pk, at=now)
        rows = []
        for kind in KINDS:
            if kind not in changes:
                continue
            amount, state = changes[kind], before[kind]
            if amount == state.amount and state.pending is None:
                continue  # nothing changes
            lower = state.amount is None or (amount is not None and amount <= state.amount)
            rows.append(PlayerLimit(player=player, kind=kind, amount=amount, set_at=now,
                                    effective_from=now if lower else now + raise_wait(),
                                    set_by=by))
        PlayerLimit.objects.bulk_create(rows)
    return player_limits(player_id=player.pk)
