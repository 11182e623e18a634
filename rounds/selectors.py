"""Reads of play that matter: tables with their seats, a round's wagers and who plays against
its bank, the bank's rotation. A round as a viewer sees it is rounds.round_view's."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import NamedTuple, Protocol

from django.contrib.auth.models import User
from django.db.models import BigIntegerField, Case, F, Prefetch, Q, QuerySet, Value, When
from django.db.models.expressions import CombinedExpression
from django.db.models.functions import Coalesce
from django.utils import timezone

from casino.models import Player
from casino.selectors import player_list
from casino.shared.errors import NotFound
from casino.shared.gaming_day import gaming_day_of
from rounds.models import DealerShift, Round, RoundEvent, RoundParty, Seat, Table, Wager
from rounds.paigow import rotation
from rounds.rules import TableRules
from rounds.settlement import positions_against_bank, positions_in_play


class RoundBank(Protocol):
    """What the rules of who plays against a round's bank read of it: a round, or a round
    as rounds.round_view shows it."""

    @property
    def banker_is_house(self) -> bool | None: ...
    @property
    def banker_seat(self) -> int | None: ...
    @property
    def house_stake(self) -> int: ...
    @property
    def banker_position(self) -> str: ...


class RoundKey(Protocol):
    """What the bank's rotation reads of a round to find the rest: a round, or a round as
    rounds.round_view shows it."""

    @property
    def pk(self) -> int: ...
    @property
    def table_id(self) -> int: ...
    @property
    def number(self) -> int: ...
    @property
    def table_rules(self) -> TableRules: ...


class WagerAmount(Protocol):
    @property
    def seat(self) -> int: ...
    @property
    def amount(self) -> int: ...
    @property
    def state(self) -> str: ...


def table_detail(*, table_id: int) -> Table:
    try:
        return Table.objects.prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("number"))
        ).get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound(f"no table #{table_id}") from None


def table_list() -> QuerySet[Table]:
    return Table.objects.prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("number"))
    ).order_by("id")


# --- dealers ------------------------------------------------------------------------------

def dealer_shift_open(*, table_id: int | None = None,
                      dealer_id: int | None = None) -> DealerShift | None:
    """The open shift at a table, or of a dealer (at most one each: the model's
    constraints), with its table and dealer read."""
    found = DealerShift.objects.filter(ended_at__isnull=True).select_related("table", "dealer")
    if table_id is not None:
        found = found.filter(table_id=table_id)
    if dealer_id is not None:
        found = found.filter(dealer_id=dealer_id)
    return found.first()


def table_dealers(table_ids: Sequence[int]) -> dict[int, DealerShift]:
    """Each table's dealer signed in now, by table id (one statement for the floor)."""
    return {shift.table_id: shift for shift in DealerShift.objects.filter(
        table_id__in=table_ids, ended_at__isnull=True).select_related("dealer")}


def dealers_to_sign_in() -> QuerySet[User]:
    """The active staff who may deal (run rounds), by name: whom a pit boss may sign in."""
    return (User.objects.filter(is_active=True)
            .filter(Q(groups__permissions__codename="run_rounds",
                      groups__permissions__content_type__app_label="rounds")
                    | Q(user_permissions__codename="run_rounds",
                        user_permissions__content_type__app_label="rounds"))
            .distinct().order_by("username"))


def dealer_shift_list(*, table_id: int | None = None, dealer: str | None = None,
                      gaming_day: date | None = None,
                      open_only: bool = False) -> QuerySet[DealerShift]:
    """Shifts, newest first, filtered as asked."""
    found = DealerShift.objects.select_related("table", "dealer", "started_by", "ended_by")
    if table_id is not None:
        found = found.filter(table_id=table_id)
    if dealer:
        found = found.filter(dealer__username=dealer)
    if gaming_day is not None:
        found = found.filter(gaming_day=gaming_day)
    if open_only:
        found = found.filter(ended_at__isnull=True)
    return found.order_by("-started_at", "-id")


def round_currency(*, round_id: int) -> str:
    """The round's currency, which an amount sent for it is read in."""
    currency = Round.objects.filter(pk=round_id).values_list("currency", flat=True).first()
    if currency is None:
        raise NotFound(f"no round #{round_id}")
    return currency


def round_active_wagers(round_: Round) -> list[Wager]:
    """The round's wagers still in play (not cleared before the deal), in seat order."""
    return list(Wager.objects.filter(round_id=round_.pk, state=Wager.State.ACTIVE)
                .order_by("seat", "id"))


def round_previous(round_: RoundKey) -> Round | None:
    """The last round played at the round's table before it (the bank's rotation)."""
    return (Round.objects.filter(table_id=round_.table_id, state__in=Round.State.PLAYED,
                                 number__lt=round_.number)
            .order_by("-number").first())


def round_previous_house_bank(round_: RoundKey) -> Round | None:
    """The last round the house banked at the table before this one: who wagered in it
    may bank (setting ``banker_must_have_played``)."""
    return (Round.objects.filter(table_id=round_.table_id, state__in=Round.State.PLAYED,
                                 banker_is_house=True, number__lt=round_.number)
            .order_by("-number").first())


def round_positions_against_bank(round_: RoundBank,
                                 wagers: Sequence[WagerAmount]) -> dict[str, int]:
    """Who plays against the round's bank, with each stake (rounds.settlement's one answer),
    from the round's wagers (those cleared before the deal play no part)."""
    return positions_against_bank(
        wagers={w.seat: w.amount for w in wagers if w.state == Wager.State.ACTIVE},
        banker_is_house=round_.banker_is_house, house_stake=round_.house_stake)


def round_positions_in_play(round_: RoundBank, wagers: Sequence[WagerAmount]) -> list[str]:
    """The positions dealt a hand: each against the bank, and the bank's own once chosen."""
    return positions_in_play(
        round_positions_against_bank(round_, wagers),
        banker_position=round_.banker_position if round_.banker_is_house is not None else None)


# --- the bank's rotation (rules §7.1): what rounds.paigow.rotation needs, read once ---------

BANK_DECLINED = "bank_declined"  # the kind of the event a declined offer records
BANK_OFFERED = "bank_offered"    # card room: the kind of the event an offer records


def player_last_wager_against_house(round_: RoundKey, player_id: int) -> int:
    """The player's most recent wager in a house-banked round played at the round's table
    (rules §7.3, ``house_stake_cap`` = ``last_wager``); 0 when they never made one."""
    last = (Wager.objects.filter(round__table_id=round_.table_id, player_id=player_id,
                                 state=Wager.State.ACTIVE, round__banker_is_house=True,
                                 round__state__in=Round.State.PLAYED)
            .exclude(round_id=round_.pk).order_by("-id").values_list("amount", flat=True).first())
    return last or 0


class BankStreak(NamedTuple):
    """The player who banked the last rounds played at a table, in a row (card room)."""

    player_id: int | None
    banks: int              # how many rounds in a row
    minutes: float | None   # since they took the bank, the first of those rounds


def round_bank_streak(round_: RoundKey) -> BankStreak:
    """Who banked the last played rounds before ``round_`` at its table, in a row, and since
    when: the card room's limits on holding the bank (max_consecutive_banks,
    rotation_minutes). Voided rounds were not played and do not break a run."""
    recent = list(Round.objects.filter(table_id=round_.table_id, state__in=Round.State.PLAYED,
                                       number__lt=round_.number)
                  .order_by("-number").values_list("pk", "banker_player_id")[:100])
    if not recent or recent[0][1] is None:
        return BankStreak(None, 0, None)
    player_id = recent[0][1]
    run = []
    for pk, banker in recent:
        if banker != player_id:
            break
        run.append(pk)
    taken = (RoundEvent.objects.filter(round_id=run[-1], kind="banker_set")
             .order_by("-id").values_list("at", flat=True).first())
    minutes = None if taken is None else (timezone.now() - taken).total_seconds() / 60
    return BankStreak(player_id, len(run), minutes)


def round_bank_table(round_: RoundKey) -> rotation.BankTable:
    """The round's table as the bank's rotation sees it now: who sits where, who wagered or
    declined this round, who played against the house last, who banked before. The service
    that sets the banker reads it under the round's lock; the screen reads it to show the
    offer, and the service decides again when the offer is taken."""
    rules = round_.table_rules
    seated = {number: (player_id, name) for number, player_id, name in
              Seat.objects.filter(table_id=round_.table_id, player__isnull=False)
              .values_list("number", "player_id", "player__name")}
    previous = round_previous(round_)
    last_player_bank = (Round.objects.filter(table_id=round_.table_id, banker_is_house=False,
                                             state__in=Round.State.PLAYED,
                                             number__lt=round_.number)
                        .order_by("-number").values_list("banker_seat", flat=True).first())
    last_house = round_previous_house_bank(round_)
    played_house = set() if last_house is None else set(
        last_house.wagers.filter(state=Wager.State.ACTIVE).values_list("player_id", flat=True))
    wagering = set(Wager.objects.filter(round_id=round_.pk, state=Wager.State.ACTIVE)
                   .values_list("seat", flat=True))
    # A decline is the player's: a seat taken since by someone else is offered again.
    declined = tuple(d["seat"] for d in
                     RoundEvent.objects.filter(round_id=round_.pk, kind=BANK_DECLINED)
                     .order_by("id").values_list("data", flat=True)
                     if d["seat"] in seated and seated[d["seat"]][0] == d["player"])
    streak = round_bank_streak(round_) if rules.card_room else BankStreak(None, 0, None)
    streak_seat = next((n for n, (player_id, _) in seated.items()
                        if player_id == streak.player_id), None)
    return rotation.BankTable(
        mode=rules.bank_mode.value, streak_seat=streak_seat, streak_banks=streak.banks,
        streak_minutes=streak.minutes, max_consecutive=rules.max_consecutive_banks,
        rotation_minutes=rules.rotation_minutes,
        rotation=rules.bank_rotation.value, must_have_played=rules.banker_must_have_played,
        seated={number: name for number, (_, name) in seated.items()},
        wagering=frozenset(wagering), declined=declined,
        played_against_house=frozenset(n for n, (player_id, _) in seated.items()
                                       if player_id in played_house),
        previous_round=previous.number if previous is not None else None,
        previous_banker_seat=previous.banker_seat
        if previous is not None and previous.banker_is_house is False else None,
        last_banker_seat=last_player_bank)


def table_seat(*, table_id: int, number: int) -> QuerySet[Seat]:
    """The table's seat ``number`` with its player; a service adds the row lock it needs."""
    return Seat.objects.filter(table_id=table_id, number=number).select_related("player")


def table_run_by(*, table_id: int, user: User) -> bool:
    """Whether ``user`` runs this table: they opened a round here this gaming day or took a
    step of one (a round's events say who), so a dealer relieving another mid-shift runs
    it from their first step."""
    return (Round.objects.filter(table_id=table_id, gaming_day=gaming_day_of())
            .filter(Q(opened_by=user) | Q(events__by=user)).exists())


def table_players(*, table_id: int) -> list[tuple[int, Player]]:
    """(seat number, player with its balance annotated) of each taken seat, in seat order."""
    seats = dict(Seat.objects.filter(table_id=table_id, player__isnull=False)
                 .values_list("player_id", "number"))
    players = player_list().filter(pk__in=seats)
    return sorted(((seats[p.pk], p) for p in players), key=lambda pair: pair[0])


# --- a settled round's figures, as its parties stored them ------------------------------------

def party_house_share() -> CombinedExpression:
    """What one party's stored figures give the house (RoundParty): the house's own net, and
    every party's commission and collection fee. Summed over a round's parties it is the
    round's house result (rules §7.7, §14.4), which the reports and the bands add up."""
    return Case(When(role=RoundParty.Role.HOUSE, then=F("net")), default=Value(0),
                output_field=BigIntegerField()) + F("commission") + F("fee")


# --- the order of setting the hands (rules §4.1) ----------------------------------------------

def round_bank_positions(round_: RoundBank) -> set[str]:
    """The positions whose hands are the bank's side: the dealer's (the house way, or the
    house stake against a player-bank) and a player-banker's seat."""
    bank = round_.banker_position if round_.banker_is_house is not None else ""
    return {bank, "dealer"} - {""}


class HandSet(Protocol):
    """What the order of setting reads of a hand: a hand, or a hand as a read brings it."""

    @property
    def position(self) -> str: ...
    @property
    def set_by(self) -> str: ...


def round_players_set(round_: RoundBank, hands: Sequence[HandSet]) -> bool:
    """Whether every player's hand is set (rules §4.1): from then on the bank's hand shows and
    no player's hand changes; before, the bank's is neither shown nor set."""
    guarded = round_bank_positions(round_)
    return all(h.set_by for h in hands if h.position not in guarded)


# --- who may read a table's past rounds ------------------------------------------------------

def table_history_readable(*, table_id: int, user: User) -> bool:
    """Whether ``user`` may read the table's round history (its rounds, who played them, the
    money): pit bosses and auditors every table's (they see every player), a dealer only
    the tables they run (table_run_by), as the table screen shows players' funds."""
    if not user.has_perm("rounds.view_round"):
        return False
    return user.has_perm("casino.view_player") or table_run_by(table_id=table_id, user=user)


def round_dealt_by() -> Case:
    """Who dealt a round, as every reader names it: the dealer signed in when it opened,
    else whoever opened it (rounds before dealers signed in), and "self-service" for a
    player's own game, which the service dealt (docs/rules.md §15)."""
    return Case(When(player__isnull=False, then=Value(SELF_SERVICE_DEALER)),
                default=Coalesce(F("dealer__username"), F("opened_by__username")))


SELF_SERVICE_DEALER = "self-service"
