"""What a table's round history shows, read once per page as plain rows: the rounds of one
gaming day, a page at a time, and one round's story and settlement.

Game protection is not this module's to decide: a round is shown as rounds.round_view's
``round_for`` lets its viewer see it, as the API's answer and the table screen show it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, cast

from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q, Sum

from casino.models import Player
from casino.shared.money import to_minor
from casino.shared.templatetags.money import money_said, money_text
from rounds import events
from rounds.models import POSITIONS, Hand, Round, RoundParty
from rounds.round_view import (
    EventView,
    HandView,
    RoundView,
    SettlementView,
    bank_party,
    round_for,
)
from rounds.screens.selectors import (
    STEP_WORDS,
    PartyRow,
    ResultRow,
    banker_label,
    party_rows,
    position_label,
    result_rows,
    round_names,
)
from rounds.selectors import round_dealt_by

ROUNDS_PER_PAGE = 50  # a busy table plays hundreds of rounds a day
DAYS_LISTED = 400     # the gaming days offered by the picker, newest first


@dataclass(frozen=True)
class HistoryRow:
    """One round in a table's history list; amounts in minor units."""

    id: int
    number: int
    step: str
    opened_at: datetime
    settled_at: datetime | None
    banker: str
    dealer: str               # who dealt it (rounds before sign-in: who opened it)
    wagers: int               # wagers in play (not cleared before the deal)
    wagered: int
    banker_net: int | None
    commission: int | None


@dataclass(frozen=True)
class GamingDay:
    day: date
    rounds: int


def table_history_days(*, table_id: int) -> list[GamingDay]:
    """The gaming days the table played, newest first, with their number of rounds."""
    rows = (Round.objects.filter(table_id=table_id).values("gaming_day")
            .annotate(rounds=Count("id")).order_by("-gaming_day")[:DAYS_LISTED])
    return [GamingDay(day=r["gaming_day"], rounds=r["rounds"]) for r in rows]


@dataclass(frozen=True)
class HistoryPage:
    rows: list[HistoryRow]
    number: int               # this page's, from 1
    num_pages: int
    count: int                # the day's rounds, every page's

    @property
    def newer(self) -> int | None:
        return self.number - 1 if self.number > 1 else None

    @property
    def older(self) -> int | None:
        return self.number + 1 if self.number < self.num_pages else None


def table_history_page(*, table_id: int, gaming_day: date,
                       page: int | str | None) -> HistoryPage:
    """One page of the table's rounds of ``gaming_day``, newest first; a page past the last
    (or not a number) gives the last (or the first), as Django's Paginator.get_page does."""
    active = Q(wagers__state="active")
    rounds = (Round.objects.filter(table_id=table_id, gaming_day=gaming_day)
              .select_related("banker_player", "third_party")
              .annotate(wager_count=Count("wagers", filter=active),
                        # the same words as the one reader's (rounds.round_view)
                        dealer_name=round_dealt_by(),
                        wagered=Sum("wagers__amount", filter=active))
              .prefetch_related(Prefetch("parties", queryset=RoundParty.objects.order_by("id")))
              .order_by("-number"))
    paginator = Paginator(rounds, ROUNDS_PER_PAGE)
    found = paginator.get_page(page)
    return HistoryPage(rows=[_history_row(r) for r in found.object_list], number=found.number,
                       num_pages=paginator.num_pages, count=paginator.count)


def _history_row(round_: Any) -> HistoryRow:
    parties = list(round_.parties.all())  # stored at settlement; none before
    bank = bank_party(parties, banker_is_house=bool(round_.banker_is_house))
    return HistoryRow(
        id=round_.pk, number=round_.number, step=STEP_WORDS[Round.State(round_.state)],
        opened_at=round_.opened_at, settled_at=round_.settled_at,
        banker=_banker_words(round_), dealer=round_.dealer_name, wagers=round_.wager_count,
        wagered=round_.wagered or 0,
        banker_net=bank.net if bank is not None else None,
        commission=sum(p.commission for p in parties) if parties else None)


def _banker_words(round_: Round) -> str:
    """Who banked, as the list names them (banker_label's words, from the round's row)."""
    if round_.banker_is_house is None:
        return ""
    if round_.banker_is_house:
        return "The house"
    if round_.banker_player is None:
        name = round_.third_party.name if round_.third_party is not None else ""
        return f"{name} (proposition player) banks alone"
    return f"Seat {round_.banker_seat} · {round_.banker_player.name}"


# --- one round: its story and its settlement -------------------------------------------------

@dataclass(frozen=True)
class StoryLine:
    """One event of the round in words; ``cards``: (what, card codes) shown as cards."""

    at: datetime
    by: str
    text: str
    cards: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class HandLine:
    label: str
    hidden: bool               # game protection: the bank's cards before every player set
    cards: str                 # the seven dealt, when not yet set
    high: str
    low: str
    set_by: str
    outcome: str


@dataclass
class RoundPage:
    round: RoundView
    step: str
    banker: str
    protected: bool            # in play: the deal's hidden cards stay hidden
    story: list[StoryLine] = field(default_factory=list)
    hands: list[HandLine] = field(default_factory=list)
    settlement: SettlementView | None = None
    results: list[ResultRow] = field(default_factory=list)
    parties: list[PartyRow] = field(default_factory=list)
    burnt: str = ""

    @property
    def currency(self) -> str:
        return self.round.currency

    @property
    def uncovered(self) -> int:
        """A card room's wagers that got no action (returned), as the table screen says."""
        return sum(r.uncovered for r in self.results) \
            if self.settlement is not None and self.settlement.card_room else 0


def round_page(*, round_id: int, viewer: User) -> RoundPage:
    """A round's page: its story (every event in order, in words), its hands and its
    settlement, as round_for lets the viewer see them now. Raises NotFound."""
    round_ = round_for(viewer, round_id)
    names = _names(round_)
    page = RoundPage(round=round_, step=STEP_WORDS[Round.State(round_.state)],
                     banker=_banker(round_, names), protected=round_.protected)
    page.story = [_story_line(round_, event, names) for event in round_.events]
    page.hands = [_hand_line(h, names) for h in round_.hands if h.cards != () or h.outcome]
    page.settlement = round_.settlement
    if page.settlement is not None:
        page.results = result_rows(page.settlement, names)
        page.parties = party_rows(round_, page.settlement)
    page.burnt = " ".join(round_.burnt or ())
    return page


def _names(round_: RoundView) -> dict[str, str]:
    """Who played each seat in this round (the seat may have changed hands since): those
    who wagered or banked, and those its story names (a declined bank names a player who
    may not have wagered)."""
    names = round_names(round_)
    missing: dict[str, int] = {}
    for event in round_.events:
        seat, player = str(event.data.get("seat")), event.data.get("player")
        if "seat" in event.data and isinstance(player, int) and seat not in names:
            missing.setdefault(seat, player)
    if missing:
        players = dict(Player.objects.filter(pk__in=set(missing.values()))
                       .values_list("pk", "name"))
        names.update({seat: players.get(pid, "") for seat, pid in missing.items()})
    return names


def _banker(round_: RoundView, names: dict[str, str]) -> str:
    if round_.banker_is_house is None:
        return "not chosen"
    if round_.banker_is_house:
        return "The house"
    if round_.banker_seat is None:
        return banker_label(round_)
    return position_label(str(round_.banker_seat), names)


def _hand_line(hand: HandView, names: dict[str, str]) -> HandLine:
    return HandLine(
        label=position_label(hand.position, names), hidden=hand.hidden,
        cards=" ".join(hand.cards or ()), high=" ".join(hand.high or ()),
        low=" ".join(hand.low or ()), set_by=hand.set_by_words,
        outcome=dict(Hand.Outcome.choices).get(hand.outcome, "") if hand.outcome else "")


def _amount(value: Any, currency: str) -> str:
    """An amount an event recorded in the currency's unit ("10.00"), as money is shown
    (an event written before amounts were recorded this way keeps its own text)."""
    return money_said(value, currency)


def _where(position: Any, names: dict[str, str]) -> str:
    return "the dealer" if position == "dealer" else position_label(str(position), names)


def _story_line(round_: RoundView, event: EventView, names: dict[str, str]) -> StoryLine:
    """One event in words; what each kind records is rounds/events.py's, and its amounts are
    put in the casino's writing here, where they are shown."""
    data = event.data  # as round_for lets the viewer see it
    cur = round_.currency
    kind = event.kind
    cards: tuple[tuple[str, str], ...] = ()
    seat = position_label(str(data.get("seat", "")), names) if "seat" in data else ""
    if kind == "opened":
        rules = data.get("rules", {})
        text = f"Round {round_.number} opened"
        if isinstance(rules.get("min_bet"), int) and isinstance(rules.get("max_bet"), int):
            text += (f": wagers from {money_text(rules['min_bet'], cur)} to "
                     f"{money_text(rules['max_bet'], cur)}")
        text += "."
    elif kind == "wager_placed":
        text = f"{seat} wagers {_amount(data.get('amount'), cur)}."
    elif kind == "wager_cleared":
        text = f"{seat}'s wager of {_amount(data.get('amount'), cur)} is cleared."
    elif kind == "wager_lowered":
        lowered = cast(events.WagerLowered, data)
        text = (f"{seat}'s wager comes down from {_amount(lowered['was'], cur)} to "
                f"{_amount(lowered['amount'], cur)}.")
    elif kind == "bank_declined":
        text = f"{seat} declines the bank."
    elif kind == "bank_offered":   # a card room's rotation
        text = (f"The bank is offered to {seat}." if data.get("seat") else
                f"No seat is offered the bank: {data.get('why_none') or 'none may take it'}.")
    elif kind == "banker_set" and data.get("banker") in ("player_dealer", "third_party"):
        cover = data.get("cover")
        third = data.get("third_party")
        if data["banker"] == "third_party":
            text = f"Proposition player #{third} banks alone."
        else:
            text = (f"{seat} takes the bank as player-dealer, covering "
                    + (f"up to {_amount(cover, cur)}" if cover else "all the action"))
            text += f"; proposition player #{third} covers the rest." if third else "."
    elif kind == "banker_set":
        if data.get("banker") == "house":
            text = "The house banks."
        else:
            text = f"{seat} banks"
            stake = data.get("house_stake")
            if stake and to_minor(str(stake), cur):
                text += f"; the house stakes {_amount(stake, cur)} against the bank"
            text += "."
    elif kind == "solvency_checked":
        text = (f"The banker's cover is checked and held: {_amount(data.get('required'), cur)}"
                f" needed, {_amount(data.get('available'), cur)} available.")
    elif kind == "dealt":
        text, cards = _dealt(data, names)
    elif kind == "hand_set":
        position = data.get("position", "")
        how = dict(Hand.SetBy.choices).get(data.get("set_by", ""), "").lower()
        text = f"{_where(position, names)}: hand set" + (f" ({how})" if how else "") + "."
        if data.get("high"):  # round_for leaves a hidden hand's cards out of its event
            cards = (("High", data["high"]), ("Low", data.get("low", "")))
    elif kind == "settled":
        text = f"Settled; the bank's net: {_amount(data.get('banker_net'), cur)}."
        outcomes = data.get("outcomes") or {}
        if outcomes:
            words = dict(Hand.Outcome.choices)
            text += " " + "; ".join(
                f"{_where(p, names)}: {words.get(o, o).lower()}" for p, o in
                sorted(outcomes.items(), key=lambda i: POSITIONS.index(i[0])
                       if i[0] in POSITIONS else 99)) + "."
    elif kind == "voided":
        held = len(data.get("released_holds") or [])
        text = (f"Voided ({held} hold{'s' * (held != 1)} released). "
                f"Reason: {data.get('reason', '')}")
    elif kind == "reversed":
        text = ("Reversed: every amount of the settlement moved back. "
                f"Reason: {data.get('reason', '')}")
    else:
        text = kind.replace("_", " ").capitalize() + "."
    return StoryLine(at=event.at, by=event.by, text=text, cards=cards)


def _dealt(data: dict[str, Any], names: dict[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    deal = data.get("deal")
    cards: list[tuple[str, str]] = []
    if deal == "results":
        return "Results only: no cards dealt; each position's outcome is recorded.", ()
    if deal == "physical":
        text = "Hands recorded from a physical deal."
        for position, codes in (data.get("hands") or {}).items():
            where = _where(position, names)
            cards.append((where[:1].upper() + where[1:], codes))
        return text, tuple(cards)
    dice = data.get("dice") or []
    text = "Electronic deal"
    if dice:
        text += f": dice {' · '.join(str(d) for d in dice)} = {sum(dice)}"
    if data.get("counted"):
        text += f", counted from {_where(data['counted'], names)}"
    text += "."
    stacks = data.get("stacks") or {}
    for position in data.get("discarded") or []:
        if position in stacks:
            cards.append((f"Unused stack ({_where(position, names)})", stacks[position]))
    if data.get("burnt"):
        cards.append(("Burnt", data["burnt"]))
    return text, tuple(cards)
