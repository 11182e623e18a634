"""A round as a viewer may see it: the one reader every door renders (the API, the console's
table screen and round history, the admin).

``round_for(viewer, round_id)`` reads the round with its wagers, hands, events, pending
requests and settlement in one go and applies game protection (rules §4.1) once, here:
while a round is in play and a player's hand is still to be set, nobody watching it may
learn the banker's or the dealer's cards, nor the stacks and burnt cards not dealt to a
player. Once every player's hand is set the bank's hand shows; once the round is over,
everything does. What is hidden is not in the answer at all (``None``), so no door can
show it by mistake. A settled round's figures are its parties' (``RoundParty``), as stored
at settlement: nothing here works a figure out from hands.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.contrib.auth.models import User
from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import (
    CharField,
    F,
    OuterRef,
    QuerySet,
    Value,
)
from django.db.models.functions import Cast, Concat, JSONObject

from casino.shared.approvals import Approval
from casino.shared.errors import NotFound, PermissionRefused
from rounds.games import Fairness, fairness_shown
from rounds.models import POSITIONS, Hand, Round, RoundEvent, RoundParty, Wager
from rounds.rules import TableRules
from rounds.selectors import (
    BANK_DECLINED,
    round_bank_positions,
    round_dealt_by,
    round_players_set,
    round_positions_against_bank,
)
from rounds.settlement import Position, PositionCover

VIEW_ROUNDS = "rounds.view_round"

# Keys of the deal's event that hold cards no player's own hand shows: the stacks (every
# position's seven, the dealer's and the unused ones), the burnt cards, and a physical
# deal's recorded hands (the dealer's and a player-banker's among them).
_DEALT_CARDS = ("stacks", "burnt", "hands")
# Keys of a hand's event that hold its cards.
_HAND_CARDS = ("high", "low")


@dataclass(frozen=True)
class WagerView:
    seat: int
    player_id: int
    player_name: str
    amount: int             # minor units, as every amount here
    state: str
    hold_id: int
    placed_at: datetime


@dataclass(frozen=True)
class HandView:
    """One position's hand; its cards ``None`` while game protection hides them."""

    position: str
    cards: tuple[str, ...] | None   # the seven dealt; () for a results-only round
    high: tuple[str, ...] | None
    low: tuple[str, ...] | None
    set_by: str
    set_by_words: str
    outcome: str
    high_result: str
    low_result: str

    @property
    def hidden(self) -> bool:
        return self.cards is None


@dataclass(frozen=True)
class EventView:
    kind: str
    at: datetime
    by: str                 # the username of who took the step
    data: dict[str, Any]    # as game protection lets anyone see it now


@dataclass(frozen=True)
class PendingView:
    """A request about the round waiting for a second person."""

    id: int
    action: str
    summary: str
    requested_by: str
    requested_at: datetime


@dataclass(frozen=True)
class PartyView:
    """One party's figures as the settlement stored them (RoundParty)."""

    role: str
    position: str
    player_id: int | None
    player_name: str
    player_licence: str
    account_id: int | None
    wager: int
    covered: int
    covered_by_player_dealer: int
    won: int
    paid: int
    net: int
    commission: int
    fee: int
    result: int


@dataclass(frozen=True)
class PositionView:
    """A position that played against the bank: its hand's outcome and its party's money
    (a seat's, or the house's stake), and in a card room who covered its wager."""

    position: str
    outcome: str
    high: str               # the high hand's result, "" when no cards were shown down
    low: str
    party: PartyView
    cover: PositionCover | None = None

    @property
    def uncovered(self) -> int:
        return self.party.wager - self.party.covered


@dataclass(frozen=True)
class SettlementView:
    """A settled (or settled, then reversed) round's money: its parties as stored."""

    parties: tuple[PartyView, ...]
    positions: tuple[PositionView, ...]   # in position order, the bank's own left out
    entry_id: int | None                  # none: every hand pushed
    reversal_entry_id: int | None
    card_room: bool
    co_banked: bool
    banker_is_house: bool

    def _first(self, *roles: str) -> PartyView | None:
        return next((p for p in self.parties if p.role in roles), None)

    @property
    def bank(self) -> PartyView | None:
        """The bank's party: the house when it banks, the player-banker or player-dealer,
        or a proposition player banking alone."""
        return bank_party(self.parties, banker_is_house=self.banker_is_house)

    @property
    def house(self) -> PartyView | None:
        """The house's party: as the bank, its stake against a player-bank, or its half of
        a co-banked bank (None: it only earned the commission and fees)."""
        return self._first("house")

    @property
    def proposition(self) -> PartyView | None:
        return self._first("proposition")

    @property
    def commission_income(self) -> int:
        """The house's commission: every party's commission."""
        return sum(p.commission for p in self.parties)

    @property
    def collection_banker(self) -> int:
        return sum(p.fee for p in self.parties if p.role != "seat")

    @property
    def collection_players(self) -> int:
        return sum(p.fee for p in self.parties if p.role == "seat")

    @property
    def collection_paid_by(self) -> str | None:
        payer = next((p for p in self.parties if p.role != "seat" and p.fee), None)
        return None if payer is None else payer.role


def bank_party(parties: Sequence[Any], *, banker_is_house: bool) -> Any:
    """Of a round's parties (stored, or as shown), the bank's: the house when it banks, the
    player-banker or player-dealer, or a proposition player banking alone."""
    roles = ("house",) if banker_is_house else ("player_banker", "player_dealer")
    found = next((p for p in parties if p.role in roles), None)
    return found if found is not None or banker_is_house else \
        next((p for p in parties if p.role == "proposition"), None)


@dataclass(frozen=True)
class RoundView:
    """A round as ``round_for`` lets its viewer see it."""

    id: int
    table_id: int
    table_name: str
    number: int
    state: str
    state_words: str
    gaming_day: date
    currency: str
    rules: dict[str, Any]
    table_rules: TableRules
    banker_is_house: bool | None
    banker_seat: int | None
    banker_player_id: int | None
    banker_name: str
    banker_cover: int | None
    third_party_id: int | None
    third_party_name: str
    third_party_licence: str
    house_stake: int
    solvency_required: int | None
    solvency_available: int | None
    banker_hold_id: int | None
    deal_kind: str
    dice: list[int] | None
    counted_position: str
    deal_order: list[str] | None
    burnt: tuple[str, ...] | None     # None while the round is in play
    opened_by: str
    opened_at: datetime
    dealer: str                       # who dealt it (rounds before sign-in: who opened it)
    settled_at: datetime | None
    closed_reason: str
    protected: bool                   # in play: the deal's hidden cards stay hidden
    players_set: bool                 # every player's hand is set: the bank's shows
    wagers: tuple[WagerView, ...] = ()
    hands: tuple[HandView, ...] = ()
    events: tuple[EventView, ...] = ()
    pending: tuple[PendingView, ...] = ()
    settlement: SettlementView | None = None
    # Electronic deals over: the stacks no position played (position, its seven).
    unused_stacks: tuple[tuple[str, str], ...] = field(default=())
    # A self-service game: its player, and its seeds as rounds.games shows them (the server
    # seed once the game is over); empty and None at a live table.
    game_of: str = ""
    fairness: Fairness | None = None

    @property
    def pk(self) -> int:
        return self.id

    @property
    def banker_position(self) -> str:
        return "dealer" if self.banker_is_house or self.banker_seat is None \
            else str(self.banker_seat)

    @property
    def is_open(self) -> bool:
        return self.state in Round.State.OPEN

    @property
    def active_wagers(self) -> tuple[WagerView, ...]:
        return tuple(w for w in self.wagers if w.state == Wager.State.ACTIVE)

    @property
    def against_bank(self) -> dict[str, int]:
        """Who plays against the bank with each stake (rounds.settlement's one answer)."""
        return round_positions_against_bank(self, self.active_wagers)

    @property
    def bank_declined(self) -> list[dict[str, int]]:
        """Who declined the bank this round, in order: ``{"seat", "player"}``."""
        return [{"seat": e.data["seat"], "player": e.data["player"]}
                for e in self.events if e.kind == BANK_DECLINED]

    def hand(self, position: str) -> HandView | None:
        return next((h for h in self.hands if h.position == position), None)


# --- the one read ----------------------------------------------------------------------------

# --- the one read ---------------------------------------------------------------------------
#
# A round and everything it shows come in ONE statement: the round's row with its table and
# players joined, and its pending requests, wagers, hands, events and parties each as one
# column of JSON objects (the ORM's ArraySubquery of a JSONObject per row). Every step of a
# round answers with it, so its count is a figure the round's statements are judged by
# (tests/rounds/test_step_statements.py): one statement here instead of one per kind of row.

def _rows(queryset: QuerySet[Any], **fields: Any) -> ArraySubquery:
    """The round's rows of ``queryset`` (filtered on the round), as JSON objects."""
    return ArraySubquery(queryset.filter(round=OuterRef("pk")).values(json=JSONObject(**fields)))


def _pending() -> ArraySubquery:
    """The round's requests waiting for a second person."""
    return ArraySubquery(
        Approval.objects.filter(
            status=Approval.Status.PENDING,
            ref=Concat(Value("round:"), Cast(OuterRef("pk"), CharField())))
        .order_by("id")
        .values(json=JSONObject(id="id", action="action", summary="summary",
                                requested_by="requested_by__username",
                                requested_at="requested_at")))


@functools.cache
def _read() -> QuerySet[Round]:
    """The read's queryset, built once: building its annotations cost as much CPU as the
    database takes to answer it. Every use filters a clone of it; it is never evaluated
    itself (rounds_read hands out a clone)."""
    return Round.objects.annotate(
        # Of the rows it names, only the words shown: no whole table, user or players.
        table_name=F("table__name"), opened_by_name=F("opened_by__username"),
        dealer_name=round_dealt_by(),
        game_of=F("player__name"), seed_algorithm=F("seed__algorithm"),
        seed_commitment=F("seed__commitment"), seed_server=F("seed__server_seed"),
        seed_client=F("seed__client_seed"),
        banker_name=F("banker_player__name"), third_party_name=F("third_party__name"),
        third_party_licence=F("third_party__licence"),
        pending_json=_pending(),
        wagers_json=_rows(Wager.objects.order_by("seat", "id"), seat="seat",
                          player_id="player_id", player_name="player__name",
                          amount="amount", state="state", hold_id="hold_id",
                          placed_at="placed_at"),
        hands_json=_rows(Hand.objects.order_by("id"), position="position", cards="cards",
                         high="high", low="low", set_by="set_by", outcome="outcome",
                         high_result="high_result", low_result="low_result"),
        events_json=_rows(RoundEvent.objects.order_by("id"), kind="kind", at="at",
                          by="by__username", data="data"),
        parties_json=_rows(RoundParty.objects.order_by("id"), role="role",
                           position="position", player_id="player_id",
                           player_name="player__name", player_licence="player__licence",
                           account_id="account_id", wager="wager", covered="covered",
                           covered_by_player_dealer="covered_by_player_dealer", won="won",
                           paid="paid", net="net", commission="commission", fee="fee",
                           result="result"))


def rounds_read(viewer: User) -> QuerySet[Round]:
    """Rounds as ``round_view`` shows them, for ``viewer``: each with the names it shows,
    and as JSON its pending requests, wagers, hands, events and settlement's parties
    (module comment above). Refused to a viewer who may not see rounds."""
    if not viewer.has_perm(VIEW_ROUNDS):
        raise PermissionRefused("You may not see the rounds of the tables.",
                                detail={"permission": VIEW_ROUNDS})
    return _read().all()


def round_for(viewer: User, round_id: int) -> RoundView:
    """The round as ``viewer`` may see it (module docstring). Raises NotFound."""
    found = rounds_read(viewer).filter(pk=round_id).first()
    if found is None:
        raise NotFound(f"no round #{round_id}")
    return round_view(found)


def round_view(round_: Round) -> RoundView:
    """A round read by ``rounds_read`` as anyone watching may see it now."""
    read: Any = round_  # its names and JSON columns are the annotations rounds_read adds
    hands = [_Hand(**row) for row in read.hands_json]
    protected = round_.state in Round.State.OPEN
    players_set = round_players_set(round_, hands)
    hidden = round_bank_positions(round_) if protected and not players_set else set()
    events = tuple(_event_view(row, protected, hidden) for row in read.events_json)
    wagers = tuple(WagerView(**{**row, "placed_at": datetime.fromisoformat(row["placed_at"])})
                   for row in read.wagers_json)
    return RoundView(
        id=round_.pk, table_id=round_.table_id, table_name=read.table_name,
        number=round_.number, state=round_.state,
        state_words=round_.get_state_display(), gaming_day=round_.gaming_day,
        currency=round_.currency, rules=round_.rules, table_rules=round_.table_rules,
        banker_is_house=round_.banker_is_house, banker_seat=round_.banker_seat,
        banker_player_id=round_.banker_player_id,
        banker_name=read.banker_name or "",
        banker_cover=round_.banker_cover, third_party_id=round_.third_party_id,
        third_party_name=read.third_party_name or "",
        third_party_licence=read.third_party_licence or "",
        house_stake=round_.house_stake, solvency_required=round_.solvency_required,
        solvency_available=round_.solvency_available, banker_hold_id=round_.banker_hold_id,
        deal_kind=round_.deal_kind, dice=round_.dice,
        counted_position=round_.counted_position, deal_order=round_.deal_order,
        burnt=None if protected else tuple(round_.burnt.split()),
        opened_by=read.opened_by_name, opened_at=round_.opened_at, dealer=read.dealer_name,
        settled_at=round_.settled_at, closed_reason=round_.closed_reason,
        protected=protected, players_set=players_set, wagers=wagers,
        hands=tuple(_hand_view(h, h.position in hidden) for h in
                    sorted(hands, key=lambda h: POSITIONS.index(h.position))),
        events=events,
        pending=tuple(_pending_view(p) for p in read.pending_json),
        settlement=_settlement(round_, hands, read.parties_json),
        unused_stacks=() if protected else _unused_stacks(events),
        game_of=read.game_of or "",
        fairness=None if read.seed_commitment is None else fairness_shown(
            state=round_.state, algorithm=read.seed_algorithm,
            commitment=read.seed_commitment, server_seed=read.seed_server,
            client_seed=read.seed_client, round_id=round_.pk),
    )


@dataclass(frozen=True)
class _Hand:
    """A hand's row as the read brings it."""

    position: str
    cards: str
    high: str
    low: str
    set_by: str
    outcome: str
    high_result: str
    low_result: str


_SET_BY_WORDS = dict(Hand.SetBy.choices)


def _hand_view(hand: _Hand, hidden: bool) -> HandView:
    def cards(text: str) -> tuple[str, ...] | None:
        return None if hidden else tuple(text.split())

    return HandView(position=hand.position, cards=cards(hand.cards), high=cards(hand.high),
                    low=cards(hand.low), set_by=hand.set_by,
                    set_by_words=_SET_BY_WORDS.get(hand.set_by, ""),
                    outcome=hand.outcome, high_result=hand.high_result,
                    low_result=hand.low_result)


def _event_view(row: dict[str, Any], protected: bool, hidden: set[str]) -> EventView:
    kind, data = row["kind"], row["data"]
    if protected and kind == "dealt":
        # The deal's stacks name every position's seven, the bank's included.
        data = {k: v for k, v in data.items() if k not in _DEALT_CARDS}
    elif kind == "hand_set" and data.get("position") in hidden:
        data = {k: v for k, v in data.items() if k not in _HAND_CARDS}
    return EventView(kind=kind, at=datetime.fromisoformat(row["at"]), by=row["by"], data=data)


def _pending_view(row: dict[str, Any]) -> PendingView:
    return PendingView(id=row["id"], action=row["action"], summary=row["summary"],
                       requested_by=row["requested_by"],
                       requested_at=datetime.fromisoformat(row["requested_at"]))


def _unused_stacks(events: Sequence[EventView]) -> tuple[tuple[str, str], ...]:
    dealt = next((e for e in events if e.kind == "dealt"), None)
    if dealt is None or dealt.data.get("deal") != "electronic":
        return ()
    stacks = dealt.data.get("stacks", {})
    return tuple((p, stacks.get(p, "")) for p in dealt.data.get("discarded", []))


def _settlement(round_: Round, hands: list[_Hand],
                party_rows: list[dict[str, Any]]) -> SettlementView | None:
    if round_.state not in Round.State.PLAYED:
        return None
    parties = tuple(PartyView(**{**row, "player_name": row["player_name"] or "",
                                 "player_licence": row["player_licence"] or ""})
                    for row in party_rows)
    rules = round_.table_rules
    by_hand = {h.position: h for h in hands if h.outcome}
    # A position against the bank: a seat, or the house's stake on the dealer's hand.
    stakers = [p for p in parties if p.role == "seat" or (p.role == "house" and p.wager)]
    positions = tuple(PositionView(
        position=p.position, outcome=by_hand[p.position].outcome,
        high=by_hand[p.position].high_result, low=by_hand[p.position].low_result, party=p,
        # A card-room seat's cover, as the settlement stored it.
        cover=PositionCover(Position(p.position), p.wager, p.covered_by_player_dealer,
                            p.covered - p.covered_by_player_dealer)
        if rules.card_room and p.role == "seat" else None)
        for p in sorted(stakers, key=lambda p: POSITIONS.index(p.position))
        if p.position in by_hand)
    return SettlementView(parties=parties, positions=positions, entry_id=round_.entry_id,
                          reversal_entry_id=round_.reversal_entry_id,
                          card_room=rules.card_room,
                          co_banked=rules.co_banks and round_.banker_is_house is False,
                          banker_is_house=bool(round_.banker_is_house))
