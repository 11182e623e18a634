"""What the steps of a round share: locking, state checks, events, the bank's cover."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User

from casino.models import Player
from casino.shared.errors import Conflict
from casino.shared.money import format_minor
from ledger import services as ledger
from ledger.selectors import account_balance
from rounds import accounts
from rounds.errors import (
    BankerInsolvent,
    DealModeNotAllowed,
    RoundNotFound,
    SeatProblem,
    WrongState,
)
from rounds.models import Round, RoundEvent, Seat, Wager
from rounds.settlement import banker_share

# --- the round: helpers ---------------------------------------------------------------------

def _lock_round(round_id: int) -> Round:
    try:
        return Round.objects.select_for_update().get(pk=round_id)
    except Round.DoesNotExist:
        raise RoundNotFound(f"no round #{round_id}") from None


# How a round's state reads in a refusal ("... while it is taking wagers").
STATE_WORDS = {
    Round.State.BETTING: "taking wagers",
    Round.State.BANKER_SET: "waiting for the deal",
    Round.State.DEALT: "dealt",
    Round.State.SETTLED: "settled",
    Round.State.VOIDED: "voided",
    Round.State.REVERSED: "settled and reversed",
}


def _require(round_: Round, *states: str, doing: str) -> None:
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


# What a round opened before tables had the deal_modes setting allows: the setting's default.
_DEFAULT_DEAL_MODES = ("electronic", "physical")
_DEAL_MODE_WORDS = {"electronic": "an electronic deal", "physical": "a physical deal of "
                    "recorded cards", "results": "results only (outcomes recorded)"}


def _require_deal_mode(round_: Round, mode: str) -> None:
    """Refuse a deal the table does not allow, before anything is written: who picks the
    cards or the outcomes decides the money, so only a pit boss opens a table to that.
    The round's copy of the setting is the table's, which changes only between rounds."""
    allowed = list(round_.rules.get("deal_modes", _DEFAULT_DEAL_MODES))
    if mode not in allowed:
        raise DealModeNotAllowed(
            f"this table does not allow {_DEAL_MODE_WORDS[mode]}; it allows "
            f"{', '.join(_DEAL_MODE_WORDS[m] for m in allowed)} (a pit boss sets the "
            "table's deal modes between rounds)",
            detail={"mode": mode, "allowed": allowed},
        )


def _event(round_: Round, kind: str, by: User, **data: Any) -> None:
    RoundEvent.objects.create(round=round_, kind=kind, by=by, data=data)


def _money(round_: Round, amount: int) -> str:
    return format_minor(amount, round_.currency)


def _active_wagers(round_: Round) -> list[Wager]:
    return list(round_.wagers.filter(state=Wager.State.ACTIVE).order_by("seat"))


# A reversed round was still played: it counts for the rotation and eligibility rules.
PLAYED_STATES = (Round.State.SETTLED, Round.State.REVERSED)


def _previous_played(round_: Round) -> Round | None:
    return (Round.objects.filter(table_id=round_.table_id, state__in=PLAYED_STATES,
                                 number__lt=round_.number)
            .order_by("-number").first())


def _last_house_banked(round_: Round) -> Round | None:
    return (Round.objects.filter(table_id=round_.table_id, state__in=PLAYED_STATES,
                                 banker_is_house=True, number__lt=round_.number)
            .order_by("-number").first())



def _seated_player(round_: Round, seat: int) -> Player:
    """The player in the seat, with the seat row locked (after the round, before any
    account: the lock order of rounds.services), so they cannot leave while a wager or the
    bank is being placed for them."""
    found = (Seat.objects.select_for_update(of=("self",))
             .filter(table_id=round_.table_id, number=seat).select_related("player").first())
    if found is None or found.player is None:
        raise SeatProblem(f"nobody sits at seat {seat}", detail={"seat": seat})
    return found.player



def _positions_against_bank(round_: Round, wagers: Sequence[Wager]) -> dict[str, int]:
    """Each position playing against the bank with its stake."""
    stakes = {str(w.seat): w.amount for w in wagers}
    if not round_.banker_is_house and round_.house_stake:
        stakes["dealer"] = round_.house_stake
    return stakes


def _hold_banker_cover(round_: Round, wagers: Sequence[Wager], by: User) -> None:
    """The solvency check before play (rules §7.4): the player-banker's available funds
    must cover every wager against the bank plus the house stake; that cover is then held
    until the round is settled or voided. Refused with the figures, changing nothing."""
    if round_.banker_is_house:
        return
    assert round_.banker_player is not None
    # Under co-banking the player-banker covers its half of every wager (rules §7).
    share = banker_share if round_.rules["co_banking"] else (lambda amount: amount)
    required = sum(share(w.amount) for w in wagers) + round_.house_stake
    account = accounts.player_account(round_.banker_player)
    available = account_balance(account_id=account.pk).available

    def refuse(available: int) -> BankerInsolvent:
        shortfall = required - available
        return BankerInsolvent(
            f"the banker cannot cover the table: {_money(round_, required)} required, "
            f"{_money(round_, available)} available, {_money(round_, shortfall)} short",
            detail={"required": _money(round_, required),
                    "available": _money(round_, available),
                    "shortfall": _money(round_, shortfall)},
        )

    if available < required:
        raise refuse(available)
    try:
        # The ledger locks the account and checks again, so money spent elsewhere since
        # the read above cannot slip through.
        hold = ledger.hold_place(account_id=account.pk, amount=required, by=by,
                                 ref=f"round:{round_.pk}", memo="banker's cover")
    except Conflict as exc:
        if exc.code != "insufficient_funds":
            raise
        raise refuse(account_balance(account_id=account.pk).available) from exc
    round_.solvency_required, round_.solvency_available = required, available
    round_.banker_hold_id = hold.pk
    _event(round_, "solvency_checked", by, required=_money(round_, required),
           available=_money(round_, available), hold=hold.pk)
