"""Write services of play: tables' settings, seats, and every step of a round.

Each round step locks the round row first (``select_for_update``), so two steps of one
round never interleave, then checks the state and refuses out-of-order calls before it
writes anything. Money moves only through ledger.services, inside the same transaction:
wagers and the banker's cover are holds, the settlement is one entry that resolves every
hold. Rules references are to docs/rules.md.

The modules: ``tables`` (tables' settings and seats), ``play`` (a round from opening to its
hands), ``banking`` (the bank's side: a player-banker's cover),
``settling`` (settling, voiding, reversing a round), ``steps`` (what every round step does
first: lock, check the state). Closing a gaming day and making report files are the
reports' (reports/closing.py, reports/services.py).

Locking, always in this order (a service may skip a step, never go back to one), so two
services can never wait on each other in a cycle:
  1. the table (settings, seating, opening a round: ``table_lock``);
  2. the round (every round step, and a seat's leaving, which locks the round in play);
  3. seats (taking and leaving one; a wager or the bank locks the seat of its player), and,
     taking a seat, the player's row after the table's seats (FOR NO KEY UPDATE, so two
     tables seating one player queue on it: a player sits at one table at a time);
  4. ledger accounts, in primary-key order, all those a step touches at once, then holds
     and the chain head as ledger.services orders them. A step that places a hold and
     posts an entry in one transaction (a results-only settlement holding the banker's
     cover) locks the union of both's accounts first.
"""

from rounds.services.play import (
    banker_set,
    hand_set,
    round_bank_decline,
    round_deal,
    round_open,
    wager_clear,
    wager_clear_all,
    wager_lower,
    wager_place,
    wager_rebet,
    wager_rebet_all,
)
from rounds.services.settling import round_reverse, round_settle, round_void
from rounds.services.tables import (
    MAX_TABLE_BET,
    RULE_FIELDS,
    TABLE_FIELDS,
    seat_leave,
    seat_take,
    table_create,
    table_update,
)

__all__ = [
    "MAX_TABLE_BET", "RULE_FIELDS", "TABLE_FIELDS",
    "banker_set", "hand_set", "round_bank_decline", "round_deal", "round_open",
    "round_reverse", "round_settle", "round_void", "seat_leave", "seat_take", "table_create",
    "table_update", "wager_clear", "wager_clear_all", "wager_lower", "wager_place", "wager_rebet",
    "wager_rebet_all",
]
