"""Write services of play: tables' settings, seats, and every step of a round.

Each round step locks the round row first (rounds.locks), so two steps of one round never
interleave, then checks the state and refuses out-of-order calls before it reads anything
the caller may not see or writes anything. Money moves only through ledger.services,
inside the same transaction: wagers and the banker's cover are holds, the settlement is one
entry that resolves every hold. Rules references are to docs/rules.md.

The modules: ``tables`` (tables' settings and seats), ``play`` (a round from opening to its
hands), ``banking`` (the bank's side: a player-banker's cover), ``settling`` (settling,
voiding, reversing a round), ``steps`` (what every round step does after its lock: check
the state, record its event). Closing a gaming day and making report files are the
reports' (reports/closing.py, reports/services.py).

Every row lock a step takes is rounds/locks.py's, in the one order written there (the
table, the round, seats and the player being seated, a drop count, then ledger accounts in
primary-key order, holds and the chain head as ledger.services takes them).
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
