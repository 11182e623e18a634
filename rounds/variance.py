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

A day outside its band is said in one sentence (``band_sentence``): the floor's screen
lists today's (``tables_outside_band``) and the reports' notes carry the same words.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import DecimalField, Sum
from django.db.models.functions import Cast

from casino.shared.db import read_snapshot
from casino.shared.money import format_minor
from rounds.edges import EdgeBook
from rounds.models import Round, RoundParty, Table, Wager
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


def band_sentence(*, table_name: str, currency: str, band: Band, when: str) -> str:
    """A day outside its band, as the pit manager reads it; ``when`` names the day in
    words: "today" where the reader knows which one, else "on 2 Dec 2026"."""
    c = currency
    return (f"{table_name}'s result {when} is outside its expected "
            f"band: the house won {format_minor(band.result, c)} {c} on "
            f"{format_minor(band.handle, c)} {c} of house-banked wagers, where "
            f"{format_minor(band.expected, c)} +/- {format_minor(band.band, c)} {c} was expected.")


def tables_outside_band(*, gaming_day: date, when: str) -> list[str]:
    """The day's tables whose house-banked result lies outside its band, each in words
    (band_sentence), in table order, read from one snapshot: what the floor's screen
    puts before the pit manager. Only a table with a settled house-banked round that day
    has a band to be outside of."""
    with read_snapshot() as alias:
        tables = list(Table.objects.using(alias).filter(
            pk__in=Round.objects.using(alias).filter(
                gaming_day=gaming_day, state=Round.State.SETTLED, banker_is_house=True,
            ).values("table_id")).order_by("pk").values_list("pk", "name", "currency"))
        bands = house_banked_bands(alias=alias, gaming_day=gaming_day,
                                   table_ids=[pk for pk, _, _ in tables])
    return [band_sentence(table_name=name, currency=currency, band=bands[pk], when=when)
            for pk, name, currency in tables if bands[pk].outside_band]
