"""Write services of play: tables' settings, seats, and every step of a round.

Each round step locks the round row first (``select_for_update``), so two steps of one
round never interleave, then checks the state and refuses out-of-order calls before it
writes anything. Money moves only through ledger.services, inside the same transaction:
wagers and the banker's cover are holds, the settlement is one entry that resolves every
hold. Rules references are to shared/rules/paigow.md.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.db import update_rows
from casino.errors import Conflict, NotFound, ValidationFailed
from casino.gaming_day import gaming_day_of
from casino.models import Player, Table
from ledger import services as ledger
from ledger.money import MAX_MINOR, format_minor
from ledger.selectors import account_balance
from rounds import accounts, paigow
from rounds.errors import (
    BadCards,
    BankerInsolvent,
    BankerNotAllowed,
    FoulRefused,
    HandsMissing,
    OutOfLimits,
    RoundNotFound,
    SeatProblem,
    TableBusy,
    WrongState,
)
from rounds.models import Hand, Round, RoundEvent, Seat, TableSettingsChange, Wager
from rounds.settlement import banker_share
from rounds.settlement import settle as settle_money

OPEN_STATES = (Round.State.BETTING, Round.State.BANKER_SET, Round.State.DEALT)
# The bank's side of a round (six wagers plus a house stake) is one ledger amount.
MAX_TABLE_BET = MAX_MINOR // 8

# The table settings a round copies when it opens (rules §6-§9), and that a pit boss may
# change between rounds.
RULE_FIELDS = (
    "min_bet", "max_bet", "commission_rate", "commission_rounding", "wheel", "house_way",
    "bank_rotation", "banker_must_have_played", "house_stake_cap", "foul_policy",
    "co_banking", "first_stack",
)
TABLE_FIELDS = ("name", "currency", "is_open", *RULE_FIELDS)


# --- tables and seats ----------------------------------------------------------------------

def _check_table_rules(table: Table) -> None:
    if table.house_way not in paigow.HOUSE_WAYS:
        raise ValidationFailed(
            f"unknown house way {table.house_way!r}; one of {', '.join(paigow.HOUSE_WAYS)}",
            detail={"fields": {"house_way": [f"choose one of {sorted(paigow.HOUSE_WAYS)}"]}},
        )
    if table.min_bet <= 0 or table.max_bet < table.min_bet:
        raise ValidationFailed(
            "the table limits need 0 < min_bet <= max_bet",
            detail={"fields": {"max_bet": ["must be at least min_bet"]}},
        )
    if table.max_bet > MAX_TABLE_BET:
        # Six wagers and a house stake at the maximum must still fit in one ledger amount,
        # or a round within the limits could never be settled.
        raise ValidationFailed(
            f"max_bet may be at most {format_minor(MAX_TABLE_BET, table.currency)}",
            detail={"fields": {"max_bet": [
                f"at most {format_minor(MAX_TABLE_BET, table.currency)}"]}},
        )
    if not Decimal(0) <= Decimal(table.commission_rate) < Decimal(1):
        raise ValidationFailed("commission_rate is a fraction from 0 up to 1 (0.05 = 5%)")
    table.full_clean(validate_unique=False, validate_constraints=False)


@transaction.atomic
def table_create(*, by: User, name: str, **settings: Any) -> Table:
    """A new table with six empty seats; settings not given take the rules' defaults."""
    unknown = set(settings) - set(TABLE_FIELDS)
    if unknown:
        raise ValidationFailed(f"unknown table settings: {', '.join(sorted(unknown))}")
    table = Table(name=name, **settings)
    _check_table_rules(table)
    try:
        with transaction.atomic():
            table.save()
    except IntegrityError as exc:
        raise Conflict(f"a table named {name!r} exists already", code="duplicate") from exc
    Seat.objects.bulk_create(Seat(table=table, number=n) for n in range(1, 7))
    accounts.table_accounts(table)
    return table


@transaction.atomic
def table_update(*, table_id: int, by: User, changes: Mapping[str, Any]) -> Table:
    """Change a table's settings between rounds; every change is recorded (who, when, what).

    Locks the table row, so no round can open while the change is made.
    """
    table = _lock_table(table_id)
    unknown = set(changes) - set(TABLE_FIELDS) - {"currency"}
    if unknown:
        raise ValidationFailed(f"unknown table settings: {', '.join(sorted(unknown))}")
    if "currency" in changes and changes["currency"] != table.currency:
        raise ValidationFailed("a table's currency cannot change; open a new table")
    if Round.objects.filter(table=table, state__in=OPEN_STATES).exists():
        raise TableBusy("settings change only between rounds: this table has a round in play")
    diff: dict[str, list[Any]] = {}
    for field, value in changes.items():
        old = getattr(table, field)
        if old != value:
            diff[field] = [_jsonable(old), _jsonable(value)]
            setattr(table, field, value)
    if not diff:
        return table
    _check_table_rules(table)
    try:
        with transaction.atomic():
            table.save(update_fields=list(diff))
    except IntegrityError as exc:
        raise Conflict("another table has that name", code="duplicate") from exc
    TableSettingsChange.objects.create(table=table, changed_by=by, changes=diff)
    return table


def _jsonable(value: Any) -> Any:
    return str(value) if isinstance(value, Decimal) else value


def _lock_table(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound(f"no table #{table_id}") from None


@transaction.atomic
def seat_take(*, table_id: int, number: int, player_id: int, by: User) -> Seat:
    """Seat a player. Locks the table's seat rows in primary-key order."""
    table = _lock_table(table_id)
    _check_seat_number(number)
    seats = {s.number: s for s in Seat.objects.select_for_update().filter(table=table)
             .order_by("pk")}
    try:
        player = Player.objects.get(pk=player_id)
    except Player.DoesNotExist:
        raise NotFound(f"no player #{player_id}") from None
    if player.currency != table.currency:
        raise SeatProblem(
            f"{player.name} plays in {player.currency}; this table plays in {table.currency}"
        )
    seat = seats[number]
    if seat.player_id == player.pk:
        return seat
    if seat.player_id is not None:
        raise SeatProblem(f"seat {number} is taken; the player there must leave first",
                          detail={"seat": number, "player": seat.player_id})
    elsewhere = [s.number for s in seats.values() if s.player_id == player.pk]
    if elsewhere:
        raise SeatProblem(f"{player.name} already sits at seat {elsewhere[0]} of this table",
                          detail={"seat": elsewhere[0]})
    seat.player = player
    seat.since = timezone.now()
    seat.save(update_fields=["player", "since"])
    return seat


@transaction.atomic
def seat_leave(*, table_id: int, number: int, by: User) -> Seat:
    table = _lock_table(table_id)
    _check_seat_number(number)
    seat = Seat.objects.select_for_update().get(table=table, number=number)
    if seat.player_id is None:
        return seat
    open_round = Round.objects.filter(table=table, state__in=OPEN_STATES).first()
    if open_round is not None:
        if open_round.wagers.filter(seat=number, state=Wager.State.ACTIVE).exists():
            raise SeatProblem(f"seat {number} has a wager in round {open_round.number}; "
                              "clear it or finish the round first")
        if open_round.banker_seat == number:
            raise SeatProblem(f"seat {number} holds the bank in round {open_round.number}")
    seat.player = None
    seat.since = None
    seat.save(update_fields=["player", "since"])
    return seat


def _check_seat_number(number: int) -> None:
    if number not in range(1, 7):
        raise ValidationFailed(f"seats are numbered 1 to 6, not {number}",
                               detail={"fields": {"seat": ["a seat from 1 to 6"]}})


# --- the round: helpers ---------------------------------------------------------------------

def _lock_round(round_id: int) -> Round:
    try:
        return Round.objects.select_for_update().get(pk=round_id)
    except Round.DoesNotExist:
        raise RoundNotFound(f"no round #{round_id}") from None


def _require(round_: Round, *states: str, doing: str) -> None:
    if round_.state not in states:
        raise WrongState(
            f"cannot {doing}: round {round_.number} is {round_.state!r}, "
            f"and this needs {' or '.join(repr(s) for s in states)}",
            detail={"state": round_.state, "allowed": list(states)},
        )


def _event(round_: Round, kind: str, by: User, **data: Any) -> None:
    RoundEvent.objects.create(round=round_, kind=kind, by=by, data=data)


def _money(round_: Round, amount: int) -> str:
    return format_minor(amount, round_.currency)


def _active_wagers(round_: Round) -> list[Wager]:
    return list(round_.wagers.filter(state=Wager.State.ACTIVE).order_by("seat"))


# A reversed round was still played: it counts for the rotation and eligibility rules.
PLAYED_STATES = (Round.State.SETTLED, Round.State.REVERSED)


def _previous_played(round_: Round) -> Round | None:
    return (Round.objects.filter(table_id=round_.table_id, state__in=PLAYED_STATES,
                                 number__lt=round_.number)
            .order_by("-number").first())


def _last_house_banked(round_: Round) -> Round | None:
    return (Round.objects.filter(table_id=round_.table_id, state__in=PLAYED_STATES,
                                 banker_is_house=True, number__lt=round_.number)
            .order_by("-number").first())


# --- the round: steps ----------------------------------------------------------------------

@transaction.atomic
def round_open(*, table_id: int, by: User) -> Round:
    """Open the next round at a table, copying its settings. Locks the table row, which
    serialises round numbering and settings changes."""
    table = _lock_table(table_id)
    if not table.is_open:
        raise Conflict(f"{table.name} is closed", code="table_closed")
    if Round.objects.filter(table=table, state__in=OPEN_STATES).exists():
        raise TableBusy(f"{table.name} has a round in play; settle or void it first")
    last = Round.objects.filter(table=table).order_by("-number").values_list(
        "number", flat=True).first()
    rules = {field: _jsonable(getattr(table, field)) for field in RULE_FIELDS}
    round_ = Round.objects.create(
        table=table, number=(last or 0) + 1, gaming_day=gaming_day_of(),
        currency=table.currency, rules=rules, opened_by=by,
    )
    _event(round_, "opened", by, rules=rules)
    return round_


@transaction.atomic
def wager_place(*, round_id: int, seat: int, amount: int, by: User) -> Wager:
    """A seat's wager against the bank, within the table limits, held on the player's
    account at once. Locks the round, then (in ledger) the player's account."""
    round_ = _lock_round(round_id)
    _require(round_, Round.State.BETTING, doing="place a wager")
    _check_seat_number(seat)
    player = _seated_player(round_, seat)
    low, high = round_.rules["min_bet"], round_.rules["max_bet"]
    if not low <= amount <= high:
        raise OutOfLimits(
            f"a wager at this table is from {_money(round_, low)} to {_money(round_, high)}",
            detail={"min_bet": _money(round_, low), "max_bet": _money(round_, high),
                    "amount": _money(round_, amount)},
        )
    if round_.wagers.filter(seat=seat, state=Wager.State.ACTIVE).exists():
        raise Conflict(f"seat {seat} has a wager in this round already; clear it first",
                       code="wager_exists")
    account = accounts.player_account(player)
    hold = ledger.hold_place(account_id=account.pk, amount=amount, by=by,
                             ref=f"round:{round_.pk}", memo=f"wager, seat {seat}")
    wager = Wager.objects.create(round=round_, seat=seat, player=player, amount=amount,
                                 hold_id=hold.pk, placed_by=by)
    _event(round_, "wager_placed", by, seat=seat, player=player.pk,
           amount=_money(round_, amount), hold=hold.pk)
    return wager


@transaction.atomic
def wager_clear(*, round_id: int, seat: int, by: User) -> Wager:
    """Take a wager back before the deal; its hold is released."""
    round_ = _lock_round(round_id)
    _require(round_, Round.State.BETTING, doing="clear a wager")
    wager = round_.wagers.filter(seat=seat, state=Wager.State.ACTIVE).first()
    if wager is None:
        raise NotFound(f"seat {seat} has no wager in this round")
    ledger.hold_release(hold_id=wager.hold_id, by=by)
    wager.state = Wager.State.CLEARED
    wager.save(update_fields=["state"])
    _event(round_, "wager_cleared", by, seat=seat, amount=_money(round_, wager.amount))
    return wager


@transaction.atomic
def wager_rebet(*, round_id: int, seat: int, by: User) -> Wager:
    """Repeat the wager the seat's player played in their last hand at this table ("Re-Bet",
    German seed): a wager cleared before a deal, or of a voided round, was never played.
    Locks the round (wager_place takes the same lock again in this transaction)."""
    round_ = _lock_round(round_id)
    _require(round_, Round.State.BETTING, doing="place a wager")
    player = _seated_player(round_, seat)
    last = (Wager.objects.filter(round__table_id=round_.table_id, player=player,
                                 state=Wager.State.ACTIVE, round__state__in=PLAYED_STATES)
            .order_by("-round__number").first())
    if last is None:
        raise Conflict(f"{player.name} has no earlier wager at this table to repeat",
                       code="no_previous_wager")
    return wager_place(round_id=round_id, seat=seat, amount=last.amount, by=by)


def _seated_player(round_: Round, seat: int) -> Player:
    found = Seat.objects.filter(table_id=round_.table_id, number=seat).select_related(
        "player").first()
    if found is None or found.player is None:
        raise SeatProblem(f"nobody sits at seat {seat}", detail={"seat": seat})
    return found.player


@transaction.atomic
def banker_set(*, round_id: int, by: User, house: bool = False,
               seat: int | None = None, house_stake: int = 0) -> Round:
    """Who banks this round: the house, or a seated player with the house stake they
    announce (rules §7.1-§7.3). Ends the betting. Locks the round."""
    round_ = _lock_round(round_id)
    _require(round_, Round.State.BETTING, Round.State.BANKER_SET, doing="set the banker")
    rules = round_.rules
    if house:
        if seat is not None or house_stake:
            raise ValidationFailed("when the house banks there is no seat and no house stake")
        round_.banker_is_house, round_.banker_seat, round_.banker_player = True, None, None
        round_.house_stake = 0
        round_.state = Round.State.BANKER_SET
        round_.save(update_fields=["banker_is_house", "banker_seat", "banker_player",
                                   "house_stake", "state"])
        _event(round_, "banker_set", by, banker="house")
        return round_

    if seat is None:
        raise ValidationFailed("name the banker's seat, or say the house banks",
                               detail={"fields": {"seat": ["required unless house is true"]}})
    _check_seat_number(seat)
    player = _seated_player(round_, seat)
    if round_.wagers.filter(seat=seat, state=Wager.State.ACTIVE).exists():
        raise BankerNotAllowed(
            f"the bank holder places no wager of their own: clear seat {seat}'s wager first")
    previous = _previous_played(round_)
    if (rules["bank_rotation"] == "alternate" and previous is not None
            and previous.banker_is_house is False):
        raise BankerNotAllowed(
            "with alternate rotation the bank returns to the house every other round, and "
            f"round {previous.number} was banked by a player")
    if (rules["bank_rotation"] == "circle" and previous is not None
            and previous.banker_is_house is False and previous.banker_seat is not None
            and seat <= previous.banker_seat):
        # Each player in turn, then the house (rules §7.1): after seat k banked, the bank
        # moves on to a later seat (those between passed) or, the circle done, the house.
        raise BankerNotAllowed(
            f"with circle rotation the bank moves on after seat {previous.banker_seat}: "
            "a later seat, or the house once the circle is complete")
    last_house = _last_house_banked(round_)
    last_wager_vs_house = None
    if last_house is not None:
        last_wager_vs_house = last_house.wagers.filter(
            player=player, state=Wager.State.ACTIVE).first()
    if rules["banker_must_have_played"] and last_wager_vs_house is None:
        raise BankerNotAllowed(
            f"{player.name} may bank only after wagering against the house in the last "
            "house-banked round at this table")
    cap = (rules["max_bet"] if rules["house_stake_cap"] == "table_max"
           else _last_wager_against_house(round_, player))
    if house_stake and not rules["min_bet"] <= house_stake <= cap:
        raise OutOfLimits(
            "the house stake is zero (the house sits out) or from the table minimum "
            f"{_money(round_, rules['min_bet'])} up to {_money(round_, cap)} "
            f"({rules['house_stake_cap'].replace('_', ' ')})",
            detail={"min": _money(round_, rules["min_bet"]), "max": _money(round_, cap)},
        )
    if house_stake and rules["co_banking"]:
        raise ValidationFailed(
            "with co-banking the house covers half the action itself and stakes nothing "
            "against the bank", detail={"fields": {"house_stake": ["must be 0"]}})
    passed = _offer_order(round_, seat)
    round_.banker_is_house, round_.banker_seat, round_.banker_player = False, seat, player
    round_.house_stake = house_stake
    round_.state = Round.State.BANKER_SET
    round_.save(update_fields=["banker_is_house", "banker_seat", "banker_player",
                               "house_stake", "state"])
    _event(round_, "banker_set", by, banker="player", seat=seat, player=player.pk,
           house_stake=_money(round_, house_stake), passed=passed)
    return round_


def _last_wager_against_house(round_: Round, player: Player) -> int:
    """The player's own last wager against the house at this table (rules §7.3 cap)."""
    last = (Wager.objects.filter(round__table_id=round_.table_id, player=player,
                                 state=Wager.State.ACTIVE, round__banker_is_house=True,
                                 round__state__in=PLAYED_STATES)
            .exclude(round=round_).order_by("-id").first())
    return last.amount if last is not None else 0


def _offer_order(round_: Round, seat: int) -> list[int]:
    """The seated players the bank was offered to before ``seat`` accepted (they passed):
    in seat order, starting after the last player who banked (rules §7.1)."""
    last_player_bank = (Round.objects.filter(table_id=round_.table_id, banker_is_house=False,
                                             state__in=PLAYED_STATES)
                        .exclude(pk=round_.pk).order_by("-number").first())
    start = last_player_bank.banker_seat if last_player_bank is not None else 0
    assert start is not None  # a player-banked round names its seat (round_banker_consistent)
    occupied = set(Seat.objects.filter(table_id=round_.table_id, player__isnull=False)
                   .values_list("number", flat=True))
    order = [((start + i - 1) % 6) + 1 for i in range(1, 7)]
    passed = []
    for number in order:
        if number == seat:
            break
        if number in occupied:
            passed.append(number)
    return passed


def _positions_against_bank(round_: Round, wagers: Sequence[Wager]) -> dict[str, int]:
    """Each position playing against the bank with its stake."""
    stakes = {str(w.seat): w.amount for w in wagers}
    if not round_.banker_is_house and round_.house_stake:
        stakes["dealer"] = round_.house_stake
    return stakes


def _hold_banker_cover(round_: Round, wagers: Sequence[Wager], by: User) -> None:
    """The solvency check before play (rules §7.4): the player-banker's available funds
    must cover every wager against the bank plus the house stake; that cover is then held
    until the round is settled or voided. Refused with the figures, changing nothing."""
    if round_.banker_is_house:
        return
    assert round_.banker_player is not None
    # Under co-banking the player-banker covers its half of every wager (rules §7).
    share = banker_share if round_.rules["co_banking"] else (lambda amount: amount)
    required = sum(share(w.amount) for w in wagers) + round_.house_stake
    account = accounts.player_account(round_.banker_player)
    available = account_balance(account_id=account.pk).available

    def refuse(available: int) -> BankerInsolvent:
        shortfall = required - available
        return BankerInsolvent(
            f"the banker cannot cover the table: {_money(round_, required)} required, "
            f"{_money(round_, available)} available, {_money(round_, shortfall)} short",
            detail={"required": _money(round_, required),
                    "available": _money(round_, available),
                    "shortfall": _money(round_, shortfall)},
        )

    if available < required:
        raise refuse(available)
    try:
        # The ledger locks the account and checks again, so money spent elsewhere since
        # the read above cannot slip through.
        hold = ledger.hold_place(account_id=account.pk, amount=required, by=by,
                                 ref=f"round:{round_.pk}", memo="banker's cover")
    except Conflict as exc:
        if exc.code != "insufficient_funds":
            raise
        raise refuse(account_balance(account_id=account.pk).available) from exc
    round_.solvency_required, round_.solvency_available = required, available
    round_.banker_hold_id = hold.pk
    _event(round_, "solvency_checked", by, required=_money(round_, required),
           available=_money(round_, available), hold=hold.pk)


@transaction.atomic
def round_deal(*, round_id: int, by: User,
               hands: Mapping[str, Sequence[str] | str] | None = None,
               results_only: bool = False, rng: random.Random | None = None) -> Round:
    """Check the banker's solvency and hold the cover, then deal: electronically (secure
    shuffle and three dice, rules §8), by recording a physical table's hands, or — for a
    results-only table — no cards at all. Locks the round, then the banker's account."""
    round_ = _lock_round(round_id)
    _require(round_, Round.State.BANKER_SET, doing="deal")
    wagers = _active_wagers(round_)
    against_bank = _positions_against_bank(round_, wagers)
    if not against_bank:
        raise Conflict("nothing to play: no wager against the bank", code="no_wagers")
    _hold_banker_cover(round_, wagers, by)
    playing = [p for p in paigow.POSITIONS if p in against_bank or p == round_.banker_position]
    rules = round_.rules

    if results_only:
        if hands:
            raise ValidationFailed("a results-only deal records no hands")
        round_.deal_kind = Round.DealKind.RESULTS
        _event(round_, "dealt", by, deal="results", positions=playing)
    elif hands:
        dealt = _parse_physical_hands(hands, playing)
        round_.deal_kind = Round.DealKind.PHYSICAL
        _create_hands(round_, dealt, rules)
        _event(round_, "dealt", by, deal="physical",
               hands={p: paigow.format_cards(c) for p, c in dealt.items()})
    else:
        shuffled = paigow.deal(rng)
        dice = paigow.roll_dice(rng)
        order = paigow.deal_order(sum(dice), banker=round_.banker_position,
                                  first_stack=rules["first_stack"])
        stacks = order.assign(shuffled.stacks)
        dealt = {p: stacks[p] for p in playing}
        round_.deal_kind = Round.DealKind.ELECTRONIC
        round_.dice = list(dice)
        round_.counted_position = order.counted
        round_.deal_order = list(order.order)
        round_.burnt = paigow.format_cards(shuffled.burnt)
        _create_hands(round_, dealt, rules)
        _event(round_, "dealt", by, deal="electronic", dice=list(dice),
               counted=order.counted, order=list(order.order),
               stacks={p: paigow.format_cards(stacks[p]) for p in order.order},
               discarded=[p for p in order.order if p not in dealt],
               burnt=round_.burnt)
    round_.state = Round.State.DEALT
    round_.save()
    return round_


def _parse_physical_hands(hands: Mapping[str, Sequence[str] | str],
                          playing: Sequence[str]) -> dict[str, tuple[paigow.Card, ...]]:
    given = {str(k): v for k, v in hands.items()}
    if set(given) != set(playing):
        missing = sorted(set(playing) - set(given))
        extra = sorted(set(given) - set(playing))
        raise BadCards(
            "record a hand for exactly the positions in play: "
            f"{', '.join(playing)}" + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; not in play {', '.join(extra)}" if extra else ""),
            detail={"positions": list(playing), "missing": missing, "extra": extra},
        )
    dealt: dict[str, tuple[paigow.Card, ...]] = {}
    for position in playing:
        try:
            dealt[position] = paigow.parse_cards(given[position], count=7)
        except paigow.PaiGowError as exc:
            raise BadCards(f"position {position}: {exc}",
                           detail={"position": position}) from exc
    seen = Counter(card for cards in dealt.values() for card in cards)
    twice = sorted(str(card) for card, n in seen.items() if n > 1)
    if twice:
        raise BadCards(f"a card cannot be dealt twice: {', '.join(twice)}",
                       detail={"duplicates": twice})
    return dealt


def _create_hands(round_: Round, dealt: Mapping[str, tuple[paigow.Card, ...]],
                  rules: Mapping[str, Any]) -> None:
    rows = []
    for position, cards in dealt.items():
        hand = Hand(round=round_, position=position, cards=paigow.format_cards(cards))
        if position == "dealer":
            # The dealer always sets by the house way (rules §9).
            _apply_setting(hand, paigow.house_way(cards, way=rules["house_way"],
                                                  wheel=rules["wheel"]),
                           Hand.SetBy.HOUSE_WAY)
        rows.append(hand)
    Hand.objects.bulk_create(rows)


def _apply_setting(hand: Hand, setting: paigow.Setting, set_by: str) -> None:
    hand.high = paigow.format_cards(setting.high)
    hand.low = paigow.format_cards(setting.low)
    hand.set_by = set_by


@transaction.atomic
def hand_set(*, round_id: int, position: str, by: User,
             high: Sequence[str] | str | None = None, low: Sequence[str] | str | None = None,
             house_way: bool = False, as_played: bool = False) -> Hand:
    """Set one position's hand: as submitted (a foul is refused), by the house way on
    request, or — ``as_played`` — as a live table's player set it, where a foul follows
    the table's foul policy (rules §4). Locks the round."""
    round_ = _lock_round(round_id)
    _require(round_, Round.State.DEALT, doing="set a hand")
    if round_.deal_kind == Round.DealKind.RESULTS:
        raise WrongState("this round records results only; it has no cards to set")
    if position == "dealer":
        raise Conflict("the dealer's hand is always set by the house way", code="dealer_hand")
    hand = round_.hands.filter(position=position).first()
    if hand is None:
        raise NotFound(f"position {position} has no hand in this round")
    rules = round_.rules
    seven = paigow.parse_cards(hand.cards)
    if house_way:
        setting = paigow.house_way(seven, way=rules["house_way"], wheel=rules["wheel"])
        _apply_setting(hand, setting, Hand.SetBy.HOUSE_WAY)
    else:
        if high is None or low is None:
            raise ValidationFailed("give the high and low hands, or ask for the house way",
                                   detail={"fields": {"high": ["5 cards"], "low": ["2 cards"]}})
        try:
            five = paigow.parse_cards(high, count=5)
            two = paigow.parse_cards(low, count=2)
        except paigow.PaiGowError as exc:
            raise BadCards(str(exc)) from exc
        if Counter(five + two) != Counter(seven):
            raise BadCards(
                f"the setting must use exactly the seven cards dealt to position {position}: "
                f"{hand.cards}", detail={"cards": hand.cards})
        try:
            setting = paigow.validate_setting(seven, high=five, low=two, wheel=rules["wheel"])
            _apply_setting(hand, setting, Hand.SetBy.PLAYER)
        except paigow.FoulSetting as exc:
            if not as_played:
                raise FoulRefused(str(exc), detail={"high": paigow.format_cards(five),
                                                    "low": paigow.format_cards(two)}) from exc
            if rules["foul_policy"] == "forfeit":
                hand.high, hand.low = paigow.format_cards(five), paigow.format_cards(two)
                hand.set_by = Hand.SetBy.FOUL_FORFEIT
            else:
                setting = paigow.house_way(seven, way=rules["house_way"], wheel=rules["wheel"])
                _apply_setting(hand, setting, Hand.SetBy.FOUL_HOUSE_WAY)
    hand.save(update_fields=["high", "low", "set_by"])
    _event(round_, "hand_set", by, position=position, high=hand.high, low=hand.low,
           set_by=hand.set_by)
    return hand


# --- settlement, void, reversal --------------------------------------------------------------

@transaction.atomic
def round_settle(*, round_id: int, by: User,
                 outcomes: Mapping[str, str] | None = None) -> Round:
    """Settle every hand against the bank and post the round as ONE ledger entry that
    resolves every hold (rules §5-§7). Settling again returns the first settlement.

    Locks the round row first, so concurrent calls queue and the later ones find the round
    settled; the ledger then locks the accounts in primary-key order.
    """
    round_ = _lock_round(round_id)
    if round_.state in (Round.State.SETTLED, Round.State.REVERSED):
        return round_
    wagers = _active_wagers(round_)
    if outcomes is not None:
        if round_.state == Round.State.BANKER_SET:
            # A results-only table settles straight after the banker is set; the solvency
            # check and the cover hold still come first.
            against = _positions_against_bank(round_, wagers)
            if not against:
                raise Conflict("nothing to play: no wager against the bank", code="no_wagers")
            _hold_banker_cover(round_, wagers, by)
            round_.deal_kind = Round.DealKind.RESULTS
        else:
            _require(round_, Round.State.DEALT, doing="settle")
            if round_.deal_kind != Round.DealKind.RESULTS:
                raise WrongState("this round was dealt with cards: settle it without outcomes")
        results = _check_outcomes(round_, wagers, outcomes)
        hands: dict[str, Hand] = {}
    else:
        _require(round_, Round.State.DEALT, doing="settle")
        if round_.deal_kind == Round.DealKind.RESULTS:
            raise ValidationFailed("a results-only round settles with the outcome of each "
                                   "position", detail={"fields": {"outcomes": ["required"]}})
        hands = {h.position: h for h in round_.hands.all()}
        results = _showdown_all(round_, wagers, hands)

    rules = round_.rules
    stakes = _positions_against_bank(round_, wagers)
    money = settle_money(
        wagers=stakes, outcomes={p: r[0] for p, r in results.items()},
        banker_is_house=bool(round_.banker_is_house), house_stake=round_.house_stake,
        rate=Decimal(rules["commission_rate"]), rounding=rules["commission_rounding"],
        co_banking=bool(rules["co_banking"]),
    )
    entry_id = _post_settlement(round_, wagers, money.moves, by)

    by_position = {r.position: r for r in money.positions}
    rows = []
    for position, (outcome, high_result, low_result) in results.items():
        hand = hands.get(position) or Hand(round=round_, position=position)
        result = by_position[position]
        hand.outcome, hand.high_result, hand.low_result = outcome, high_result, low_result
        hand.wager, hand.amount, hand.commission = result.wager, result.amount, \
            result.commission
        rows.append(hand)
    banker_hand = hands.get(round_.banker_position)
    if banker_hand is not None:
        banker_hand.amount = money.banker_net - money.banker_commission
        banker_hand.commission = money.banker_commission
        rows.append(banker_hand)
    fields = ["outcome", "high_result", "low_result", "wager", "amount", "commission"]
    update_rows([h for h in rows if h.pk], fields)
    Hand.objects.bulk_create([h for h in rows if not h.pk])

    round_.banker_net = money.banker_net
    round_.banker_commission = money.banker_commission
    round_.house_stake_result = money.house_stake_result if not round_.banker_is_house else 0
    round_.player_commission = money.player_commission
    round_.house_bank_share = money.house_bank_share
    round_.entry_id = entry_id
    round_.settled_at = timezone.now()
    round_.state = Round.State.SETTLED
    round_.save(update_fields=[
        "banker_net", "banker_commission", "house_stake_result", "player_commission",
        "house_bank_share",
        "entry_id", "settled_at", "state", "deal_kind", "solvency_required",
        "solvency_available", "banker_hold_id"])
    _event(round_, "settled", by, entry=entry_id,
           outcomes={p: r[0] for p, r in results.items()},
           banker_net=_money(round_, money.banker_net),
           banker_commission=_money(round_, money.banker_commission),
           player_commission=_money(round_, money.player_commission))
    return round_


def _check_outcomes(round_: Round, wagers: Sequence[Wager],
                    outcomes: Mapping[str, str]) -> dict[str, tuple[str, str, str]]:
    expected = set(_positions_against_bank(round_, wagers))
    given = {str(k): v for k, v in outcomes.items()}
    if set(given) != expected:
        raise ValidationFailed(
            "give an outcome for exactly the positions playing against the bank: "
            f"{', '.join(sorted(expected)) or 'none'}",
            detail={"fields": {"outcomes": [f"positions {sorted(expected)}"]}},
        )
    bad = {p: v for p, v in given.items() if v not in ("win", "push", "loss")}
    if bad:
        raise ValidationFailed("an outcome is win, push or loss",
                               detail={"fields": {"outcomes": [f"{p}: {v!r}" for p, v in
                                                               bad.items()]}})
    return {p: (v, "", "") for p, v in given.items()}


def _showdown_all(round_: Round, wagers: Sequence[Wager],
                  hands: Mapping[str, Hand]) -> dict[str, tuple[str, str, str]]:
    """Each position against the banker's hand (rules §5)."""
    against = _positions_against_bank(round_, wagers)
    unset = sorted(p for p in [*against, round_.banker_position]
                   if p not in hands or not hands[p].set_by)
    if unset:
        raise HandsMissing(f"set these hands first: {', '.join(unset)}",
                           detail={"positions": unset})
    wheel = round_.rules["wheel"]
    banker = hands[round_.banker_position]
    results: dict[str, tuple[str, str, str]] = {}
    for position in against:
        hand = hands[position]
        if hand.set_by == Hand.SetBy.FOUL_FORFEIT:
            results[position] = ("loss", "loss", "loss")  # a forfeited hand loses
        elif banker.set_by == Hand.SetBy.FOUL_FORFEIT:
            results[position] = ("win", "win", "win")
        else:
            outcome = paigow.showdown(player=_setting(hand), banker=_setting(banker),
                                      wheel=wheel)
            results[position] = (outcome.result, outcome.high, outcome.low)
    return results


def _setting(hand: Hand) -> paigow.Setting:
    return paigow.Setting(high=paigow.parse_cards(hand.high), low=paigow.parse_cards(hand.low))


def _post_settlement(round_: Round, wagers: Sequence[Wager], moves: Mapping[str, int],
                     by: User) -> int | None:
    """The round's one ledger entry, resolving the wager holds and the banker's cover.
    A round where nothing moved (every hand a push) posts no entry; its holds are released."""
    holds = [w.hold_id for w in wagers]
    if round_.banker_hold_id is not None:
        holds.append(round_.banker_hold_id)
    if not moves:
        ledger.holds_release(hold_ids=holds, by=by)
        return None
    table_accounts = accounts.table_accounts(round_.table)
    if round_.banker_is_house:
        bank_account = table_accounts.bankroll
    else:
        # A player-banked round names its banker (constraint round_banker_consistent).
        assert round_.banker_player is not None
        bank_account = accounts.player_account(round_.banker_player)
    players = accounts.player_accounts([w.player_id for w in wagers], round_.currency)
    seat_player = {str(w.seat): w.player_id for w in wagers}
    lines: dict[int, int] = {}
    for party, amount in moves.items():
        if party == "bank":
            account_id = bank_account.pk
        elif party == "house":
            account_id = table_accounts.bankroll.pk
        elif party == "commission":
            account_id = table_accounts.commission.pk
        else:
            account_id = players[seat_player[party]].pk
        lines[account_id] = lines.get(account_id, 0) + amount
    entry = ledger.entry_post(
        kind="round_settlement", memo=f"{round_.table.name}, round {round_.number}",
        lines=[(a, v) for a, v in sorted(lines.items()) if v], by=by,
        ref=f"round:{round_.pk}", settle_holds=holds,
    )
    return entry.pk


@transaction.atomic
def round_void(*, round_id: int, reason: str, by: User) -> Round:
    """Void a round before settlement: every hold is released, nothing else moves."""
    if not reason.strip():
        raise ValidationFailed("say why the round is voided",
                               detail={"fields": {"reason": ["required"]}})
    round_ = _lock_round(round_id)
    _require(round_, *OPEN_STATES, doing="void")
    released = [w.hold_id for w in _active_wagers(round_)]
    if round_.banker_hold_id is not None:
        released.append(round_.banker_hold_id)
    ledger.holds_release(hold_ids=released, by=by)
    round_.state = Round.State.VOIDED
    round_.closed_reason = reason
    round_.save(update_fields=["state", "closed_reason"])
    _event(round_, "voided", by, reason=reason, released_holds=released)
    return round_


@transaction.atomic
def round_reverse(*, round_id: int, reason: str, by: User) -> Round:
    """Reverse a settled round with a reason: a new ledger entry that undoes the
    settlement's; the round keeps both."""
    if not reason.strip():
        raise ValidationFailed("say why the round is reversed",
                               detail={"fields": {"reason": ["required"]}})
    round_ = _lock_round(round_id)
    if round_.state == Round.State.REVERSED:
        return round_
    _require(round_, Round.State.SETTLED, doing="reverse")
    reversal_id = None
    if round_.entry_id is not None:
        reversal_id = ledger.entry_reverse(entry_id=round_.entry_id, reason=reason, by=by,
                                           by_owner=True).pk
    round_.reversal_entry_id = reversal_id
    round_.state = Round.State.REVERSED
    round_.closed_reason = reason
    round_.save(update_fields=["reversal_entry_id", "state", "closed_reason"])
    _event(round_, "reversed", by, reason=reason, entry=reversal_id)
    return round_

