"""Write services of play: tables' settings, seats, and every step of a round.

Each round step locks the round row first (``select_for_update``), so two steps of one
round never interleave, then checks the state and refuses out-of-order calls before it
writes anything. Money moves only through ledger.services, inside the same transaction:
wagers and the banker's cover are holds, the settlement is one entry that resolves every
hold. Rules references are to shared/rules/paigow.md.
"""

from rounds.services.closing import round_reverse, round_settle, round_void
from rounds.services.play import (
    banker_set,
    hand_set,
    round_deal,
    round_open,
    wager_clear,
    wager_clear_all,
    wager_place,
    wager_rebet,
    wager_rebet_all,
)
from rounds.services.tables import (
    MAX_TABLE_BET,
    OPEN_STATES,
    RULE_FIELDS,
    TABLE_FIELDS,
    seat_leave,
    seat_take,
    table_create,
    table_update,
)

__all__ = [
    "MAX_TABLE_BET", "OPEN_STATES", "RULE_FIELDS", "TABLE_FIELDS",
    "banker_set", "hand_set", "round_deal", "round_open", "round_reverse", "round_settle",
    "round_void", "seat_leave", "seat_take", "table_create", "table_update", "wager_clear",
    "wager_clear_all", "wager_place", "wager_rebet", "wager_rebet_all",
]
