"""The card room's reports (docs/rules.md, "Card-room mode"): what a regulator asks to see.

- The proposition players' day: per licensed third-party proposition player and currency,
  the action it covered, what it won and lost on it, its net, the commission and the
  collection fees it paid, and its result (what its account moved by).
- The rotation log of a table's day: every offer, take and decline of the bank, with its
  time, round, seat and player, read from the rounds' events (the service records each).

Each report is read from one snapshot and returned as plain typed rows in minor units; the
renderers (reports/files/) only format them. Only settled rounds count in the first
(a reversed round's money was moved back); the log shows every round, whatever became of it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime

from casino.models import Player
from casino.shared.db import read_snapshot
from casino.shared.errors import NotFound
from rounds.models import Round, RoundEvent, RoundParty, Table
from rounds.selectors import BANK_DECLINED, BANK_OFFERED

# --- the proposition players ---------------------------------------------------------------


@dataclass(frozen=True)
class PropositionLine:
    """One proposition player's gaming day in one currency. ``net == won - lost``;
    ``result == net - commission - fees``: what the day's rounds moved on its account."""

    player_id: int
    name: str
    licence: str
    currency: str
    rounds: int           # settled rounds it covered part of, or banked alone
    rounds_alone: int     # of which it banked alone (no player-dealer)
    action: int           # the wagers it covered
    won: int              # the covered wagers that lost to the bank
    lost: int             # the covered wagers that won against the bank
    commission: int       # commission on its net winnings, when the table charges one
    fees: int             # the bank's collection fees, paid when it banked alone

    @property
    def net(self) -> int:
        return self.won - self.lost

    @property
    def result(self) -> int:
        return self.net - self.commission - self.fees


@dataclass(frozen=True)
class PropositionReport:
    gaming_day: date
    lines: list[PropositionLine]


def proposition_report(*, gaming_day: date) -> PropositionReport:
    """Every proposition player that covered a settled round on ``gaming_day``, by name,
    summed from its parties as the settlement stored them (RoundParty); one query from one
    snapshot."""
    with read_snapshot() as alias:
        parties = list(RoundParty.objects.using(alias)
                       .filter(role=RoundParty.Role.PROPOSITION,
                               round__state=Round.State.SETTLED,
                               round__gaming_day=gaming_day)
                       .select_related("player", "round"))
    totals: dict[tuple[int, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    players = {}
    for p in parties:
        assert p.player is not None and p.player_id is not None
        players[p.player_id] = p.player
        t = totals[(p.player_id, p.round.currency)]
        t["rounds"] += 1
        t["rounds_alone"] += p.round.banker_player_id is None
        t["action"] += p.covered
        t["won"] += p.won
        t["lost"] += p.paid
        t["commission"] += p.commission
        t["fees"] += p.fee
    lines = [PropositionLine(player_id=player_id, name=players[player_id].name,
                             licence=players[player_id].licence, currency=currency,
                             rounds=t["rounds"], rounds_alone=t["rounds_alone"],
                             action=t["action"], won=t["won"], lost=t["lost"],
                             commission=t["commission"], fees=t["fees"])
             for (player_id, currency), t in totals.items()]
    lines.sort(key=lambda x: (x.name.casefold(), x.player_id, x.currency))
    return PropositionReport(gaming_day=gaming_day, lines=lines)


# --- the bank's rotation -------------------------------------------------------------------

OFFERED, DECLINED, TAKEN, ALONE, NOBODY = ("offered", "declined", "taken", "alone",
                                           "no_offer")
STEP_WORDS = {OFFERED: "offered the bank", DECLINED: "declined the bank",
              TAKEN: "took the bank", ALONE: "proposition player banks alone",
              NOBODY: "no seat offered"}


@dataclass(frozen=True)
class RotationLine:
    """One step of the bank's rotation: ``what`` is offered, declined, taken (a seated
    player-dealer), alone (a proposition player banks with no player-dealer) or no_offer
    (no seated player may be offered the bank now, and why)."""

    at: datetime
    round_id: int
    round_number: int
    what: str
    seat: int | None
    player_id: int | None
    player: str
    detail: str           # the cover and the proposition player, or why no offer was made

    @property
    def step(self) -> str:
        """The step in words, as the log shows it."""
        return STEP_WORDS[self.what]


@dataclass(frozen=True)
class RotationLog:
    table_id: int
    table_name: str
    currency: str
    gaming_day: date
    lines: list[RotationLine]


def rotation_log(*, table_id: int, gaming_day: date) -> RotationLog:
    """Every offer, take and decline of the bank at a table on a gaming day, in the order
    they happened; two queries from one snapshot (the events with their rounds, the
    players they name)."""
    with read_snapshot() as alias:
        table = Table.objects.using(alias).filter(pk=table_id).first()
        if table is None:
            raise NotFound(f"There is no table #{table_id}.", detail={"table_id": table_id})
        events = list(RoundEvent.objects.using(alias)
                      .filter(round__table_id=table_id, round__gaming_day=gaming_day,
                              # a casino table's bank rotates by other rules (§7.1)
                              round__rules__bank_mode="card_room",
                              kind__in=[BANK_OFFERED, BANK_DECLINED, "banker_set"])
                      .select_related("round").order_by("id"))
        named = {e.data.get(k) for e in events for k in ("player", "third_party")}
        players = {p.pk: p for p in Player.objects.using(alias).filter(
            pk__in=[i for i in named if isinstance(i, int)])}
    lines = []
    for e in events:
        data, round_ = e.data, e.round
        player_id = data.get("player")
        player = players.get(player_id) if isinstance(player_id, int) else None
        what, detail = _rotation_step(e.kind, data, players, round_.currency)
        if what is None:
            continue
        if what == ALONE:  # the proposition player is the one who banks
            player = players.get(data.get("third_party"))  # type: ignore[arg-type]
        lines.append(RotationLine(
            at=e.at, round_id=round_.pk, round_number=round_.number, what=what,
            seat=data.get("seat"), player_id=player.pk if player else None,
            player=player.name if player else "", detail=detail))
    return RotationLog(table_id=table.pk, table_name=table.name, currency=table.currency,
                       gaming_day=gaming_day, lines=lines)


def _rotation_step(kind: str, data: dict, players: dict[int, Player],
                   currency: str) -> tuple[str | None, str]:
    if kind == BANK_DECLINED:
        return DECLINED, ""
    if kind == BANK_OFFERED:
        if data.get("seat") is None:
            return NOBODY, data.get("why_none") or "no seated player may take the bank"
        return OFFERED, ""
    # banker_set: a casino table's banker (the house, a player-banker) is not the card
    # room's rotation; only a player-dealer's take or a proposition player alone is.
    banker = data.get("banker")
    third = players.get(data["third_party"]) if isinstance(data.get("third_party"),
                                                           int) else None
    third_text = f"{third.name} (licence {third.licence})" if third else ""
    if banker == "player_dealer":
        cover = data.get("cover")
        said = f"covers up to {cover} {currency}" if cover else "covers all the action"
        if third_text:
            said += f"; {third_text} covers the rest"
        return TAKEN, said
    if banker == "third_party":
        return ALONE, f"{third_text} banks alone"
    return None, ""
