"""Is a table's day within what the game explains? (docs/rules.md, "The expected result and
its band"; casino-books: results outside a 95 % band are investigated.)

The house's own risk at a table is its house-banked play: there it covers every wager, and
each wager's result is a draw from the game's distribution, whose mean (the player edge)
and variance per unit wagered come from rounds.edges. For the day's house-banked rounds:

- expected = sum over wagers of wager x the player edge of the round's rules;
- band     = 1.96 x sqrt(sum over wagers of wager^2 x the variance per unit wagered):
  independent hands' variances add up, and 1.96 standard deviations either side hold
  95 % of days under the normal approximation;
- result   = the house's result from those rounds (the bank's net plus the commission
  of their winning players), and the day is outside its band when
  |result - expected| > band.

Player-banked rounds are left out of the comparison: the house covers nothing there (its
income is commission, and the house stake, a single wager of the house's own).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import DecimalField, Sum
from django.db.models.functions import Cast

from rounds.edges import EdgeBook
from rounds.models import Round, RoundParty, Wager
from rounds.ratings import half_even
from rounds.selectors import party_house_share

Z95 = Decimal("1.96")


@dataclass(frozen=True)
class Band:
    handle: int        # the house-banked wagers (minor units)
    result: int        # the house's result from them, commission included
    expected: int
    band: int
    outside_band: bool


def house_banked_bands(*, alias: str, gaming_day: date, table_ids: list[int]
                       ) -> dict[int, Band]:
    """Each table's band for the day, from the snapshot ``alias`` (three queries)."""
    rounds = Round.objects.using(alias).filter(
        table_id__in=table_ids, gaming_day=gaming_day, state=Round.State.SETTLED,
        banker_is_house=True)
    rows = list(rounds.values_list("id", "table_id", "rules"))
    # The house's result of each round, as its parties were stored at settlement.
    results = dict(RoundParty.objects.using(alias).filter(round__in=rounds)
                   .values("round_id").order_by("round_id")
                   .annotate(result=Sum(party_house_share()))
                   .values_list("round_id", "result"))
    sums = {r: (total or 0, squares or 0) for r, total, squares in
            Wager.objects.using(alias).filter(round__in=rounds, state=Wager.State.ACTIVE)
            .values("round_id").order_by("round_id")
            # Squared in numeric: a bigint wager past about 30 million in the unit would
            # overflow bigint squared.
            .annotate(total=Sum("amount"),
                      squares=Sum(Cast("amount", DecimalField(max_digits=40, decimal_places=0))
                                  * Cast("amount", DecimalField(max_digits=40,
                                                                decimal_places=0))))
            .values_list("round_id", "total", "squares")}
    edges = EdgeBook()
    handle: dict[int, int] = defaultdict(int)
    result: dict[int, int] = defaultdict(int)
    expected: dict[int, Decimal] = defaultdict(Decimal)
    spread: dict[int, Decimal] = defaultdict(Decimal)
    for round_id, table_id, rules in rows:
        total, squares = sums.get(round_id, (0, 0))
        edge = edges.of(rules)
        handle[table_id] += total
        result[table_id] += results.get(round_id) or 0
        expected[table_id] += total * edge.player
        spread[table_id] += squares * edge.variance_per_wager
    out = {}
    for table_id in table_ids:
        e = half_even(expected[table_id])
        b = half_even(Z95 * spread[table_id].sqrt())
        out[table_id] = Band(handle=handle[table_id], result=result[table_id], expected=e,
                             band=b, outside_band=abs(result[table_id] - e) > b)
    return out
