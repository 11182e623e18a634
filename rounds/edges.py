"""The house edge of a table's rules, worked out once per set of money rules and kept
(``EdgeFigures``); the game engine's side is rounds.paigow.edge.

Only the settings that change the money of a hand go into the key: the house way and the
wheel rule (how hands are set and ranked), the commission rate and its rounding, and the
reference wager the rounding is taken on. The commission on a win depends on the wager's
size when it is rounded (5 % of 2.00 rounded up to a quarter is 0.25, an eighth of the
win), so one figure per rule set needs one wager to take it on: the table's minimum bet,
where rounding weighs most. The foul policy, bank rotation and the like change who plays
and when, not what a hand set the house way is worth, and co-banking halves the action a
player-banker covers but not its edge per unit covered.

The figures come from the committed long runs (rounds/paigow/edge_counts.json) when there
is one for the house way and wheel; otherwise from a fresh seeded run of ON_DEMAND_HANDS
hands, short enough for a request to wait for (about two seconds), its wider confidence
said with it. Either way the figures are "simulated": nothing here is exact.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, Final

from django.db import IntegrityError, transaction

from casino.shared.errors import NotFound
from rounds.models import EdgeFigures, Table
from rounds.paigow import edge as engine
from rounds.rules import TableRules
from rounds.services.tables import round_rules_of
from rounds.settlement import commission_on

ON_DEMAND_HANDS: Final = 50_000
PLACES: Final = Decimal("0.00001")   # five places: 0.02735 is 2.735 %


def _q(value: float) -> Decimal:
    return Decimal(repr(value)).quantize(PLACES, rounding=ROUND_HALF_EVEN)


def money_rules(rules: TableRules) -> dict[str, Any]:
    """The settings of ``rules`` that change the money of a hand, and the run the figures
    rest on, as plain JSON: what the key hashes. A remade committed run (``manage.py
    paigow edges``) gives new figures under a new key; the kept ones stay as they were
    used."""
    money: dict[str, Any] = {
        "house_way": rules.house_way, "wheel": str(rules.wheel),
        "commission_rate": str(rules.commission_rate.normalize()),
        "commission_rounding": str(rules.commission_rounding),
        "reference_wager": rules.min_bet}
    counts = engine.precomputed_counts(rules.house_way, str(rules.wheel))
    money["run"] = (f"committed:{counts['hands']}:{counts['win']}:{counts['push']}:"
                    f"{counts['loss']}" if counts else f"on_demand:{ON_DEMAND_HANDS}")
    return money


def rules_key(money: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(money, sort_keys=True).encode()).hexdigest()


def commission_fraction(money: dict[str, Any]) -> Decimal:
    """The commission actually taken on a win of the reference wager, per unit won."""
    wager = int(money["reference_wager"])
    taken = commission_on(wager, Decimal(money["commission_rate"]),
                          money["commission_rounding"])
    return Decimal(taken) / wager


@dataclass(frozen=True)
class Edge:
    """A rule set's edges as the API, ratings and bands use them (five places)."""

    player: Decimal
    banker: Decimal
    how: str
    confidence: Decimal
    rounds: int
    variance_per_wager: Decimal      # a seat's, per unit wagered
    banker_variance: Decimal
    reference_wager: int             # minor units
    key: str


def _edge(row: EdgeFigures) -> Edge:
    return Edge(player=row.player, banker=row.banker, how=row.how,
                confidence=row.confidence, rounds=row.hands,
                variance_per_wager=row.player_variance, banker_variance=row.banker_variance,
                reference_wager=int(row.rules["reference_wager"]), key=row.key)


def compute_edge_figures(money: dict[str, Any]) -> EdgeFigures:
    """Work the figures out (not saved) from the run ``money`` names: the committed one
    for the way and wheel, or a fresh run seeded by the key (the same rules always give
    the same figures, wherever they are computed)."""
    key = rules_key(money)
    kind, _, detail = str(money["run"]).partition(":")
    counts = engine.precomputed_counts(money["house_way"], money["wheel"]) \
        if kind == "committed" else None
    if counts is None:
        hands = int(detail) if kind == "on_demand" else ON_DEMAND_HANDS
        counts = engine.simulated_counts(money["house_way"], money["wheel"], hands, key)
    e = engine.edges_from_counts(counts, float(commission_fraction(money)))
    return EdgeFigures(
        key=key, rules=money,
        how=EdgeFigures.How.EXACT if e.exact else EdgeFigures.How.SIMULATED,
        hands=counts["hands"], wins=counts["win"], pushes=counts["push"],
        losses=counts["loss"], player=_q(e.player), banker=_q(e.banker),
        confidence=_q(e.confidence), player_variance=_q(e.player_variance),
        banker_variance=_q(e.banker_variance))


def rules_edge(rules: TableRules, *, store: bool = True) -> Edge:
    """The edges of ``rules``: kept figures if there are any, else worked out now and kept
    (``store=False`` inside a read-only snapshot: worked out, not kept; the same figures
    either way, see compute_edge_figures)."""
    money = money_rules(rules)
    key = rules_key(money)
    row = EdgeFigures.objects.filter(key=key).first()
    if row is not None:
        return _edge(row)
    row = compute_edge_figures(money)
    if store:
        try:
            with transaction.atomic():
                row.save()
        except IntegrityError:
            # Another request kept the same rules' figures first: theirs are the same.
            row = EdgeFigures.objects.get(key=key)
    return _edge(row)


def table_rules(table: Table) -> TableRules:
    """A table's current settings, typed as its next round will copy them."""
    return TableRules.from_json(round_rules_of(table))


def table_edge(*, table_id: int) -> tuple[Table, Edge]:
    """A table's edges under its current settings."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise NotFound(f"There is no table #{table_id}.", detail={"table_id": table_id})
    return table, rules_edge(table_rules(table))


class EdgeBook:
    """Edges of the rules rounds copied, looked up once per rule set within one report."""

    def __init__(self, *, store: bool = False) -> None:
        self.store = store
        self._by_json: dict[str, Edge] = {}

    def of(self, rules: dict[str, Any]) -> Edge:
        text = json.dumps(rules, sort_keys=True, default=str)
        found = self._by_json.get(text)
        if found is None:
            found = self._by_json[text] = rules_edge(TableRules.from_json(rules),
                                                     store=self.store)
        return found
