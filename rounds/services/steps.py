"""What every step of a round does first: lock the round, check its state (and the table's
deal modes) before anything is written, and, once written, record the step as an event.

Validate, then write (STYLE): the checks here raise before a step changes anything; the
lock is the round row's, the second in the lock order of rounds.services.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User

from casino.models import Player
from casino.shared.db import Read, SqlRead, columns, insert_row, read_together
from rounds.errors import DealModeNotAllowed, RoundNotFound, SeatProblem, WrongState
from rounds.models import STATE_WORDS, Round, RoundEvent, Seat, Table

# Every step of a round starts here: the locking read is written as SQL
# (casino.shared.db.SqlRead). Only the round's row is locked (FOR UPDATE OF the round), as
# a step locks the table, if at all, before the round (the lock order).
_LOCK = SqlRead(Round, f'SELECT {columns(Round, "r")} FROM "{Round._meta.db_table}" r '
                "WHERE r.id = %s FOR UPDATE OF r", locks=True)
# Settlement's lock also reads the table and who opened the round, by username as
# round_detail does, so that its answer need not read the round again (FOR UPDATE OF the
# round: the others are only read).
_LOCK_WITH_TABLE = SqlRead(
    Round, f'SELECT {columns(Round, "r")}, {columns(Table, "t")}, u.username '
    f'FROM "{Round._meta.db_table}" r JOIN "{Table._meta.db_table}" t ON t.id = r.table_id '
    f'LEFT JOIN "{User._meta.db_table}" u ON u.id = r.opened_by_id '
    "WHERE r.id = %s FOR UPDATE OF r",
    related=[("table", Table)], extra=["opened_by_username"], locks=True)


def round_lock(round_id: int, *, with_table: bool = False) -> Round:
    """The round, its row locked until the transaction ends: steps of one round queue.
    ``with_table`` reads the table with it (settlement names it in the entry's memo) and
    who opened the round (``opened_by_username``, for the answer)."""
    return round_lock_with(round_id, with_table=with_table)[0]


def round_lock_with(round_id: int, *reads: tuple[Read, Sequence[Any]],
                    with_table: bool = False) -> tuple[Round, list[list[Any]]]:
    """round_lock, and ``reads`` sent with it (casino.shared.db.read_together): they run
    once the lock is granted, in its round trip, and see the round's rows as its last step
    left them. Returns the round and each read's rows."""
    found, *rows = read_together(((_LOCK_WITH_TABLE if with_table else _LOCK), (round_id,)),
                                 *reads)
    if not found:
        raise RoundNotFound(f"no round #{round_id}")
    return found[0], rows


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


def round_event_add(round_: Round, kind: str, by: User, **data: Any) -> None:
    # insert_row: the INSERT built once, not compiled at each of a round's many steps.
    insert_row(round_event(round_, kind, by, **data))


def round_event(round_: Round, kind: str, by: User, **data: Any) -> RoundEvent:
    """A step's event, not yet written: for a step that writes it with its other rows in
    one statement (casino.shared.db.write_rows)."""
    return RoundEvent(round=round_, kind=kind, by=by, data=data)


# A seat's row locked with its player, found by the round's id (parameters: the round, the
# seat's number), so that it may be sent with the round's lock (round_lock_with), after it,
# as the lock order wants.
SEAT_OF_ROUND_LOCK = SqlRead(
    Seat, f'SELECT {columns(Seat, "s")}, {columns(Player, "p")} FROM "{Seat._meta.db_table}" s '
    f'LEFT JOIN "{Player._meta.db_table}" p ON p.id = s.player_id '
    f'WHERE s.table_id = (SELECT r.table_id FROM "{Round._meta.db_table}" r WHERE r.id = %s) '
    "AND s.number = %s FOR UPDATE OF s",
    related=[("player", Player)], locks=True)


def seated_player_lock(round_: Round, seat: int) -> Player:
    """The player in the seat, with the seat row locked (after the round, before any
    account: the lock order of rounds.services), so they cannot leave while a wager or the
    bank is being placed for them."""
    return seated_player(SEAT_OF_ROUND_LOCK.all(round_.pk, seat), seat)


def seated_player(found: list[Seat], seat: int) -> Player:
    """The player of the seat row a seat lock found; refused when nobody sits there."""
    if not found or found[0].player is None:
        raise SeatProblem(f"nobody sits at seat {seat}", detail={"seat": seat})
    return found[0].player
