"""Player rating: each player's play per table and gaming day, from what the service records
(docs/rules.md, "Player rating").

- time seated: the player's seat changes at the table (took ... left), cut to the gaming
  day (a player still seated counts up to now); at a self-service table, where nobody
  sits, each of the player's games from its opening to its settlement;
- rounds: the day's settled rounds at the table in which the player wagered or banked;
- wagered: the player's wagers against a bank in those rounds (in a card room, the part of
  each a bank covered: a wager no bank covered had no action); average wager = wagered /
  the number of those wagers, to the minor unit (half even);
- actual: the player's own result in those rounds, commission and collection fees paid
  included (+ the player won): each party's ``result`` as the settlement stored it
  (rounds.models.RoundParty), what its ledger entry moved on the player's account;
- theoretical: what the house expects to win from that play (rules "Player rating"):
  each wager x the player edge of the rules its round was played by, plus, for a round
  the player banked, the action they covered (the wagers against the bank and the house
  stake; their half of the wagers when co-banked; in a card room their own cover, the
  proposition player's rated on its own cover likewise) x the banker edge; summed exactly and
  rounded to the minor unit, half even, once per row. Edges are rounds.edges'.

Reversed and voided rounds count for nothing: their money went back. Everything is read
from one snapshot.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, Decimal

from django.db.models import Max, Q
from django.utils import timezone

from casino.models import Player
from casino.shared.db import read_snapshot
from casino.shared.gaming_day import gaming_days_bounds
from rounds.edges import EdgeBook
from rounds.models import Round, RoundParty, SeatChange, Table, Wager


@dataclass(frozen=True)
class Rating:
    gaming_day: date
    player_id: int
    player_name: str
    table_id: int
    table_name: str
    currency: str
    time_seated_s: int
    rounds: int
    wagers: int
    wagered: int              # minor units, as every amount here
    average_wager: int
    rounds_banked: int
    action_covered: int
    actual: int
    theoretical: int

    @property
    def time_seated_text(self) -> str:
        """``1 h 05 min``, ``12 min`` or ``40 s``, as the pit says it."""
        hours, rest = divmod(self.time_seated_s, 3600)
        minutes, seconds = divmod(rest, 60)
        if hours:
            return f"{hours} h {minutes:02d} min"
        return f"{minutes} min" if minutes else f"{seconds} s"


def half_even(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


@dataclass
class _Tally:
    rounds: set[int]
    wagers: int = 0
    wagered: int = 0
    rounds_banked: int = 0
    covered: int = 0
    actual: int = 0
    theoretical: Decimal = Decimal(0)
    seated: float = 0.0


def _seated(changes: list[tuple[str, datetime]], since: datetime, until: datetime
            ) -> float:
    """Seconds seated within [since, until) from one player's changes at one table."""
    total = 0.0
    start: datetime | None = None
    for kind, at in changes:
        if kind == SeatChange.Kind.TOOK:
            start = start or at
        elif start is not None:
            total += max((min(at, until) - max(start, since)).total_seconds(), 0.0)
            start = None
    if start is not None:
        total += max((until - max(start, since)).total_seconds(), 0.0)
    return total


def player_ratings(*, gaming_day: date, player_id: int | None = None) -> list[Rating]:
    """Every player's rating per table on ``gaming_day`` (one player's with ``player_id``),
    in player then table order."""
    since, until = gaming_days_bounds(gaming_day, gaming_day)
    assert since is not None and until is not None
    until = min(until, timezone.now())
    edges = EdgeBook()
    tally: dict[tuple[int, int], _Tally] = defaultdict(lambda: _Tally(rounds=set()))
    with read_snapshot() as alias:
        rounds = Round.objects.using(alias).filter(state=Round.State.SETTLED,
                                                   gaming_day=gaming_day)
        # Each party a player was in a settled round of the day, as the settlement stored
        # it: a seat's action and result, a bank's cover and result.
        parties = RoundParty.objects.using(alias).filter(round__in=rounds,
                                                         player__isnull=False)
        if player_id is not None:
            parties = parties.filter(player_id=player_id)
        party_rows = list(parties.values_list("round_id", "round__table_id", "round__rules",
                                              "player_id", "role", "covered", "result",
                                              "round__player_id", "round__opened_at",
                                              "round__settled_at"))
        changes = SeatChange.objects.using(alias).all()
        if player_id is not None:
            changes = changes.filter(player_id=player_id)
        # The day's own changes, and each player's last change at each table before the
        # day began (a "took" there means they were seated when it began): not the years
        # of history before it.
        last_before = (changes.filter(at__lt=since).values("table_id", "player_id")
                       .order_by("table_id", "player_id").annotate(last=Max("id"))
                       .values("last"))
        seat_rows = list(changes.filter(Q(at__gte=since, at__lt=until)
                                        | Q(pk__in=last_before))
                         .order_by("at", "id").values_list("table_id", "player_id", "kind",
                                                           "at"))
        for (round_id, table_id, rules, player, role, covered, result, game_of, opened,
             settled) in party_rows:
            edge = edges.of(rules)
            t = tally[(player, table_id)]
            t.rounds.add(round_id)
            t.actual += result
            if game_of is not None and settled is not None:
                # A self-service table has no seats: the time played is each game's, from
                # its opening to its settlement.
                t.seated += max((settled - opened).total_seconds(), 0.0)
            if role == RoundParty.Role.SEAT:
                # In a card room only the covered part of a wager had action (rules §14).
                if covered:
                    t.wagers += 1
                    t.wagered += covered
                t.theoretical += covered * edge.player
            else:
                t.rounds_banked += 1
                t.covered += covered
                t.theoretical += covered * edge.banker
        by_pair: dict[tuple[int, int], list[tuple[str, datetime]]] = defaultdict(list)
        for table_id, player, kind, at in seat_rows:
            by_pair[(player, table_id)].append((kind, at))
        for pair, pair_changes in by_pair.items():
            seconds = _seated(pair_changes, since, until)
            if seconds > 0 or pair in tally:
                tally[pair].seated = seconds
        names = dict(Player.objects.using(alias).filter(
            pk__in={p for p, _ in tally}).values_list("pk", "name"))
        tables = {t.pk: t for t in Table.objects.using(alias).filter(
            Q(pk__in={t for _, t in tally}))}
    out = []
    for (player, table_id), t in sorted(tally.items()):
        table = tables[table_id]
        out.append(Rating(
            gaming_day=gaming_day, player_id=player, player_name=names.get(player, ""),
            table_id=table_id, table_name=table.name, currency=table.currency,
            time_seated_s=int(t.seated), rounds=len(t.rounds), wagers=t.wagers,
            wagered=t.wagered,
            average_wager=half_even(Decimal(t.wagered) / t.wagers) if t.wagers else 0,
            rounds_banked=t.rounds_banked, action_covered=t.covered, actual=t.actual,
            theoretical=half_even(t.theoretical)))
    return out


def player_rating_days(*, player_id: int, limit: int) -> list[date]:
    """The latest ``limit`` gaming days on which the player wagered or banked in a settled
    round, newest first."""
    settled = Round.objects.filter(state=Round.State.SETTLED)
    wagered = settled.filter(wagers__player_id=player_id,
                             wagers__state=Wager.State.ACTIVE).values_list("gaming_day",
                                                                          flat=True)
    banked = settled.filter(banker_player_id=player_id).values_list("gaming_day", flat=True)
    days = set(wagered.distinct().order_by("-gaming_day")[:limit])
    days |= set(banked.distinct().order_by("-gaming_day")[:limit])
    return sorted(days, reverse=True)[:limit]
