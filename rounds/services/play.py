"""A round from opening to its hands: wagers, the banker, the deal, setting hands.

Its end (settling, voiding, reversing) is rounds.services.settling; the bank's cover is
rounds.services.banking."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Max, Q

from casino.exclusions import player_exclusion_check
from casino.models import Player
from casino.player_limits import player_limits_check
from casino.selectors import player_label
from casino.shared import approvals
from casino.shared.errors import Conflict, NotFound, ValidationFailed
from casino.shared.gaming_day import gaming_day_of
from casino.shared.money import format_minor
from ledger import services as ledger
from rounds import accounts, paigow
from rounds.errors import (
    BadCards,
    BankerNotAllowed,
    BankNotOffered,
    FoulRefused,
    OutOfLimits,
    TableBusy,
    WrongState,
)
from rounds.locks import round_lock, table_lock
from rounds.models import DealDraft, Hand, Round, Seat, Table, Wager
from rounds.paigow import fairness, rotation
from rounds.rules import TableRules
from rounds.selectors import (
    BANK_DECLINED,
    BANK_OFFERED,
    RoundKey,
    dealer_shift_open,
    player_last_wager_against_house,
    round_active_wagers,
    round_bank_positions,
    round_bank_table,
    round_players_set,
    round_positions_against_bank,
    round_positions_in_play,
)
from rounds.services.banking import banker_cover_hold
from rounds.services.steps import (
    round_event_add,
    round_player_check,
    round_require_deal_mode,
    round_require_state,
    seated_player_lock,
)
from rounds.services.tables import round_rules_of, seat_number_check

# --- the round: steps ----------------------------------------------------------------------

@transaction.atomic
def round_open(*, table_id: int, by: User) -> Round:
    """Open the next round at a table, copying its settings. Locks the table row, which
    serialises round numbering and settings changes."""
    table = table_lock(table_id)
    if not table.is_open:
        raise Conflict(f"{table.name} is closed", code="table_closed")
    if table.self_service:
        raise Conflict(f"{table.name} is a self-service table: each player opens their own "
                       "game there (POST /api/v1/me/games)", code="self_service_table")
    # Read under the table's lock: no round opens or closes meanwhile.
    before = Round.objects.filter(table=table).aggregate(
        last=Max("number"), in_play=Count("id", filter=Q(state__in=Round.State.OPEN)))
    if before["in_play"]:
        raise TableBusy(f"{table.name} has a round in play; settle or void it first")
    rules = round_rules_of(table)
    # Who deals it: the dealer signed in at the table (read under the table's lock, which
    # signing in and relief take too), else whoever opens it.
    shift = dealer_shift_open(table_id=table.pk)
    round_ = Round.objects.create(
        table=table, number=(before["last"] or 0) + 1, gaming_day=gaming_day_of(),
        currency=table.currency, rules=rules, opened_by=by,
        dealer_id=shift.dealer_id if shift is not None else by.pk, dealer_shift=shift,
    )
    round_event_add(round_, "opened", by, rules=rules)
    if round_.table_rules.card_room:
        _bank_offered(round_, by, round_bank_table(round_))
    return round_


@transaction.atomic
def wager_place(*, round_id: int, seat: int, amount: int, by: User) -> Wager:
    """A seat's wager against the bank, within the table limits, held on the player's
    account at once. Locks the round, then the seat, then (in ledger) the player's
    account."""
    round_ = round_lock(round_id)
    round_require_state(round_, Round.State.BETTING, doing="place a wager")
    seat_number_check(seat)
    player = seated_player_lock(round_, seat)
    return wager_post(round_, seat=seat, player=player, amount=amount, by=by)


def wager_post(round_: Round, *, seat: int, player: Player, amount: int, by: User) -> Wager:
    """The wager itself, for a live seat (wager_place) and a player's own game
    (rounds.services.games): the player's exclusion, the table limits, one wager per seat,
    the hold on the player's account. The round must be locked and taking wagers."""
    # A player excluded while seated places no further wager (casino.exclusions).
    player_exclusion_check(player=player, doing="place a wager")
    player_limits_check(player=player, amount=amount, gaming_day=round_.gaming_day)
    if not round_.table_rules.wager_allowed(amount):
        low, high = round_.table_rules.min_bet, round_.table_rules.max_bet
        cur = round_.currency
        raise OutOfLimits(
            f"a wager at this table is from {format_minor(low, cur)} to "
            f"{format_minor(high, cur)}",
            detail={"min_bet": format_minor(low, cur), "max_bet": format_minor(high, cur),
                    "amount": format_minor(amount, cur)},
        )
    if round_.wagers.filter(seat=seat, state=Wager.State.ACTIVE).exists():
        raise Conflict(f"seat {seat} has a wager in this round already; clear it first",
                       code="wager_exists")
    account = accounts.player_account(player)
    # Without a savepoint of its own: a refusal, the funds short, ends this step (its
    # atomic block rolls back), worded from the account read above.
    hold = ledger.hold_place(account_id=account.pk, amount=amount, by=by,
                             ref=f"round:{round_.pk}", memo=f"wager, seat {seat}",
                             savepoint=False, account=account)
    wager = Wager.objects.create(round=round_, seat=seat, player=player, amount=amount,
                                 hold_id=hold.pk, placed_by=by)
    round_event_add(round_, "wager_placed", by, seat=seat, player=player.pk, hold=hold.pk,
                    amount=format_minor(amount, round_.currency))
    return wager


# Wagers can still come down once the banker is set, until the deal: a player-banker who
# cannot cover the felt is resolved at the table by lowering or clearing wagers (issue 22).
# Nothing is held for the bank before the deal (banking.banker_cover_hold takes the cover at
# the deal), so a wager brought down needs no cover adjusted; the deal checks solvency again.
_WAGERS_COME_DOWN = (Round.State.BETTING, Round.State.BANKER_SET)


def _wager_to_change(round_: Round, seat: int, doing: str) -> Wager:
    """The seat's active wager, in a round where it may still come down. The round must be
    locked (round_lock)."""
    round_require_state(round_, *_WAGERS_COME_DOWN, doing=doing)
    if round_.state == Round.State.BANKER_SET:
        # Outcomes waiting for a pit boss were asked against these wagers: not changed
        # under them.
        approvals.approval_pending_check(ref=f"round:{round_.pk}")
    seat_number_check(seat)
    wager = round_.wagers.filter(seat=seat, state=Wager.State.ACTIVE).first()
    if wager is None:
        raise NotFound(f"seat {seat} has no wager in this round")
    return wager


@transaction.atomic
def wager_clear(*, round_id: int, seat: int, by: User) -> Wager:
    """Take a wager back before the deal (while betting, or once the banker is set); its
    hold is released. Locks the round, then (in ledger) the player's account."""
    round_ = round_lock(round_id)
    wager = _wager_to_change(round_, seat, "clear a wager")
    ledger.hold_release(hold_id=wager.hold_id, by=by)
    wager.state = Wager.State.CLEARED
    wager.save(update_fields=["state"])
    round_event_add(round_, "wager_cleared", by, seat=seat,
                    amount=format_minor(wager.amount, round_.currency))
    return wager


@transaction.atomic
def wager_lower(*, round_id: int, seat: int, amount: int, by: User) -> Wager:
    """Bring a seat's wager down before the deal (while betting, or once the banker is set:
    what a player-banker who cannot cover the felt needs). Never up: raising a wager after
    the bank is taken would change what the banker agreed to cover. The old wager is cleared
    and its hold released; the lower one is held anew, in the same transaction. Locks the
    round, then (in ledger) the player's account."""
    round_ = round_lock(round_id)
    wager = _wager_to_change(round_, seat, "lower a wager")
    cur = round_.currency
    low = round_.table_rules.min_bet
    if not low <= amount < wager.amount:
        raise OutOfLimits(
            f"seat {seat}'s wager of {format_minor(wager.amount, cur)} can come down to "
            f"an amount from the table minimum {format_minor(low, cur)} up to less than it "
            "(clear it to take it back whole)",
            detail={"min_bet": format_minor(low, cur), "wager": format_minor(wager.amount, cur),
                    "amount": format_minor(amount, cur)})
    ledger.hold_release(hold_id=wager.hold_id, by=by)
    wager.state = Wager.State.CLEARED
    wager.save(update_fields=["state"])
    account = accounts.player_account(wager.player)
    hold = ledger.hold_place(account_id=account.pk, amount=amount, by=by,
                             ref=f"round:{round_.pk}", memo=f"wager, seat {seat}")
    lowered = Wager.objects.create(round=round_, seat=seat, player=wager.player,
                                   amount=amount, hold_id=hold.pk, placed_by=by)
    round_event_add(round_, "wager_lowered", by, seat=seat, player=wager.player_id,
                    amount=format_minor(amount, cur), was=format_minor(wager.amount, cur),
                    hold=hold.pk)
    return lowered


@transaction.atomic
def wager_rebet(*, round_id: int, seat: int, by: User) -> Wager:
    """Repeat the wager the seat's player played in their last hand at this table ("Re-Bet",
    German seed): a wager cleared before a deal, or of a voided round, was never played.
    Locks the round (wager_place takes the same lock again in this transaction)."""
    round_ = round_lock(round_id)
    round_require_state(round_, Round.State.BETTING, doing="place a wager")
    player = seated_player_lock(round_, seat)
    last = (Wager.objects.filter(round__table_id=round_.table_id, player=player,
                                 state=Wager.State.ACTIVE, round__state__in=Round.State.PLAYED)
            .order_by("-round__number").first())
    if last is None:
        seated = Player.objects.filter(seats__table_id=round_.table_id)
        raise Conflict(f"{player_label(player, seat=seat, among=seated)} has no earlier "
                       "wager at this table to repeat",
                       code="no_previous_wager")
    return wager_place(round_id=round_id, seat=seat, amount=last.amount, by=by)


@transaction.atomic
def wager_clear_all(*, round_id: int, by: User) -> list[Wager]:
    """Clear every seat's wager before the deal ("Clear" for the whole table; also once the
    banker is set), all or nothing. Locks the round (wager_clear takes the same lock
    again)."""
    round_ = round_lock(round_id)
    round_require_state(round_, *_WAGERS_COME_DOWN, doing="clear the wagers")
    return [wager_clear(round_id=round_id, seat=w.seat, by=by) for w in round_active_wagers(round_)]


@transaction.atomic
def wager_rebet_all(*, round_id: int, by: User) -> list[Wager]:
    """Re-Bet for the whole table: every seated player without a wager yet repeats their
    last played wager at this table; players with none to repeat are left out. All or
    nothing: one player short of funds refuses the lot. Locks the round."""
    round_ = round_lock(round_id)
    round_require_state(round_, Round.State.BETTING, doing="place a wager")
    betting = {w.seat for w in round_active_wagers(round_)}
    seats = (Seat.objects.filter(table_id=round_.table_id, player__isnull=False)
             .exclude(number__in=betting).order_by("number"))
    placed = []
    for seat in seats:
        last = (Wager.objects.filter(round__table_id=round_.table_id, player=seat.player,
                                     state=Wager.State.ACTIVE,
                                     round__state__in=Round.State.PLAYED)
                .order_by("-round__number").first())
        if last is not None:
            placed.append(wager_place(round_id=round_id, seat=seat.number, amount=last.amount,
                                      by=by))
    if not placed:
        raise Conflict("no seated player has an earlier wager at this table to repeat",
                       code="no_previous_wager")
    return placed


@transaction.atomic
def banker_set(*, round_id: int, by: User, house: bool = False,
               seat: int | None = None, house_stake: int = 0,
               cover: int | None = None, third_party: int | None = None) -> Round:
    """Who banks this round: the house, or a seated player with the house stake they
    announce (rules §7.1-§7.3); at a card-room table a seated player-dealer covering up to
    ``cover`` (None: all the action) with proposition player ``third_party`` covering the
    rest, or that proposition player alone. Ends the betting. Locks the round."""
    round_ = round_lock(round_id)
    round_player_check(round_, by)
    round_require_state(round_, Round.State.BETTING, Round.State.BANKER_SET,
                        doing="set the banker")
    if round_.state == Round.State.BANKER_SET:
        # Outcomes waiting for a pit boss were asked against this banker: not changed
        # under them (only a set banker can have outcomes waiting).
        approvals.approval_pending_check(ref=f"round:{round_id}")
    rules = round_.table_rules
    if rules.card_room:
        return _card_room_banker_set(round_, by=by, house=house, seat=seat,
                                     house_stake=house_stake, cover=cover,
                                     third_party=third_party)
    if cover is not None or third_party is not None:
        raise Conflict("a player-dealer's cover and a proposition player bank only at a "
                       "card-room table; this table banks as a casino", code="not_card_room")
    if house:
        if seat is not None or house_stake:
            raise ValidationFailed("when the house banks there is no seat and no house stake")
        round_.banker_is_house, round_.banker_seat, round_.banker_player = True, None, None
        round_.house_stake = 0
        _banker_written(round_, by, banker="house")
        return round_

    if seat is None:
        raise ValidationFailed("name the banker's seat, or say the house banks",
                               detail={"fields": {"seat": ["required unless house is true"]}})
    seat_number_check(seat)
    player = seated_player_lock(round_, seat)
    player_exclusion_check(player=player, doing="take the bank")
    # Who may bank is the rotation's to say (rules §7.1), for every door alike.
    table = round_bank_table(round_)
    refusal = rotation.bank_refusal(table, seat)
    if refusal is not None:
        raise BankerNotAllowed(refusal.message,
                               detail={"seat": seat, "reason": refusal.reason.value})
    cap = round_house_stake_cap(round_, player)
    if house_stake and not rules.min_bet <= house_stake <= cap.amount:
        low, high = (format_minor(rules.min_bet, round_.currency),
                     format_minor(cap.amount, round_.currency))
        raise OutOfLimits(
            "the house stake is zero (the house sits out) or from the table minimum "
            f"{low} up to {high} ({cap.words})",
            detail={"min": low, "max": high},
        )
    if house_stake and rules.co_banking:
        raise ValidationFailed(
            "with co-banking the house covers half the action itself and stakes nothing "
            "against the bank", detail={"fields": {"house_stake": ["must be 0"]}})
    passed = rotation.passed_before(table, seat)
    round_.banker_is_house, round_.banker_seat, round_.banker_player = False, seat, player
    round_.house_stake = house_stake
    _banker_written(round_, by, banker="player", seat=seat, player=player.pk, passed=passed,
                    house_stake=format_minor(house_stake, round_.currency))
    return round_


class StakeCap(NamedTuple):
    """The highest house stake a player-banker may face (rules §7.3), and why, in words."""

    amount: int
    words: str


def round_house_stake_cap(round_: RoundKey, banker: Player) -> StakeCap:
    """The house stake cap of the round's rules for this banker: the one home of the rule,
    which the service checks and the screen shows before the banker is chosen."""
    rules = round_.table_rules
    if rules.co_banking:
        return StakeCap(0, "with co-banking the house stakes nothing")
    if rules.house_stake_cap == Table.HouseStakeCap.TABLE_MAX:
        return StakeCap(rules.max_bet, "the table maximum")
    return StakeCap(player_last_wager_against_house(round_, banker.pk),
                    f"{banker.name}'s last wager against the house")


def _banker_written(round_: Round, by: User, **event: Any) -> None:
    """The banker on the round, the betting over, and its event."""
    round_.state = Round.State.BANKER_SET
    round_.save(update_fields=["banker_is_house", "banker_seat", "banker_player",
                               "banker_cover", "third_party", "house_stake", "state"])
    round_event_add(round_, "banker_set", by, **event)


@transaction.atomic
def round_bank_decline(*, round_id: int, seat: int, by: User) -> Round:
    """The seat the rotation offers the bank declines it, and the offer passes on to the
    next seat (rules §7.1). Recorded as a step of the round (a ``bank_declined`` event),
    so every door, and a screen read again, sees the offer where it went. Only the seat
    offered may decline, and only while the banker is not chosen. Locks the round."""
    round_ = round_lock(round_id)
    round_require_state(round_, Round.State.BETTING, doing="decline the bank")
    seat_number_check(seat)
    player = seated_player_lock(round_, seat)
    table = round_bank_table(round_)
    offer = rotation.bank_offer(table)
    if table.card_room:
        # A card room asks every seated player in turn, and one may say no before the
        # offer reaches them: each decline is recorded, once, and the offer moves on.
        if seat in table.declined:
            raise BankNotOffered(f"seat {seat} has declined the bank this round already",
                                 code="bank_already_declined", detail={"seat": seat})
    elif offer.seat != seat:
        offered = (f"the bank is offered to seat {offer.seat} ({table.seated[offer.seat]}) "
                   "now" if offer.seat is not None else
                   "the bank is offered to no seat now: the house banks")
        raise BankNotOffered(f"seat {seat} cannot decline the bank: {offered}",
                             detail={"seat": seat, "offered": offer.seat})
    round_event_add(round_, BANK_DECLINED, by, seat=seat, player=player.pk)
    if round_.table_rules.card_room:
        # The regulator asks for every offer: the next one is recorded as it is made.
        _bank_offered(round_, by, round_bank_table(round_))
    return round_


def _bank_offered(round_: Round, by: User, table: rotation.BankTable) -> None:
    """Record whom the card room's rotation offers the bank now (an offer to nobody: every
    seated player declined or may not, and a proposition player may bank alone)."""
    offer = rotation.bank_offer(table)
    round_event_add(round_, BANK_OFFERED, by, seat=offer.seat,
                    player=None if offer.seat is None else _seat_player_id(round_, offer.seat),
                    why_none=offer.why_none or None)


def _seat_player_id(round_: Round, seat: int) -> int | None:
    return (Seat.objects.filter(table_id=round_.table_id, number=seat)
            .values_list("player_id", flat=True).first())


def _card_room_banker_set(round_: Round, *, by: User, house: bool, seat: int | None,
                          house_stake: int, cover: int | None,
                          third_party: int | None) -> Round:
    """The bank of a card-room round (docs/rules.md, card-room mode): the house may neither
    bank nor stake; a seated player-dealer takes the bank the rotation allows, covering up
    to ``cover``; a proposition player covers the rest, or banks alone once no seated
    player takes the bank. The round is locked by the caller."""
    if house:
        raise Conflict("in a card room the house may not bank: a seated player-dealer or a "
                       "proposition player banks", code="house_may_not_bank")
    if house_stake:
        raise Conflict("in a card room the house stakes nothing against the bank",
                       code="house_may_not_stake")
    if seat is None and third_party is None:
        raise ValidationFailed("name the player-dealer's seat, or the proposition player who "
                               "banks alone",
                               detail={"fields": {"seat": ["required unless third_party "
                                                           "banks alone"]}})
    if seat is None and cover is not None:
        raise ValidationFailed("the cover is the player-dealer's: name their seat",
                               detail={"fields": {"cover": ["only with a seat"]}})
    if cover is not None and cover <= 0:
        raise ValidationFailed("a player-dealer covers an amount above zero (omit it to cover "
                               "all the action)", detail={"fields": {"cover": ["above 0"]}})
    cur = round_.currency
    proposition = _proposition_player(round_, third_party) if third_party is not None \
        else None
    table = round_bank_table(round_)
    player: Player | None = None
    passed: list[int] = []
    if seat is not None:
        seat_number_check(seat)
        player = seated_player_lock(round_, seat)
        player_exclusion_check(player=player, doing="take the bank")
        refusal = rotation.bank_refusal(table, seat)
        if refusal is not None:
            code = refusal.reason.value if refusal.reason in (
                rotation.Reason.BANK_LIMIT, rotation.Reason.BANK_TIME_UP) \
                else BankerNotAllowed.code
            raise BankerNotAllowed(refusal.message, code=code,
                                   detail={"seat": seat, "reason": refusal.reason.value})
        # "To every seated player in seat order" (docs/rules.md §14.1): a seat takes the
        # bank when the offer reaches it, not before the seat offered it now declines.
        offer = rotation.bank_offer(table)
        if offer.seat != seat:
            offered = (f"seat {offer.seat} ({table.seated[offer.seat]})"
                       if offer.seat is not None else "no seat")
            raise BankNotOffered(
                f"the bank is offered to {offered} now: seat {seat} "
                f"({table.seated[seat]}) takes it only when the offer reaches them, each "
                "seat before them in turn declining it",
                detail={"seat": seat, "offered": offer.seat})
        passed = rotation.passed_before(table, seat)
    else:
        offer = rotation.bank_offer(table)
        if offer.seat is not None:
            raise BankNotOffered(
                f"the bank is offered to seat {offer.seat} ({table.seated[offer.seat]}): a "
                "proposition player banks alone only when every seated player declined it",
                detail={"offered": offer.seat})
    round_.banker_is_house, round_.banker_seat, round_.banker_player = False, seat, player
    round_.banker_cover = cover
    round_.third_party = proposition
    round_.house_stake = 0
    _banker_written(round_, by, banker="player_dealer" if seat is not None else "third_party",
                    seat=seat, player=player.pk if player is not None else None,
                    cover=None if cover is None else format_minor(cover, cur),
                    third_party=proposition.pk if proposition is not None else None,
                    passed=passed)
    return round_


def _proposition_player(round_: Round, player_id: int) -> Player:
    """The proposition player named to bank: one registered as such, in the table's
    currency."""
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise NotFound(f"no player #{player_id}")
    if player.kind != Player.Kind.PROPOSITION:
        raise Conflict(f"{player.name} is not a third-party proposition player: only a "
                       "licensed proposition player covers the rest of the bank",
                       code="not_a_proposition_player", detail={"third_party": player_id})
    if player.currency != round_.currency:
        raise Conflict(f"{player.name} plays in {player.currency}; this table plays in "
                       f"{round_.currency}", code="wrong_currency",
                       detail={"third_party": player_id})
    player_exclusion_check(player=player, doing="take the bank")
    return player


@transaction.atomic
def round_deal(*, round_id: int, by: User,
               hands: Mapping[str, Sequence[str] | str] | None = None,
               results_only: bool = False, rng: random.Random | None = None,
               seeded: fairness.FairDeal | None = None) -> Round:
    """Check the banker's solvency and hold the cover, then deal: electronically (secure
    shuffle and three dice, rules §8; ``seeded``: the deck and dice a self-service game's
    committed seeds gave, docs/fairness.md), by recording a physical table's hands, or — for
    a results-only table — no cards at all. Locks the round, then the banker's account."""
    round_ = round_lock(round_id)
    round_player_check(round_, by)
    round_require_state(round_, Round.State.BANKER_SET, doing="deal")
    wagers = round_active_wagers(round_)
    # Outcomes waiting for a pit boss (a results-only settlement) are decided first: a deal
    # would settle the round around them.
    approvals.approval_pending_check(ref=f"round:{round_id}")
    round_require_deal_mode(round_, Round.DealKind.RESULTS if results_only
                       else Round.DealKind.PHYSICAL if hands else Round.DealKind.ELECTRONIC)
    if not round_positions_against_bank(round_, wagers):
        raise Conflict("nothing to play: no wager against the bank", code="no_wagers")
    banker_cover_hold(round_, wagers, by)
    playing = round_positions_in_play(round_, wagers)
    rules = round_.table_rules

    if results_only:
        if hands:
            raise ValidationFailed("a results-only deal records no hands")
        round_.deal_kind = Round.DealKind.RESULTS
        event: dict[str, Any] = {"deal": "results", "positions": playing}
    elif hands:
        dealt = _parse_physical_hands(hands, playing)
        round_.deal_kind = Round.DealKind.PHYSICAL
        _create_hands(round_, dealt, rules)
        event = {"deal": "physical",
                 "hands": {p: paigow.format_cards(c) for p, c in dealt.items()}}
    else:
        if seeded is not None:
            shuffled, dice = seeded.deal, seeded.dice
        else:
            shuffled, dice = paigow.deal(rng), paigow.roll_dice(rng)
        order = paigow.deal_order(sum(dice), banker=round_.banker_position,
                                  first_stack=rules.first_stack)
        stacks = order.assign(shuffled.stacks)
        dealt = {p: stacks[p] for p in playing}
        round_.deal_kind = Round.DealKind.ELECTRONIC
        round_.dice = list(dice)
        round_.counted_position = order.counted
        round_.deal_order = list(order.order)
        round_.burnt = paigow.format_cards(shuffled.burnt)
        _create_hands(round_, dealt, rules)
        event = {"deal": "electronic", "dice": list(dice), "counted": order.counted,
                 "order": list(order.order),
                 "stacks": {p: paigow.format_cards(stacks[p]) for p in order.order},
                 "discarded": [p for p in order.order if p not in dealt],
                 "burnt": round_.burnt}
    # A physical deal being recorded card by card (rounds.services.deal_draft) is used up:
    # the "dealt" event keeps what was posted; the working state goes in this transaction.
    DealDraft.objects.filter(round_id=round_.pk).delete()
    round_.state = Round.State.DEALT
    # Every column the deal and the cover's hold set (banking.banker_cover_hold).
    round_.save(update_fields=_DEALT_COLUMNS)
    round_event_add(round_, "dealt", by, **event)
    return round_


# What a deal writes on the round: the deal's own columns and the cover held before it.
_DEALT_COLUMNS = ["state", "deal_kind", "dice", "counted_position", "deal_order", "burnt",
                  "solvency_required", "solvency_available", "banker_hold_id",
                  "third_party_hold_id", "fee_hold_ids"]


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
                  rules: TableRules) -> None:
    rows = []
    for position, cards in dealt.items():
        hand = Hand(round=round_, position=position, cards=paigow.format_cards(cards))
        if position == "dealer":
            # The dealer always sets by the house way (rules §9).
            _apply_setting(hand, paigow.house_way(cards, way=rules.house_way,
                                                  wheel=rules.wheel),
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
    the table's foul policy (rules §4). ``low`` alone: the two cards picked for the low
    hand, the other five of the seven making the high hand (the console's card picker).
    Locks the round.

    Game protection (rules §4.1): whose turn it is is checked before the cards given are
    looked at, so a refusal never says whether a card belongs to a hand not shown."""
    round_ = round_lock(round_id)
    round_player_check(round_, by)
    round_require_state(round_, Round.State.DEALT, doing="set a hand")
    if round_.deal_kind == Round.DealKind.RESULTS:
        raise WrongState("this round records results only; it has no cards to set")
    if position == "dealer":
        raise Conflict("the dealer's hand is always set by the house way", code="dealer_hand")
    hands = list(round_.hands.all())
    hand = next((h for h in hands if h.position == position), None)
    if hand is None:
        raise NotFound(f"position {position} has no hand in this round")
    # Rules §4.1, for every door: players set first; once the last player's hand is set the
    # bank's hand shows, so no player's hand changes any more; the bank's is set last.
    players_set = round_players_set(round_, hands)
    if position in round_bank_positions(round_):
        if not players_set:
            raise Conflict("the bank's hand is set last: set every player's hand first",
                           code="bank_sets_last", detail={"position": position})
    elif players_set:
        raise Conflict(
            f"every player's hand is set and the bank's hand is shown: seat {position}'s hand "
            "can no longer change", code="hands_revealed", detail={"position": position})
    rules = round_.table_rules
    seven = paigow.parse_cards(hand.cards)
    if house_way:
        setting = paigow.house_way(seven, way=rules.house_way, wheel=rules.wheel)
        _apply_setting(hand, setting, Hand.SetBy.HOUSE_WAY)
    else:
        if low is None:
            raise ValidationFailed("give the high and low hands, or ask for the house way",
                                   detail={"fields": {"high": ["5 cards"], "low": ["2 cards"]}})
        try:
            two = paigow.parse_cards(low, count=2)
            five = (paigow.parse_cards(high, count=5) if high is not None
                    else _the_rest(seven, two, position))
        except paigow.PaiGowError as exc:
            raise BadCards(str(exc)) from exc
        if Counter(five + two) != Counter(seven):
            raise BadCards(
                f"the setting must use exactly the seven cards dealt to position {position}: "
                f"{hand.cards}", detail={"cards": hand.cards})
        try:
            setting = paigow.validate_setting(seven, high=five, low=two, wheel=rules.wheel)
            _apply_setting(hand, setting, Hand.SetBy.PLAYER)
        except paigow.FoulSetting as exc:
            if not as_played:
                raise FoulRefused(str(exc), detail={"high": paigow.format_cards(five),
                                                    "low": paigow.format_cards(two)}) from exc
            if rules.foul_policy == Table.FoulPolicy.FORFEIT:
                hand.high, hand.low = paigow.format_cards(five), paigow.format_cards(two)
                hand.set_by = Hand.SetBy.FOUL_FORFEIT
            else:
                setting = paigow.house_way(seven, way=rules.house_way, wheel=rules.wheel)
                _apply_setting(hand, setting, Hand.SetBy.FOUL_HOUSE_WAY)
    hand.save(update_fields=["high", "low", "set_by"])
    round_event_add(round_, "hand_set", by, position=position, high=hand.high, low=hand.low,
                    set_by=hand.set_by)
    return hand


def _the_rest(seven: Sequence[paigow.Card], low: Sequence[paigow.Card],
              position: str) -> tuple[paigow.Card, ...]:
    """The five cards of the seven that are not the two picked for the low hand."""
    rest = list(seven)
    for card in low:
        if card not in rest:
            raise BadCards(f"pick the two low cards from the seven dealt to position "
                           f"{position}", detail={"position": position})
        rest.remove(card)
    return tuple(rest)
