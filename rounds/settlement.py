"""The money of one round, worked out from its outcomes (rules §6, §7 and the card room's
section): a pure plan, every line with its reason, that rounds.services writes as ONE ledger
entry.

Pure arithmetic on integers (minor units), no database and no Django at run time: the
services read the round and its table's rules (rounds.rules.TableRules, passed whole) and
hand them over; ``settlement_plan`` picks the table's money model and returns a ``Plan``.

Two money models implement one interface (``MoneyModel``):

``CasinoMoney`` (``bank_mode`` = ``casino``), from each position's point of view against
the bank:
- win: paid 1 to 1 by the bank, less a commission on the win (rules §6);
- push: nothing moves;
- loss: the wager goes to the bank.
A player-banker then pays commission on the bank's NET winnings over the round (rules §7.6):
everything the bank won minus everything it paid out, and nothing when that is zero or
negative. The house's stake against a player-banker pays no commission: it is the house's
own money (rules §7.7 counts the stake's result as house income as it is).

Co-banking (rules §7, table setting ``co_banking``): the house and the player-banker each
cover half the action. This module reads that as: every amount the bank wins or pays is
split, the player-banker's share being half rounded down and the house taking the other
half (so an odd cent falls to the house); the player-banker's commission is on the net of
its own share. The house stakes nothing against a bank it half holds (services refuse a
house stake then).

``CardRoomMoney`` (``bank_mode`` = ``card_room``, docs/rules.md "Card-room mode"): the house
neither banks nor stakes. Each wager is covered in seat order by the player-dealer up to the
cover they declared, the rest by a third-party proposition player (or by nobody: that part
gets no action and is returned). A wager's win or loss is split between the two banks by
their cover of it. The house earns collection fees, due whatever the result: one from the
bank by the table's bands on the total covered action, and a flat one from each wager with
action; a commission (``commission_rate``) may be charged as well, on a player's win and on
each bank's net win.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeVar, overload

from rounds.paigow.showdown import Result

if TYPE_CHECKING:
    # Typing only: this module stays free of Django at run time.
    from rounds.rules import TableRules


class Position(StrEnum):
    """A place dealt a hand: the dealer's, or a seat's ("1"-"6")."""

    DEALER = "dealer"
    SEAT_1 = "1"
    SEAT_2 = "2"
    SEAT_3 = "3"
    SEAT_4 = "4"
    SEAT_5 = "5"
    SEAT_6 = "6"

    @classmethod
    def seat(cls, number: int | str) -> Position:
        return cls(str(number))

    @property
    def seat_number(self) -> int | None:
        return int(self.value) if self.value.isdigit() else None

    @property
    def order(self) -> int:
        """The dealer first, then the seats 1 to 6."""
        return 0 if self is Position.DEALER else int(self.value)


class Party(StrEnum):
    """Whose balance a settlement moves, by role; rounds.accounts maps each to a ledger
    account, in that one place. A seat's value is its position ("1"-"6")."""

    BANK = "bank"              # whoever banks: the table's bankroll, or the player-banker
    HOUSE = "house"            # the table's bankroll, when it stakes against a player-bank
    COMMISSION = "commission"  # the house's commission income
    THIRD_PARTY = "third_party"  # card room: the proposition player covering the rest
    COLLECTION = "collection"  # card room: the table's collection-fee income
    SEAT_1 = "1"
    SEAT_2 = "2"
    SEAT_3 = "3"
    SEAT_4 = "4"
    SEAT_5 = "5"
    SEAT_6 = "6"

    @classmethod
    def seat(cls, number: int | str) -> Party:
        return cls(str(number))

    @classmethod
    def of(cls, position: Position) -> Party:
        """The party a position's own stake belongs to: a seat's player, or — for the
        dealer's hand playing a house stake — the house."""
        return cls.HOUSE if position is Position.DEALER else cls(position.value)

    @property
    def seat_number(self) -> int | None:
        return int(self.value) if self.value.isdigit() else None


# A position's result against the bank, from the position's point of view: the one outcome
# type of the showdown (rounds.paigow), the Hand model's choices and the settlement.
Outcome = Result


class PositionOutcome(NamedTuple):
    """How one position came out against the bank: overall, and for its high and low hands
    when cards were shown down (a results-only round records the outcome alone)."""

    outcome: Outcome
    high: str = ""
    low: str = ""


class Reason(StrEnum):
    """Why a line of a plan moves money."""

    WAGER_WON = "wager_won"                  # a position's win, paid by a bank
    WAGER_LOST = "wager_lost"                # a position's loss, taken by a bank
    COMMISSION = "commission"                # on a position's win (rules §6)
    BANKER_COMMISSION = "banker_commission"  # on a bank's net win (rules §7.6)
    COLLECTION_BANKER = "collection_banker"  # card room: the bank's fee by the bands
    COLLECTION_PLAYER = "collection_player"  # card room: a wager's flat fee


QUARTER = 25   # minor units in 0.25 of a two-decimal currency
UNIT = 100     # minor units in 1.00


def commission_on(amount: int, rate: Decimal, rounding: str) -> int:
    """Commission on a win of ``amount`` minor units at ``rate`` (0.05 = 5%), rounded by the
    table's ``commission_rounding`` setting (rules §6). Never more than the win itself:
    rounding up to a quarter must not turn a tiny win into a loss."""
    return min(_rounded(Decimal(amount) * rate, rounding), amount) if amount > 0 else 0


def _rounded(exact: Decimal, rounding: str) -> int:
    if rounding == "exact":
        # To the currency's minor unit, half up.
        return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))
    if rounding == "up_to_quarter":
        # Up to the next 0.25 (a card-room practice); an exact quarter stays.
        return math.ceil(exact / QUARTER) * QUARTER
    if rounding == "down_to_unit":
        return math.floor(exact / UNIT) * UNIT
    raise ValueError(f"unknown commission rounding {rounding!r}")


# --- the card room's fees and cover ------------------------------------------------------------

@dataclass(frozen=True)
class FeeBand:
    """One band of the bank's collection fee: ``fee`` when the covered action is at most
    ``up_to`` (None: any amount above the bands before)."""

    up_to: int | None
    fee: int


def bands_check(bands: Sequence[FeeBand]) -> str | None:
    """Why a list of fee bands is not a schedule, in words; None when it is: at least one
    band, the limits rising, the last one open (no limit), no negative figure."""
    if not bands:
        return "give at least one band"
    if bands[-1].up_to is not None:
        return ("the last band has no limit (its \"up to\" empty, null in the API): it "
                "takes any larger action")
    limits = [b.up_to for b in bands[:-1]]
    if any(limit is None for limit in limits):
        return "only the last band has no limit"
    known = [limit for limit in limits if limit is not None]
    if any(limit <= 0 for limit in known) or known != sorted(set(known)):
        return "the bands' limits are positive and rise from one band to the next"
    if any(b.fee < 0 for b in bands):
        return "a fee is zero or more"
    return None


def banker_fee(action: int, bands: Sequence[FeeBand]) -> int:
    """The bank's collection fee on ``action`` covered against it: the first band whose
    limit it does not pass; nothing when nothing was covered."""
    if action <= 0:
        return 0
    for band in bands:
        if band.up_to is None or action <= band.up_to:
            return band.fee
    return bands[-1].fee if bands else 0


@dataclass(frozen=True)
class PositionCover:
    """Who covers one wager against a card-room bank."""

    position: Position
    wager: int
    player_dealer: int   # covered by the seated player-dealer
    third_party: int     # covered by the proposition player

    @property
    def action(self) -> int:
        return self.player_dealer + self.third_party

    @property
    def uncovered(self) -> int:
        """Gets no action: returned at settlement, with no fee."""
        return self.wager - self.action


def cover_order(banker_seat: int | None, seats: Iterable[int]) -> list[int]:
    """The order wagers are taken against the bank (card-room mode): in seat order around
    the table from the player-dealer's left, i.e. starting with the seat after the
    banker's and wrapping round; from seat 1 when a proposition player banks alone."""
    start = banker_seat or 0
    return sorted(seats, key=lambda s: (s - start - 1) % 6)


def cover_wagers(*, wagers: Mapping[Position, int], banker_seat: int | None,
                 cover: int | None, third_party: bool) -> dict[Position, PositionCover]:
    """Each wager's cover: the player-dealer (``banker_seat``) takes wagers in cover order
    up to ``cover`` (None: all of them), splitting the one where the cover runs out; the
    proposition player, when there is one, takes the rest; without one the rest is
    uncovered. With no player-dealer (``banker_seat`` None) the proposition player covers
    everything."""
    seats = {p.seat_number: p for p in wagers if p.seat_number is not None}
    if len(seats) != len(wagers):
        raise ValueError("a card-room bank covers seats' wagers only")
    left = 0 if banker_seat is None else (sum(wagers.values()) if cover is None else cover)
    covers: dict[Position, PositionCover] = {}
    for seat in cover_order(banker_seat, seats):
        position = seats[seat]
        wager = wagers[position]
        mine = min(left, wager)
        left -= mine
        covers[position] = PositionCover(position, wager, mine,
                                         wager - mine if third_party else 0)
    return dict(sorted(covers.items(), key=lambda item: item[0].order))


# --- the plan ---------------------------------------------------------------------------------

_T = TypeVar("_T")


class Moves(dict[Party, int]):
    """Signed balance changes per party. Keys are Party members; a reader may look one up
    by its plain name too ("bank", "3"), which is the member's value."""

    def __getitem__(self, key: Party | str) -> int:
        return super().__getitem__(Party(key))

    @overload  # type: ignore[override]
    def get(self, key: Party | str, /) -> int | None: ...
    @overload
    def get(self, key: Party | str, default: int, /) -> int: ...
    @overload
    def get(self, key: Party | str, default: _T, /) -> int | _T: ...

    def get(self, key: Party | str, default: object = None, /) -> object:
        try:
            party = Party(key)
        except ValueError:  # no such party: nothing moved for it
            return default
        return super().get(party, default)


@dataclass(frozen=True)
class Line:
    """One movement of a plan: ``amount`` (+ received, - paid) for ``party``, and why."""

    party: Party
    amount: int
    reason: Reason
    position: Position | None = None  # the position it comes from, when it is one's


class Role(StrEnum):
    """What a party was in a round, as the settlement records it and the reports name it."""

    SEAT = "seat"                    # a seat's player, wagering against the bank
    PLAYER_BANKER = "player_banker"  # a casino table's seated player who banks
    PLAYER_DEALER = "player_dealer"  # a card room's seated player who banks
    PROPOSITION = "proposition"      # a card room's third-party proposition player
    HOUSE = "house"                  # the table's bankroll: it banks, stakes or co-banks

    @classmethod
    def of(cls, party: Party, *, banker_is_house: bool, card_room: bool) -> Role:
        if party.seat_number is not None:
            return cls.SEAT
        if party is Party.THIRD_PARTY:
            return cls.PROPOSITION
        if party is Party.HOUSE or banker_is_house:
            return cls.HOUSE
        if party is Party.BANK:
            return cls.PLAYER_DEALER if card_room else cls.PLAYER_BANKER
        raise ValueError(f"{party} is the house's income, not a party of the play")


@dataclass(frozen=True)
class PartyFigures:
    """One party's side of a round's money, from its own point of view (minor units).

    ``wager``: what it staked against a bank (a seat's wager, the house's stake);
    ``covered``: the action its money met (a bank: the wagers it covered, its share of them
    when co-banked; a staker: the part of its wager a bank covered, the whole wager at a
    casino table); ``won`` and ``paid`` on that action; the ``commission`` and the
    collection ``fee`` it paid. ``net`` = won - paid, ``result`` = net - commission - fee:
    what its account moves by. The house pays neither: the table's commission and
    collection income are the other parties' commission and fees."""

    party: Party
    wager: int = 0
    covered: int = 0
    covered_by_player_dealer: int = 0   # a card-room seat: of covered, the player-dealer's
    won: int = 0
    paid: int = 0
    commission: int = 0
    fee: int = 0

    @property
    def net(self) -> int:
        return self.won - self.paid

    @property
    def result(self) -> int:
        return self.net - self.commission - self.fee


@dataclass(frozen=True)
class PositionResult:
    position: str         # a Position's value ("dealer", "1"-"6")
    wager: int
    outcome: Outcome
    amount: int           # won (+) or lost (-) from the position's view, before commission
    commission: int       # paid by the position to the house
    fee: int = 0          # card room: the position's collection fee
    cover: PositionCover | None = None  # card room: who covered the wager


@dataclass(frozen=True)
class Plan:
    """The money of a round: its lines, each with its reason, and each party's figures (the
    seats in position order, then the house and the banks): what the round's settlement
    stores and every report reads. ``moves`` sums the lines per party; they sum to zero.
    The round's totals below are read from the parties' figures, never kept beside them."""

    lines: tuple[Line, ...]
    positions: list[PositionResult]
    parties: tuple[PartyFigures, ...] = ()
    moves: Moves = field(init=False)

    def __post_init__(self) -> None:
        totals: dict[Party, int] = defaultdict(int)
        for line in self.lines:
            totals[line.party] += line.amount
        if sum(totals.values()) != 0:
            raise AssertionError(f"a plan balances: {dict(totals)}")
        # Signed balance changes per party, none zero.
        object.__setattr__(self, "moves", Moves((p, v) for p, v in totals.items() if v))
        # The parties' figures are the lines told per party: each party's result is its
        # move, and the commission and fees they paid are the house's income.
        income = {Party.COMMISSION, Party.COLLECTION}
        told = {f.party: f.result for f in self.parties}
        moved = {p: v for p, v in self.moves.items() if p not in income}
        if len(told) != len(self.parties) or any(
                told.get(p, 0) != v for p, v in moved.items()) or any(
                v != moved.get(p, 0) for p, v in told.items()):
            raise AssertionError(f"each party's result is its move: {told} against {moved}")
        if sum(f.commission for f in self.parties) != self.moves.get(Party.COMMISSION, 0) \
                or sum(f.fee for f in self.parties) != self.moves.get(Party.COLLECTION, 0):
            raise AssertionError("the parties' commission and fees are the house's income")

    def party(self, party: Party) -> PartyFigures | None:
        return next((f for f in self.parties if f.party is party), None)

    def _of(self, party: Party) -> PartyFigures:
        return self.party(party) or PartyFigures(party)

    # The bank's side: everything it took from losing positions and paid to winners (under
    # co-banking or in a card room, the player-banker's or player-dealer's share), its net
    # and its commission on it.
    @property
    def banker_won(self) -> int:
        return self._of(Party.BANK).won

    @property
    def banker_paid(self) -> int:
        return self._of(Party.BANK).paid

    @property
    def banker_net(self) -> int:
        return self._of(Party.BANK).net

    @property
    def banker_commission(self) -> int:
        return self._of(Party.BANK).commission

    @property
    def house_stake_result(self) -> int:
        """+ the house's stake won, - lost (player-banked rounds only)."""
        house = self._of(Party.HOUSE)
        return house.net if house.wager else 0

    @property
    def house_bank_share(self) -> int:
        """Co-banking: the house's half of the bank's result."""
        house = self._of(Party.HOUSE)
        return house.net if house.covered and not house.wager else 0

    @property
    def player_commission(self) -> int:
        return sum(f.commission for f in self.parties if f.party.seat_number is not None)

    @property
    def third_party_net(self) -> int:
        return self._of(Party.THIRD_PARTY).net

    @property
    def third_party_commission(self) -> int:
        return self._of(Party.THIRD_PARTY).commission

    @property
    def collection_banker(self) -> int:
        return sum(f.fee for f in self.parties if f.party.seat_number is None)

    @property
    def collection_players(self) -> int:
        return sum(f.fee for f in self.parties if f.party.seat_number is not None)

    @property
    def collection_payer(self) -> Party | None:
        """Who paid the bank's fee: the player-dealer, or a proposition player alone."""
        return next((f.party for f in self.parties
                     if f.party.seat_number is None and f.fee), None)


@dataclass(frozen=True)
class RoundStakes:
    """What a money model needs to know of a round, beside its table's rules."""

    stakes: Mapping[Position, int]       # every position against the bank, with its stake
    outcomes: Mapping[Position, Outcome]  # the same positions
    banker_is_house: bool
    house_stake: int = 0
    # card room: each wager's cover, and whether the bank is a seated player-dealer (its
    # fee and net are the BANK party's) or the proposition player alone
    covers: Mapping[Position, PositionCover] | None = None
    player_dealer: bool = True
    third_party: bool = False  # card room: a proposition player covers the rest


class MoneyModel(Protocol):
    """How a table turns a round's outcomes into money."""

    def plan(self, round_: RoundStakes, rules: TableRules) -> Plan: ...


class CasinoMoney:
    """The house or a player banks; commission on wins and on the player-banker's net."""

    def plan(self, round_: RoundStakes, rules: TableRules) -> Plan:
        return _casino_plan(round_, rate=rules.commission_rate,
                            rounding=str(rules.commission_rounding), co_banking=rules.co_banking)


class CardRoomMoney:
    """A seated player-dealer and a proposition player bank; collection fees."""

    def plan(self, round_: RoundStakes, rules: TableRules) -> Plan:
        return _card_room_plan(round_, rate=rules.commission_rate,
                               rounding=str(rules.commission_rounding),
                               bands=rules.collection_banker,
                               player_fee=rules.collection_player)


MODELS: dict[str, MoneyModel] = {"casino": CasinoMoney(), "card_room": CardRoomMoney()}


def settlement_plan(*, stakes: Mapping[Position, int], outcomes: Mapping[Position, Outcome],
                    rules: TableRules, banker_is_house: bool, house_stake: int = 0,
                    covers: Mapping[Position, PositionCover] | None = None,
                    player_dealer: bool = True, third_party: bool = False) -> Plan:
    """The money of a round by its table's money model (``rules.bank_mode``)."""
    if set(stakes) != set(outcomes):
        raise ValueError("every position against the bank needs exactly one outcome")
    model = MODELS[str(rules.bank_mode)]
    return model.plan(RoundStakes(stakes=stakes, outcomes=outcomes,
                                  banker_is_house=banker_is_house, house_stake=house_stake,
                                  covers=covers, player_dealer=player_dealer,
                                  third_party=third_party), rules)


def _casino_plan(round_: RoundStakes, *, rate: Decimal, rounding: str,
                 co_banking: bool) -> Plan:
    banker_is_house = round_.banker_is_house
    co_banking = co_banking and not banker_is_house
    if co_banking and Position.DEALER in round_.stakes:
        raise ValueError("the house stakes nothing against a bank it half holds")
    lines: list[Line] = []
    results: list[PositionResult] = []
    # Each party's figures as they add up: the stakers', the bank's, and the house's half
    # of a co-banked bank.
    figures: dict[Party, dict[str, int]] = {}

    def tally(party: Party, **amounts: int) -> None:
        row = figures.setdefault(party, dict.fromkeys(("wager", "covered", "won", "paid",
                                                       "commission"), 0))
        for name, amount in amounts.items():
            row[name] += amount

    def add(party: Party, amount: int, reason: Reason, position: Position) -> None:
        if amount:
            lines.append(Line(party, amount, reason, position))

    tally(Party.BANK)
    if co_banking:
        tally(Party.HOUSE)
    for position in sorted(round_.stakes, key=lambda p: p.order):
        wager = round_.stakes[position]
        outcome = round_.outcomes[position]
        is_house_stake = position is Position.DEALER
        if is_house_stake and banker_is_house:
            raise ValueError("the dealer's hand is the bank's in a house-banked round")
        party = Party.of(position)
        share = banker_share(wager) if co_banking else wager
        tally(party, wager=wager, covered=wager)
        tally(Party.BANK, covered=share)
        if co_banking:
            tally(Party.HOUSE, covered=wager - share)
        commission = amount = 0
        if outcome is Outcome.WIN:
            # The house's stake pays no commission to the house itself.
            commission = 0 if is_house_stake else commission_on(wager, rate, rounding)
            add(party, wager, Reason.WAGER_WON, position)
            add(party, -commission, Reason.COMMISSION, position)
            add(Party.COMMISSION, commission, Reason.COMMISSION, position)
            add(Party.BANK, -share, Reason.WAGER_WON, position)
            add(Party.HOUSE, -(wager - share), Reason.WAGER_WON, position)
            tally(party, won=wager, commission=commission)
            tally(Party.BANK, paid=share)
            if co_banking:
                tally(Party.HOUSE, paid=wager - share)
            amount = wager
        elif outcome is Outcome.LOSS:
            add(party, -wager, Reason.WAGER_LOST, position)
            add(Party.BANK, share, Reason.WAGER_LOST, position)
            add(Party.HOUSE, wager - share, Reason.WAGER_LOST, position)
            tally(party, paid=wager)
            tally(Party.BANK, won=share)
            if co_banking:
                tally(Party.HOUSE, won=wager - share)
            amount = -wager
        results.append(PositionResult(position.value, wager, outcome, amount, commission))

    won, paid = figures[Party.BANK]["won"], figures[Party.BANK]["paid"]
    if not banker_is_house:
        banker_commission = commission_on(won - paid, rate, rounding)
        tally(Party.BANK, commission=banker_commission)
        if banker_commission:
            lines.append(Line(Party.BANK, -banker_commission, Reason.BANKER_COMMISSION))
            lines.append(Line(Party.COMMISSION, banker_commission, Reason.BANKER_COMMISSION))
    return Plan(lines=tuple(lines), positions=results, parties=_parties(figures))


def _parties(figures: Mapping[Party, Mapping[str, int]]) -> tuple[PartyFigures, ...]:
    """The parties' figures in one order: the seats in position order, then the house, the
    bank, the proposition player."""
    order = [*(Party.seat(n) for n in range(1, 7)), Party.HOUSE, Party.BANK,
             Party.THIRD_PARTY]
    return tuple(PartyFigures(party, **figures[party]) for party in order if party in figures)


def _card_room_plan(round_: RoundStakes, *, rate: Decimal, rounding: str,
                    bands: Sequence[FeeBand], player_fee: int) -> Plan:
    if round_.banker_is_house or Position.DEALER in round_.stakes or round_.house_stake:
        raise ValueError("in a card room the house neither banks nor stakes")
    covers = round_.covers
    if covers is None or set(covers) != set(round_.stakes):
        raise ValueError("a card-room settlement needs each wager's cover")
    if not round_.player_dealer and not round_.third_party:
        raise ValueError("a card-room bank is a player-dealer, a proposition player or both")
    lines: list[Line] = []
    results: list[PositionResult] = []
    # Each party's figures as they add up: the seats', the player-dealer's (BANK) and the
    # proposition player's.
    banks = [b for b, there in ((Party.BANK, round_.player_dealer),
                                (Party.THIRD_PARTY, round_.third_party)) if there]
    figures: dict[Party, dict[str, int]] = {
        bank: dict.fromkeys(("wager", "covered", "won", "paid", "commission", "fee"), 0)
        for bank in banks}
    action_total = 0

    def add(party: Party, amount: int, reason: Reason, position: Position | None) -> None:
        if amount:
            lines.append(Line(party, amount, reason, position))

    for position in sorted(round_.stakes, key=lambda p: p.order):
        cover = covers[position]
        if cover.wager != round_.stakes[position] or cover.uncovered < 0:
            raise ValueError(f"position {position}: the cover does not match the wager")
        if (cover.player_dealer and not round_.player_dealer) or (
                cover.third_party and not round_.third_party):
            raise ValueError(f"position {position}: covered by a bank that is not there")
        outcome = round_.outcomes[position]
        party = Party.of(position)
        action = cover.action
        shares = {Party.BANK: cover.player_dealer, Party.THIRD_PARTY: cover.third_party}
        seat = {"wager": cover.wager, "covered": action,
                "covered_by_player_dealer": cover.player_dealer, "won": 0, "paid": 0,
                "commission": 0, "fee": 0}
        for bank in banks:
            figures[bank]["covered"] += shares[bank]
        commission = amount = fee = 0
        if outcome is Outcome.WIN:
            commission = commission_on(action, rate, rounding)
            add(party, action, Reason.WAGER_WON, position)
            add(party, -commission, Reason.COMMISSION, position)
            add(Party.COMMISSION, commission, Reason.COMMISSION, position)
            for bank, share in shares.items():
                add(bank, -share, Reason.WAGER_WON, position)
                if bank in figures:
                    figures[bank]["paid"] += share
            amount = action
            seat["won"] = action
        elif outcome is Outcome.LOSS:
            add(party, -action, Reason.WAGER_LOST, position)
            for bank, share in shares.items():
                add(bank, share, Reason.WAGER_LOST, position)
                if bank in figures:
                    figures[bank]["won"] += share
            amount = -action
            seat["paid"] = action
        if action:
            # Due whatever the result, and only on a wager with action.
            fee = player_fee
            add(party, -fee, Reason.COLLECTION_PLAYER, position)
            add(Party.COLLECTION, fee, Reason.COLLECTION_PLAYER, position)
        seat.update(commission=commission, fee=fee)
        figures[party] = seat
        action_total += action
        results.append(PositionResult(position.value, cover.wager, outcome, amount,
                                      commission, fee, cover))

    for bank in banks:
        bank_commission = commission_on(figures[bank]["won"] - figures[bank]["paid"], rate,
                                        rounding)
        figures[bank]["commission"] = bank_commission
        add(bank, -bank_commission, Reason.BANKER_COMMISSION, None)
        add(Party.COMMISSION, bank_commission, Reason.BANKER_COMMISSION, None)
    # The bank's fee is the player-dealer's; a proposition player banking alone pays it.
    payer = Party.BANK if round_.player_dealer else Party.THIRD_PARTY
    banker_collection = banker_fee(action_total, bands)
    figures[payer]["fee"] = banker_collection
    add(payer, -banker_collection, Reason.COLLECTION_BANKER, None)
    add(Party.COLLECTION, banker_collection, Reason.COLLECTION_BANKER, None)
    return Plan(lines=tuple(lines), positions=results, parties=_parties(figures))


def positions_against_bank(*, wagers: Mapping[int, int], banker_is_house: bool | None,
                           house_stake: int) -> dict[str, int]:
    """Who plays against the bank, with the stake each risks (rules §5, §7.5): every seat
    with a wager, and — against a player-bank with a house stake — the dealer's hand, which
    plays the stake for the house. In position order: the dealer, then seats 1 to 6. The one
    answer the deal, the settlement, the solvency figures and the screens all use."""
    stakes = {} if banker_is_house is not False or not house_stake else {"dealer": house_stake}
    stakes.update((str(seat), amount) for seat, amount in sorted(wagers.items()))
    return stakes


def positions_in_play(against_bank: Mapping[str, int], *, banker_position: str | None
                      ) -> list[str]:
    """The positions dealt a hand: those against the bank and the bank's own (``None``
    while the banker is not chosen), in position order."""
    playing = set(against_bank) | ({banker_position} if banker_position else set())
    return sorted(playing, key=_position_order)


def banker_share(amount: int) -> int:
    """The player-banker's half of an amount under co-banking (rounded down)."""
    return amount // 2


def _position_order(position: str) -> int:
    return 0 if position == "dealer" else int(position)
