"""What the floor and the table screens show, read once per page as plain rows.

Nothing here writes or decides a round's money: the figures before the deal (what the bank
must cover, what the banker has) are the same sums the services check, shown early so the
dealer sees a refusal coming; the service still decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Max, Prefetch, Q, QuerySet

from casino.models import Player
from casino.selectors import player_account_ref, player_label
from casino.shared import approvals
from casino.shared.money import format_minor
from ledger.models import Account, Hold
from ledger.selectors import entry_get
from rounds import paigow
from rounds.models import DealerShift, Round, RoundParty, Seat, Table, Wager
from rounds.paigow import rotation
from rounds.round_view import (
    HandView,
    PartyView,
    PendingView,
    PositionView,
    RoundView,
    SettlementView,
    WagerView,
    round_view,
    rounds_read,
)
from rounds.selectors import (
    dealer_shift_open,
    round_bank_positions,
    round_bank_table,
    round_positions_against_bank,
    round_positions_in_play,
    table_dealers,
)
from rounds.services.banking import banker_cover_required, card_room_bank
from rounds.services.drop import BUY_IN_ACTION
from rounds.services.play import round_house_stake_cap
from rounds.settlement import cover_order

CHIPS = (1, 5, 10, 25, 100)  # chip values in the currency's unit

STEP_WORDS = {
    Round.State.BETTING: "Betting",
    Round.State.BANKER_SET: "Banker set, ready to deal",
    Round.State.DEALT: "Dealt, setting the hands",
    Round.State.SETTLED: "Settled",
    Round.State.VOIDED: "Voided",
    Round.State.REVERSED: "Settled, then reversed",
}


@dataclass
class SeatRow:
    number: int
    player: Player | None
    available: int | None = None       # the player's funds not held, minor units
    wager: WagerView | None = None
    is_banker: bool = False
    rebet: int | None = None           # the wager Re-Bet would repeat
    label: str = ""                    # the player's name at this table (player_label)


@dataclass
class Exposure:
    """The bank's side before the deal: what it plays against and who covers it."""

    against_bank: int                  # every wager against the bank plus the house stake
    required: int | None = None        # the player-banker's cover (None: the house banks)
    available: int | None = None       # the banker's funds not held, as on the seat row
    banker_name: str = ""
    held: bool = False                 # the cover is held (from the deal on)
    card_room: CardRoomCover | None = None   # a card room's covers and banks

    @property
    def shortfall(self) -> int:
        if self.card_room is not None:
            return max((p.shortfall for p in self.card_room.parties), default=0)
        if self.held or self.required is None or self.available is None:
            return 0
        return max(0, self.required - self.available)

    @property
    def short_name(self) -> str:
        """Who is short, for the words under the Deal button."""
        if self.card_room is not None:
            return next((p.name for p in self.card_room.parties if p.shortfall),
                        self.banker_name)
        return self.banker_name


@dataclass
class CoverRow:
    """Who covers one seat's wager in a card room, before the deal."""

    label: str                         # "Seat 3 · Chris"
    wager: int
    player_dealer: int
    third_party: int
    fee: int                           # the wager's collection fee (none without action)

    @property
    def uncovered(self) -> int:
        return self.wager - self.player_dealer - self.third_party


@dataclass
class BankParty:
    """A card-room bank's side before the deal: what it must have (its cover, and the
    bank's fee when it pays it) and what it has."""

    role: str                          # "Player-dealer", "Proposition player"
    name: str
    covers: int
    fee: int
    available: int
    held: bool = False

    @property
    def required(self) -> int:
        return self.covers + self.fee

    @property
    def shortfall(self) -> int:
        return 0 if self.held else max(0, self.required - self.available)


@dataclass
class CardRoomCover:
    rows: list[CoverRow]
    parties: list[BankParty]
    bank_fee: int                      # the bank's collection fee on the action covered
    player_fee: int                    # each wager with action

    @property
    def action(self) -> int:
        return sum(r.player_dealer + r.third_party for r in self.rows)

    @property
    def uncovered(self) -> int:
        return sum(r.uncovered for r in self.rows)


@dataclass
class HandRow:
    position: str
    label: str                         # "Seat 3 · Anna", "Dealer"
    hand: HandView                     # as game protection lets the dealer see it
    is_banker: bool
    can_set: bool

    @property
    def hidden(self) -> bool:
        return self.hand.hidden

    @property
    def cards(self) -> list[str]:
        """The seven cards dealt, highest first, as a dealer fans them to split them."""
        if not self.hand.cards:  # hidden, or a results-only round deals no cards
            return []
        return [c.code for c in paigow.sort_cards(paigow.parse_cards(self.hand.cards))]


@dataclass
class ResultRow:
    """A position's line of a settlement as the screens show it (its party's figures)."""

    label: str
    position: PositionView

    @property
    def outcome(self) -> str:
        return self.position.outcome

    @property
    def high(self) -> str:
        return self.position.high

    @property
    def low(self) -> str:
        return self.position.low

    @property
    def party(self) -> PartyView:
        return self.position.party

    @property
    def uncovered(self) -> int:
        return self.position.uncovered


def result_rows(settlement: SettlementView, names: dict[str, str]) -> list[ResultRow]:
    """Each position's line of a settlement as the table screen and the round's page show
    it."""
    return [ResultRow(label=position_label(p.position, names), position=p)
            for p in settlement.positions]


@dataclass
class PartyRow:
    """A bank's (or the house's) line of a settlement: its stored figures, named."""

    role: str                          # "Player-banker", "The house", ...
    name: str
    party: PartyView


def party_rows(round_: RoundView, settlement: SettlementView) -> list[PartyRow]:
    """The banks' and the house's lines of a settled round, as stored (every seat's is its
    position's line)."""
    rows = []
    for party in settlement.parties:
        if party.role == "seat":
            continue
        if party.role == "house":
            what = ("the bank" if settlement.banker_is_house else
                    "its stake on the dealer's hand" if party.wager else
                    "its half of the bank")
            rows.append(PartyRow(role=RoundParty.Role.HOUSE.label, name=what, party=party))
        elif party.role == "proposition":
            rows.append(PartyRow(role=RoundParty.Role.PROPOSITION.label,
                                 name=f"{party.player_name} (licence {party.player_licence})",
                                 party=party))
        else:
            rows.append(PartyRow(role=RoundParty.Role(party.role).label,
                                 name=f"Seat {party.position} · {party.player_name}",
                                 party=party))
    return rows


@dataclass
class MoneyLine:
    """One amount on a preview: whose account, what, how much."""

    account: str
    what: str
    amount: int


@dataclass
class TableScreen:
    table: Table
    round: RoundView | None            # as round_for lets the viewer see it
    seats: list[SeatRow]
    step: str
    banker_label: str = ""
    exposure: Exposure | None = None
    hands: list[HandRow] = field(default_factory=list)
    players_set: bool = False
    results: list[ResultRow] = field(default_factory=list)
    unused_stacks: tuple[tuple[str, str], ...] = ()
    burnt: tuple[str, ...] = ()
    positions_in_play: list[str] = field(default_factory=list)
    # Requests about the round waiting for a second person: its next step waits for them.
    pending: tuple[PendingView, ...] = ()
    settlement: SettlementView | None = None
    parties: list[PartyRow] = field(default_factory=list)   # the banks and the house
    # Who is signed in as the table's dealer now (rounds.services.dealers), if anyone.
    dealer_shift: DealerShift | None = None

    @property
    def uncovered(self) -> int:
        """A card room's wagers that got no action in the settled round (returned)."""
        return sum(r.uncovered for r in self.results) \
            if self.settlement is not None and self.settlement.card_room else 0

    @property
    def is_open(self) -> bool:
        return self.round is not None and self.round.is_open

    @property
    def currency(self) -> str:
        return self.round.currency if self.round is not None else self.table.currency


def _tables() -> Any:
    return Table.objects.prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("number")))


def _current_rounds(viewer: User, tables: Sequence[Table]) -> dict[int, RoundView]:
    """Each table's round in play, else its last one (so its result stays on screen), as
    the viewer may see it: one read for every table."""
    last = (Round.objects.filter(table__in=tables).values("table_id").order_by("table_id")
            .annotate(last=Max("number")).values_list("table_id", "last"))
    numbers = dict(last)
    if not numbers:
        return {}
    each = Q()
    for table_id, number in numbers.items():
        each |= Q(table_id=table_id, number=number)
    return {r.table_id: round_view(r) for r in rounds_read(viewer).filter(each)}


def _available(player_ids: Iterable[int]) -> dict[int, int]:
    """Each player's available funds (posted minus held), one query."""
    refs = {player_account_ref(pk): pk for pk in player_ids}
    rows = Account.objects.filter(kind=Account.Kind.PLAYER, ref__in=list(refs)).values_list(
        "ref", "posted", "held")
    return {refs[ref]: posted - held for ref, posted, held in rows}


def _last_played_wagers(table_id: int, player_ids: Sequence[int]) -> dict[int, int]:
    """Each player's wager in their last played hand at the table (what Re-Bet repeats)."""
    found: dict[int, int] = {}
    for player_id, amount in (Wager.objects.filter(
            round__table_id=table_id, player_id__in=player_ids, state=Wager.State.ACTIVE,
            round__state__in=Round.State.PLAYED).order_by("-round__number")
            .values_list("player_id", "amount")):
        found.setdefault(player_id, amount)
    return found


def banker_label(round_: RoundView | None) -> str:
    if round_ is None or round_.banker_is_house is None:
        return ""
    if round_.banker_is_house:
        return "The house"
    third = round_.third_party_name
    if round_.banker_player_id is None:   # a card room's proposition player banking alone
        return f"{third} (proposition player) banks alone"
    label = f"Seat {round_.banker_seat} · {round_.banker_name}"
    if round_.table_rules.card_room:
        cover = ("all the action" if round_.banker_cover is None
                 else f"up to {format_minor(round_.banker_cover, round_.currency)} "
                      f"{round_.currency}")
        label += f", player-dealer covering {cover}"
        if third:
            label += f"; {third} (proposition player) covers the rest"
    return label


def exposure(round_: RoundView, available: dict[int, int] | None = None) -> Exposure:
    """The bank's exposure and, for a player-banker, the solvency figures (rules §7.4)."""
    wagers = list(round_.active_wagers)
    stakes = sum(round_positions_against_bank(round_, wagers).values())
    if round_.banker_is_house is not False:
        return Exposure(against_bank=stakes)
    if round_.table_rules.card_room:
        # Two banks may share it, each with its own figures (card_room_exposure).
        return card_room_exposure(round_, wagers, stakes, available)
    banker = round_.banker_player_id
    assert banker is not None
    # The banker's funds not held now: the same figure as the banker's seat row, before the
    # deal and after it (when the cover is held and so no longer available).
    funds = (available or {}).get(banker)
    if funds is None:
        funds = _available([banker]).get(banker, 0)
    if round_.solvency_required is not None:  # recorded at the deal, the cover held
        return Exposure(against_bank=stakes, required=round_.solvency_required,
                        available=funds, banker_name=round_.banker_name, held=True)
    required = banker_cover_required(wagers=[w.amount for w in wagers],
                                     house_stake=round_.house_stake,
                                     co_banking=round_.table_rules.co_banking)
    return Exposure(against_bank=stakes, required=required, available=funds,
                    banker_name=round_.banker_name)


def card_room_exposure(round_: RoundView, wagers: list[WagerView], stakes: int,
                       available: dict[int, int] | None) -> Exposure:
    """A card room's bank before the deal: who covers which seat, in the service's order
    (rounds.services.banking.round_covers), the fees, and each bank's solvency as
    card_room_cover_hold will check it."""
    bank = card_room_bank(round_, wagers)
    by_seat = {w.seat: w for w in wagers}
    rows = []
    # In the order the wagers are taken: from the player-dealer's left, round the table.
    order = cover_order(round_.banker_seat, [p.seat_number or 0 for p in bank.covers])
    for position, cover in sorted(bank.covers.items(),
                                  key=lambda pc: order.index(pc[0].seat_number or 0)):
        wager = by_seat[position.seat_number] if position.seat_number else None
        label = f"Seat {position.value} · {wager.player_name}" if wager else position.value
        rows.append(CoverRow(label=label, wager=cover.wager, player_dealer=cover.player_dealer,
                             third_party=cover.third_party,
                             fee=bank.player_fee if cover.action else 0))
    people = [p for p in (round_.banker_player_id, round_.third_party_id) if p is not None]
    funds = dict(available or {})
    missing = [p for p in people if p not in funds]
    funds.update(_available(missing) if missing else {})
    held = round_.solvency_required is not None
    parties = []
    if round_.banker_player_id is not None:
        parties.append(BankParty(role="Player-dealer", name=round_.banker_name,
                                 covers=bank.player_dealer,
                                 fee=bank.player_dealer_required - bank.player_dealer,
                                 held=held, available=funds.get(round_.banker_player_id, 0)))
    if round_.third_party_id is not None:
        parties.append(BankParty(role="Proposition player", name=round_.third_party_name,
                                 covers=bank.third_party,
                                 fee=bank.third_party_required - bank.third_party, held=held,
                                 available=funds.get(round_.third_party_id, 0)))
    first = parties[0] if parties else None
    return Exposure(against_bank=stakes, required=first.required if first else None,
                    available=first.available if first else None,
                    banker_name=first.name if first else "", held=held,
                    card_room=CardRoomCover(rows=rows, parties=parties, bank_fee=bank.fee,
                                            player_fee=bank.player_fee))


def _seat_rows(table: Table, round_: RoundView | None) -> list[SeatRow]:
    seats = list(table.seats.all())
    players = [s.player for s in seats if s.player is not None]
    funds = _available([p.pk for p in players])
    rebets = _last_played_wagers(table.pk, [p.pk for p in players])
    wagers = {w.seat: w for w in round_.active_wagers} if round_ is not None else {}
    rows = []
    for seat in seats:
        player = seat.player
        rows.append(SeatRow(
            number=seat.number, player=player,
            available=funds.get(player.pk) if player else None,
            wager=wagers.get(seat.number),
            # The banker is a player, not a seat number: after a seat change the tag stays
            # with the player who banked.
            is_banker=bool(round_ and player and round_.banker_is_house is False
                           and round_.banker_player_id == player.pk),
            rebet=rebets.get(player.pk) if player else None,
            label=player_label(player, seat=seat.number, among=players) if player else "",
        ))
    return rows


def _step(round_: RoundView | None) -> str:
    if round_ is None:
        return "No round yet"
    if round_.state == Round.State.DEALT and round_.players_set and round_.hands:
        return "Dealt, the players' hands are set"
    return STEP_WORDS.get(Round.State(round_.state), round_.state)


def floor(viewer: User) -> list[TableScreen]:
    """Every table with its seats and the round in play (or the last one)."""
    tables = list(_tables().order_by("name", "id"))
    rounds = _current_rounds(viewer, tables)
    dealers = table_dealers([t.pk for t in tables])
    screens = []
    for table in tables:
        round_ = rounds.get(table.pk)
        seats = _seat_rows(table, round_)
        screens.append(TableScreen(
            table=table, round=round_, seats=seats, step=_step(round_),
            banker_label=banker_label(round_),
            exposure=exposure(round_, {s.player.pk: s.available or 0 for s in seats
                                       if s.player}) if round_ is not None
            and round_.is_open else None, dealer_shift=dealers.get(table.pk),
        ))
    return screens


def positions_in_play(round_: RoundView) -> list[str]:
    """The positions dealt a hand: each wager, the house stake, and the banker."""
    return round_positions_in_play(round_, list(round_.active_wagers))


def outcome_positions(round_: RoundView) -> list[str]:
    """The positions a results-only round records an outcome for: those playing against
    the bank (the banker's own position has none)."""
    return list(round_.against_bank)


def position_label(position: str, names: dict[str, str]) -> str:
    if position == "dealer":
        return "Dealer"
    name = names.get(position, "")
    return f"Seat {position} · {name}" if name else f"Seat {position}"


def round_names(round_: RoundView) -> dict[str, str]:
    """Who played each seat in this round (a player may have left the seat since)."""
    names = {str(w.seat): w.player_name for w in round_.wagers}
    if round_.banker_seat is not None and round_.banker_name:
        names[str(round_.banker_seat)] = round_.banker_name
    return names


def table_screen(*, table_id: int, viewer: User) -> TableScreen:
    """The dealer's screen of one table: its seats and the round in play (or the last one)
    as round_for lets the viewer see it (game protection is the reader's)."""
    table = _tables().get(pk=table_id)
    round_ = _current_rounds(viewer, [table]).get(table.pk)
    seats = _seat_rows(table, round_)
    screen = TableScreen(table=table, round=round_, seats=seats, step=_step(round_),
                         banker_label=banker_label(round_),
                         dealer_shift=dealer_shift_open(table_id=table.pk))
    if round_ is None:
        return screen
    screen.pending = round_.pending
    names = {str(s.number): s.player.name for s in seats if s.player}
    names.update(round_names(round_))
    if round_.is_open:
        screen.exposure = exposure(round_, {s.player.pk: s.available or 0 for s in seats
                                            if s.player})
        screen.positions_in_play = positions_in_play(round_)
    bank = round_.banker_position if round_.banker_is_house is not None else ""
    guarded = round_bank_positions(round_)
    screen.players_set = round_.players_set
    for hand in round_.hands:
        if hand.cards == ():  # a results-only round: an outcome, no cards to show
            continue
        protected = hand.position in guarded
        screen.hands.append(HandRow(
            position=hand.position, label=position_label(hand.position, names), hand=hand,
            is_banker=hand.position == bank,
            can_set=(round_.state == Round.State.DEALT and hand.position != "dealer"
                     # the service's order (rules §4): players until all are set, then
                     # the bank's hand only
                     and (round_.players_set if protected else not round_.players_set)),
        ))
    if round_.settlement is not None:
        screen.settlement = round_.settlement
        screen.results = result_rows(round_.settlement, names)
        screen.parties = party_rows(round_, round_.settlement)
    screen.unused_stacks = round_.unused_stacks
    screen.burnt = round_.burnt or ()
    return screen


# --- the banker: the offer the rotation makes -------------------------------------------------

@dataclass
class BankerOffer:
    seat: int | None                   # the seat offered the bank, None: only the house
    name: str = ""
    why_none: str = ""
    stake_cap: int = 0                 # the highest house stake this banker may face
    stake_cap_rule: str = ""
    declined: list[str] = field(default_factory=list)  # "seat 1 · Anna", in order
    # A card room: no house bank; the proposition players who may cover or bank alone.
    card_room: bool = False
    propositions: list[PropositionChoice] = field(default_factory=list)


@dataclass
class PropositionChoice:
    """A registered proposition player as the dealer picks one: its licence and funds."""

    pk: int
    name: str
    licence: str
    available: int


def proposition_choices(*, currency: str) -> list[PropositionChoice]:
    """The registered proposition players of a currency, by name, with their available
    funds (posted minus held)."""
    players = list(Player.objects.filter(kind=Player.Kind.PROPOSITION, currency=currency)
                   .order_by("name", "id")[:100])
    funds = _available([p.pk for p in players])
    return [PropositionChoice(pk=p.pk, name=p.name, licence=p.licence,
                              available=funds.get(p.pk, 0)) for p in players]


def banker_offer(round_: Round | RoundView) -> BankerOffer:
    """The seated player the rotation offers the bank next (rules §7.1): rounds.paigow.rotation
    decides, from the round as it is now, the declines its events record among it. The
    service asks the rotation again when the offer is taken or declined."""
    table = round_bank_table(round_)
    offer = rotation.bank_offer(table)
    declined = [f"seat {s} · {table.seated[s]}" for s in table.declined]
    if round_.table_rules.card_room:
        return BankerOffer(seat=offer.seat, name=table.seated.get(offer.seat or 0, ""),
                           why_none=offer.why_none, declined=declined, card_room=True,
                           propositions=proposition_choices(currency=round_.currency))
    if offer.seat is None:
        return BankerOffer(seat=None, declined=declined, why_none=offer.why_none)
    seat = Seat.objects.select_related("player").get(table_id=round_.table_id,
                                                     number=offer.seat)
    assert seat.player is not None  # the rotation offers only a seated player
    cap = round_house_stake_cap(round_, seat.player)
    return BankerOffer(seat=offer.seat, name=table.seated[offer.seat], stake_cap=cap.amount,
                       stake_cap_rule=cap.words, declined=declined)


# --- previews of what a pit boss's correction moves ----------------------------------------

def void_preview(*, round_id: int) -> list[MoneyLine]:
    """The holds a void would release: every wager's and the banker's cover."""
    holds = (Hold.objects.filter(ref=f"round:{round_id}", status=Hold.Status.OPEN)
             .select_related("account").order_by("id"))
    return [MoneyLine(account=h.account.name or str(h.account), what=h.memo, amount=h.amount)
            for h in holds]


def reverse_preview(*, entry_id: int | None) -> list[MoneyLine]:
    """Every amount a reversal moves back: the settlement entry's lines, negated."""
    if entry_id is None:
        return []
    entry = entry_get(entry_id=entry_id)
    return [MoneyLine(account=line.account.name or str(line.account),
                      what=line.account.get_kind_display(), amount=-line.amount)
            for line in entry.lines.all()]


def seatable_players(*, table: Table) -> list[Player]:
    """Players of the table's currency who sit at no table (a player sits at one table at a
    time: the seating service refuses the others in words), by name."""
    seated = Seat.objects.filter(player__isnull=False).values_list("player_id")
    return list(Player.objects.filter(currency=table.currency, kind=Player.Kind.PLAYER)
                .exclude(pk__in=seated).order_by("name", "id")[:500])


# --- the card picker --------------------------------------------------------------------------

def deck_codes() -> list[str]:
    """The 53 cards as a dealer sorts them: suit by suit, ace down to two, the joker last."""
    cards = [c for c in paigow.DECK if not c.is_joker]
    cards.sort(key=lambda c: ("SHDC".index(c.suit), -c.rank))
    return [c.code for c in cards] + [paigow.JOKER.code]


@dataclass(frozen=True)
class BuyInWaiting:
    """A buy-in past the line, waiting for a pit boss: where, how much, and its request."""

    approval_id: int
    seat: int
    player_name: str
    amount: int
    summary: str
    requested_by: str


def buy_ins_waiting(*, table_id: int) -> list[BuyInWaiting]:
    """The table's buy-ins waiting for a pit boss's approval, oldest first."""
    waiting = approvals.approvals_pending_under(prefix=f"table:{table_id}:",
                                                action=BUY_IN_ACTION)
    names = dict(Player.objects.filter(pk__in={a.params["player_id"] for a in waiting})
                 .values_list("pk", "name"))
    return [BuyInWaiting(approval_id=a.pk, seat=int(a.params["seat"]),
                         player_name=names.get(a.params["player_id"], ""),
                         amount=int(a.params["amount_minor"]), summary=a.summary,
                         requested_by=a.requested_by.get_username())
            for a in waiting]


def table_games_in_play(*, table_id: int) -> QuerySet[Round]:
    """A self-service table's games in play now, oldest first, with their players and
    wagers (the pit's view of the table)."""
    return (Round.objects.filter(table_id=table_id, player__isnull=False,
                                 state__in=Round.State.OPEN)
            .select_related("player").prefetch_related("wagers").order_by("opened_at", "id"))
