"""What every step of a round does after taking its lock (rounds.locks): check the round's
state (and the table's deal modes) before anything is read that the caller may not see or
anything is written, and, once written, record the step as an event.

Validate, then write (STYLE): the checks here raise before a step changes anything.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from casino.models import Player
from rounds.errors import DealModeNotAllowed, SeatProblem, WrongState
from rounds.locks import seat_lock
from rounds.models import STATE_WORDS, Round, RoundEvent


def round_require_state(round_: Round, *states: str, doing: str) -> None:
    """Refuse a step out of order, saying what the round is and what the step needs."""
    if round_.state not in states:
        allowed = [STATE_WORDS.get(Round.State(s), s) for s in states]
        allowed_text = (allowed[0] if len(allowed) == 1
                        else f"{', '.join(allowed[:-1])} or {allowed[-1]}")
        raise WrongState(
            f"Cannot {doing}: round {round_.number} is "
            f"{STATE_WORDS.get(Round.State(round_.state), round_.state)}; this can be done "
            f"only while it is {allowed_text}.",
            detail={"state": round_.state, "allowed": list(states)},
        )


_DEAL_MODE_WORDS = {"electronic": "an electronic deal", "physical": "a physical deal of "
                    "recorded cards", "results": "results only (outcomes recorded)"}


def round_player_check(round_: Round, by: User) -> None:
    """A self-service game is its player's to play (docs/rules.md §15): no one else bets,
    deals, sets its hand or settles it for them, through any door (a pit boss may still void
    it, and a settled one is reversed under two people, as any round). Costs nothing at a
    live table (no player on the round)."""
    if round_.player_id is None:
        return
    owner = Player.objects.filter(pk=round_.player_id).values_list("user_id", "name").first()
    if owner is None or owner[0] != by.pk:
        name = owner[1] if owner is not None else f"player #{round_.player_id}"
        raise WrongState(f"Round {round_.number} is {name}'s own game at a self-service "
                         "table: only they play it (a pit boss may void it).",
                         code="self_service_game", detail={"game": round_.pk})


def round_require_deal_mode(round_: Round, mode: str) -> None:
    """Refuse a deal the table does not allow, before anything is written: who picks the
    cards or the outcomes decides the money, so only a pit boss opens a table to that.
    The round's copy of the setting is the table's, which changes only between rounds."""
    allowed = [m.value for m in round_.table_rules.deal_modes]
    if mode not in allowed:
        raise DealModeNotAllowed(
            f"this table does not allow {_DEAL_MODE_WORDS[mode]}; it allows "
            f"{', '.join(_DEAL_MODE_WORDS[m] for m in allowed)} (a pit boss sets the "
            "table's deal modes between rounds)",
            detail={"mode": mode, "allowed": allowed},
        )


def round_event_add(round_: Round, kind: str, by: User, **data: Any) -> RoundEvent:
    """Record a step of the round, after its writes: who, when, what."""
    return RoundEvent.objects.create(round=round_, kind=kind, by=by, data=data)


def seated_player_lock(round_: Round, seat: int) -> Player:
    """The player in the seat, with the seat row locked (after the round, before any
    account: rounds.locks), so they cannot leave while a wager or the bank is being placed
    for them. Refused when nobody sits there."""
    found = seat_lock(table_id=round_.table_id, number=seat)
    if found is None or found.player is None:
        raise SeatProblem(f"nobody sits at seat {seat}", detail={"seat": seat})
    return found.player
