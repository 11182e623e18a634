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

A day outside its band is said in one sentence (``band_sentence``): the expected and the
actual house result, the actual one in words ("the house lost 52.25 EUR"). The floor's
screen lists today's tables (``floor_variance``) and the reports' notes carry the same words.
A day is checked only once it has settings.CASINO_VARIANCE_MIN_ROUNDS settled house-banked
rounds (``Band.checked``; the setting's comment says why 30); before that the floor says how
many it has. A flagged day is explained by a pit boss (rounds.services.variance).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.conf import settings
from django.db.models import DecimalField, Sum
from django.db.models.functions import Cast

from casino.shared.db import read_snapshot
from casino.shared.errors import NotFound
from casino.shared.gaming_day import gaming_day_of
from casino.shared.templatetags.money import money_signed_text, money_text
from rounds.edges import EdgeBook
from rounds.models import Round, RoundParty, Table, VarianceExplanation, Wager
from rounds.ratings import half_even
from rounds.selectors import party_house_share

Z95 = Decimal("1.96")


def min_rounds() -> int:
    """The settled house-banked rounds a day needs before its band is checked
    (settings.CASINO_VARIANCE_MIN_ROUNDS, 30 by default: its comment says why)."""
    return int(settings.CASINO_VARIANCE_MIN_ROUNDS)


@dataclass(frozen=True)
class Band:
    handle: int        # the house-banked wagers (minor units)
    result: int        # the house's result from them, commission included
    expected: int
    band: int
    outside_band: bool
    rounds: int        # the settled house-banked rounds they come from

    @property
    def checked(self) -> bool:
        """Enough rounds for the band to mean something (min_rounds)."""
        return self.rounds >= min_rounds()

    @property
    def flagged(self) -> bool:
        """Outside its band, and checked: a day for a pit boss to explain."""
        return self.checked and self.outside_band


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
    played: dict[int, int] = defaultdict(int)
    result: dict[int, int] = defaultdict(int)
    expected: dict[int, Decimal] = defaultdict(Decimal)
    spread: dict[int, Decimal] = defaultdict(Decimal)
    for round_id, table_id, rules in rows:
        total, squares = sums.get(round_id, (0, 0))
        edge = edges.of(rules)
        handle[table_id] += total
        played[table_id] += 1
        result[table_id] += results.get(round_id) or 0
        expected[table_id] += total * edge.player
        spread[table_id] += squares * edge.variance_per_wager
    out = {}
    for table_id in table_ids:
        e = half_even(expected[table_id])
        b = half_even(Z95 * spread[table_id].sqrt())
        out[table_id] = Band(handle=handle[table_id], result=result[table_id], expected=e,
                             band=b, outside_band=abs(result[table_id] - e) > b,
                             rounds=played[table_id])
    return out


def day_said(day: date) -> str:
    """A gaming day as the sentences name it: "today", or "on 2 Dec 2026"."""
    return "today" if day == gaming_day_of() else f"on {day.day} {day:%b %Y}"


def house_said(result: int, currency: str) -> str:
    """The house's result in words, its sign said rather than printed: "the house lost
    52.25 EUR", never "won -52.25"."""
    if result > 0:
        return f"the house won {money_text(result, currency)}"
    if result < 0:
        return f"the house lost {money_text(-result, currency)}"
    return "the house broke even"


def figures_sentence(*, currency: str, band: Band) -> str:
    """Expected and actual, as a pit boss reads them: "expected house result about +52.00
    EUR (+/- 140.00 EUR) on 1,900.00 EUR of house-banked wagers, actual -52.25 EUR: the
    house lost 52.25 EUR". "About": the edge behind it is simulated (rounds.edges)."""
    c = currency
    return (f"expected house result about {money_signed_text(band.expected, c)} "
            f"(±{money_text(band.band, c)}) on {money_text(band.handle, c)} of "
            f"house-banked wagers, actual {money_signed_text(band.result, c)}: "
            f"{house_said(band.result, c)}")


def _rounds(n: int) -> str:
    return f"{n} house-banked round{'' if n == 1 else 's'}"


def band_sentence(*, table_name: str, currency: str, band: Band, when: str) -> str:
    """A day outside its band, as the pit manager reads it; ``when`` names the day in
    words: "today" where the reader knows which one, else "on 2 Dec 2026"."""
    return (f"{table_name}'s result {when} is outside its expected band after "
            f"{_rounds(band.rounds)}: {figures_sentence(currency=currency, band=band)}.")


def variance_sentence(*, table_name: str, currency: str, band: Band, when: str) -> str:
    """A table's day as the floor's variance check says it: not checked yet (too few
    rounds), within its band, or outside it (band_sentence)."""
    if not band.checked:
        return (f"{table_name}: {_rounds(band.rounds)} {when}; the variance check starts "
                f"at {min_rounds()}.")
    if band.outside_band:
        return band_sentence(table_name=table_name, currency=currency, band=band, when=when)
    return (f"{table_name}'s result {when} is within its expected band after "
            f"{_rounds(band.rounds)}: {figures_sentence(currency=currency, band=band)}.")


@dataclass(frozen=True)
class TableVariance:
    """One table's day on the floor's variance check, and its explanation if a pit boss
    gave one (rounds.services.variance)."""

    table_id: int
    table_name: str
    currency: str
    band: Band
    sentence: str
    explanation: VarianceExplanation | None


def _checks(*, alias: str, gaming_day: date, tables: list[tuple[int, str, str]], when: str
            ) -> list[TableVariance]:
    bands = house_banked_bands(alias=alias, gaming_day=gaming_day,
                               table_ids=[pk for pk, _, _ in tables])
    explained = {e.table_id: e for e in VarianceExplanation.objects.using(alias).filter(
        gaming_day=gaming_day, table_id__in=bands).select_related("explained_by")}
    return [TableVariance(table_id=pk, table_name=name, currency=currency, band=bands[pk],
                          sentence=variance_sentence(table_name=name, currency=currency,
                                                     band=bands[pk], when=when),
                          explanation=explained.get(pk))
            for pk, name, currency in tables]


def floor_variance(*, gaming_day: date, when: str) -> list[TableVariance]:
    """The day's tables that played house-banked rounds, in table order, each with its
    sentence (variance_sentence) and explanation, read from one snapshot: what the floor's
    screen puts before the pit manager. Only a table with a settled house-banked round that
    day has a band to be checked."""
    with read_snapshot() as alias:
        tables = list(Table.objects.using(alias).filter(
            pk__in=Round.objects.using(alias).filter(
                gaming_day=gaming_day, state=Round.State.SETTLED, banker_is_house=True,
            ).values("table_id")).order_by("pk").values_list("pk", "name", "currency"))
        return _checks(alias=alias, gaming_day=gaming_day, tables=tables, when=when)


def table_variance(*, table_id: int, gaming_day: date, when: str) -> TableVariance:
    """One table's variance check for a day (the API's GET /tables/{id}/variance), from
    one snapshot; a day without house-banked rounds is one of 0 rounds, not checked."""
    with read_snapshot() as alias:
        tables = list(Table.objects.using(alias).filter(pk=table_id)
                      .values_list("pk", "name", "currency"))
        if not tables:
            raise NotFound(f"There is no table #{table_id}.", detail={"table_id": table_id})
        (check,) = _checks(alias=alias, gaming_day=gaming_day, tables=tables, when=when)
        return check


def tables_outside_band(*, gaming_day: date, when: str) -> list[str]:
    """The day's flagged tables (outside their band, with enough rounds), in words."""
    return [t.sentence for t in floor_variance(gaming_day=gaming_day, when=when)
            if t.band.flagged]
