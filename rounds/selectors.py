"""Reads of play that matter: a round with its whole story, tables with their seats."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, NamedTuple

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import F, Prefetch, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone

from casino.models import Player
from casino.selectors import player_list
from casino.shared.approvals import Approval
from casino.shared.db import SqlRead, SqlRows, columns, read_together
from casino.shared.errors import NotFound
from casino.shared.gaming_day import gaming_day_of
from rounds.models import POSITIONS, Hand, Round, RoundEvent, Seat, Table, Wager
from rounds.paigow import rotation
from rounds.settlement import positions_against_bank, positions_in_play


def _pending_sql(round_id: str) -> str:
    """The requests about a round that wait for a second person (casino.shared.approvals),
    as one JSON text column, oldest first: read with the round, not as a query of its own."""
    return (
        "(SELECT coalesce(json_agg(json_build_object('id', a.id, 'action', a.action, "
        "'summary', a.summary, 'requested_by', ru.username, 'requested_at', a.requested_at) "
        f"ORDER BY a.id), '[]'::json)::text FROM \"{Approval._meta.db_table}\" a "
        f'JOIN "{User._meta.db_table}" ru ON ru.id = a.requested_by_id '
        f"WHERE a.status = '{Approval.Status.PENDING.value}' AND a.ref = 'round:' || {round_id})")


def round_pending_approvals(round_: Round) -> list[dict[str, Any]]:
    """The requests about the round waiting for a second person, as round_detail and
    table_rounds read them with the round: id, action, summary, requested_by (a username),
    requested_at."""
    rows: list[dict[str, Any]] = json.loads(round_.pending_approval_json)
    for row in rows:
        row["requested_at"] = datetime.fromisoformat(row["requested_at"])
    return rows


_PENDING = f"SELECT {_pending_sql('%s')}"

# The reads of round_detail, written as SQL (casino.shared.db.SqlRead): every step of a
# round answers with the whole round. Who opened the round and who took each step are shown
# by username only (RoundOut): the name comes as a column, not as a whole user row made into
# a User each time. Each in its model's order (Meta.ordering).
ROUND = SqlRead(
    Round, f'SELECT {columns(Round, "r")}, u.username FROM "{Round._meta.db_table}" r '
    f'LEFT JOIN "{User._meta.db_table}" u ON u.id = r.opened_by_id WHERE r.id = %s',
    extra=["opened_by_username"])
WAGERS = SqlRead(
    Wager, f'SELECT {columns(Wager, "w")} FROM "{Wager._meta.db_table}" w '
    "WHERE w.round_id = %s ORDER BY w.seat, w.id")
HANDS = SqlRead(
    Hand, f'SELECT {columns(Hand, "h")} FROM "{Hand._meta.db_table}" h '
    "WHERE h.round_id = %s ORDER BY h.id")
ACTIVE_WAGERS = SqlRead(
    Wager, f'SELECT {columns(Wager, "w")} FROM "{Wager._meta.db_table}" w '
    f"WHERE w.round_id = %s AND w.state = '{Wager.State.ACTIVE.value}' ORDER BY w.seat, w.id")
# The round's pending requests come with its events, which every answer reads (a step holds
# the round, never its earlier events): one column, the same on each row, evaluated once
# (it names the round by the parameter, not by the row). Parameters: the round's id, twice.
EVENTS = SqlRead(
    RoundEvent, f'SELECT {columns(RoundEvent, "e")}, u.username, {_pending_sql("%s")} '
    f'FROM "{RoundEvent._meta.db_table}" e LEFT JOIN "{User._meta.db_table}" u ON u.id = e.by_id '
    "WHERE e.round_id = %s ORDER BY e.id", extra=["by_username", "pending_approval_json"])


def round_detail(*, round_id: int, held: Round | None = None) -> Round:
    """A round with what RoundOut shows, read in one round trip (casino.shared.db.
    read_together): the round with who opened it, its wagers, its hands, its events with who
    took each step (``opened_by_username``, ``by_username``), each in its model's order, as
    ``wager_rows``, ``hand_rows`` and ``event_rows`` (table_rounds gives each of its rounds
    the same attributes). (RoundOut shows the table and the banker by their ids, so neither
    row is joined.)

    ``held``: the round as the step that has just written it holds it, in the same
    transaction, with ``opened_by_username`` (round_settle's): it is not read again, nor
    the rows the step attached (its wagers, its hands, its events as EVENTS reads them)."""
    round_ = held if held is not None and held.pk == round_id \
        and hasattr(held, "opened_by_username") else None
    reads: list[tuple[SqlRead[Any], Sequence[Any]]] = []
    if round_ is None:
        reads.append((ROUND, (round_id,)))
    if round_ is None or not hasattr(round_, "wager_rows"):
        reads.append((WAGERS, (round_id,)))
    if round_ is None or not hasattr(round_, "hand_rows"):
        reads.append((HANDS, (round_id,)))
    if round_ is None or not hasattr(round_, "event_rows"):
        reads.append((EVENTS, (round_id, round_id)))
    found = dict(zip((read for read, _ in reads), read_together(*reads), strict=True)) \
        if reads else {}
    if round_ is None:
        if not found[ROUND]:
            raise NotFound(f"no round #{round_id}")
        round_ = found[ROUND][0]
    if WAGERS in found:
        round_.wager_rows = found[WAGERS]
    if HANDS in found:
        round_.hand_rows = found[HANDS]
    if EVENTS in found:
        round_.event_rows = found[EVENTS]
    if round_.event_rows:
        first: Any = round_.event_rows[0]  # EVENTS' extra column, the same on every row
        round_.pending_approval_json = first.pending_approval_json
    else:  # every round has its "opened" event; read on its own all the same
        with connection.cursor() as cursor:
            cursor.execute(_PENDING, [round_id])
            round_.pending_approval_json = cursor.fetchone()[0]
    return round_


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


def table_rounds(*, table_id: int, state: str | None = None,
                 gaming_day: date | None = None) -> QuerySet[Round]:
    if not Table.objects.filter(pk=table_id).exists():
        raise NotFound(f"no table #{table_id}")
    # (django-stubs takes a Prefetch's to_attr for a new attribute; Round declares them.)
    rounds = Round.objects.filter(table_id=table_id).select_related(  # type: ignore[no-redef]
        "table", "banker_player").annotate(
        opened_by_username=F("opened_by__username"),
        # Table names and constants only, no input: the same column round_detail reads.
        pending_approval_json=RawSQL(  # noqa: S611
            _pending_sql(f'"{Round._meta.db_table}"."id"'), ()),
    ).prefetch_related(
        Prefetch("wagers", to_attr="wager_rows"), Prefetch("hands", to_attr="hand_rows"),
        Prefetch("events", queryset=RoundEvent.objects.annotate(by_username=F("by__username")),
                 to_attr="event_rows"))
    if state:
        rounds = rounds.filter(state=state)
    if gaming_day:
        rounds = rounds.filter(gaming_day=gaming_day)
    return rounds.order_by("-number")


# Written as SQL: the API asks it before each wager, and the ORM's query cost more to build
# than to run.
_CURRENCY = SqlRows(Round, f'SELECT r."currency" FROM "{Round._meta.db_table}" r '
                    "WHERE r.id = %s")


def round_currency(*, round_id: int) -> str:
    """The round's currency, which an amount sent for it is read in."""
    found = _CURRENCY.all(round_id)
    if not found:
        raise NotFound(f"no round #{round_id}")
    return str(found[0][0])


def round_active_wagers(round_: Round) -> list[Wager]:
    """The round's wagers still in play (not cleared before the deal), in seat order."""
    return ACTIVE_WAGERS.all(round_.pk)


def round_wagers(*, round_id: int) -> list[Wager]:
    """Every wager of the round, cleared ones too, in their model's order (seat, then id)."""
    return WAGERS.all(round_id)


def round_hands(*, round_id: int) -> list[Hand]:
    """The round's hands, in their model's order (dealt, set, settled)."""
    return HANDS.all(round_id)


def round_previous(round_: Round) -> Round | None:
    """The last round played at the round's table before it (the bank's rotation)."""
    return (Round.objects.filter(table_id=round_.table_id, state__in=Round.State.PLAYED,
                                 number__lt=round_.number)
            .order_by("-number").first())


def round_previous_house_bank(round_: Round) -> Round | None:
    """The last round the house banked at the table before this one: who wagered in it
    may bank (setting ``banker_must_have_played``)."""
    return (Round.objects.filter(table_id=round_.table_id, state__in=Round.State.PLAYED,
                                 banker_is_house=True, number__lt=round_.number)
            .order_by("-number").first())


def round_positions_against_bank(round_: Round,
                                 wagers: Sequence[Wager] | None = None) -> dict[str, int]:
    """Who plays against the round's bank, with each stake (rounds.settlement's one answer):
    from ``wagers``, the round's wagers in play when the caller has them, else read now."""
    in_play = round_active_wagers(round_) if wagers is None else wagers
    return positions_against_bank(
        wagers={w.seat: w.amount for w in in_play if w.state == Wager.State.ACTIVE},
        banker_is_house=round_.banker_is_house, house_stake=round_.house_stake)


def round_positions_in_play(round_: Round, wagers: Sequence[Wager] | None = None) -> list[str]:
    """The positions dealt a hand: each against the bank, and the bank's own once chosen."""
    return positions_in_play(
        round_positions_against_bank(round_, wagers),
        banker_position=round_.banker_position if round_.banker_is_house is not None else None)


# --- the bank's rotation (rules §7.1): what rounds.paigow.rotation needs, read once ---------

BANK_DECLINED = "bank_declined"  # the kind of the event a declined offer records
BANK_OFFERED = "bank_offered"    # card room: the kind of the event an offer records


def round_bank_declined(events: Iterable[RoundEvent]) -> list[dict[str, int]]:
    """Who declined the bank in a round, in order, from its events: ``{"seat", "player"}``."""
    return [{"seat": e.data["seat"], "player": e.data["player"]}
            for e in events if e.kind == BANK_DECLINED]


def player_last_wager_against_house(round_: Round, player_id: int) -> int:
    """The player's most recent wager in a house-banked round played at the round's table
    (rules §7.3, ``house_stake_cap`` = ``last_wager``); 0 when they never made one."""
    last = (Wager.objects.filter(round__table_id=round_.table_id, player_id=player_id,
                                 state=Wager.State.ACTIVE, round__banker_is_house=True,
                                 round__state__in=Round.State.PLAYED)
            .exclude(round=round_).order_by("-id").values_list("amount", flat=True).first())
    return last or 0


class BankStreak(NamedTuple):
    """The player who banked the last rounds played at a table, in a row (card room)."""

    player_id: int | None
    banks: int              # how many rounds in a row
    minutes: float | None   # since they took the bank, the first of those rounds


def round_bank_streak(round_: Round) -> BankStreak:
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


def round_bank_table(round_: Round) -> rotation.BankTable:
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
    wagering = set(round_.wagers.filter(state=Wager.State.ACTIVE).values_list("seat", flat=True))
    # A decline is the player's: a seat taken since by someone else is offered again.
    declined = tuple(d["seat"] for d in round_bank_declined(
        round_.events.filter(kind=BANK_DECLINED).order_by("id"))
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


# Game protection (rules §4.1): while a round is in play and a player's hand is still to be set,
# nobody watching the round may learn the banker's or the dealer's cards, nor the stacks and
# burnt cards not dealt to a player. Once every player's hand is set, the banker's may show;
# once the round is over, everything does.


def round_hand_list(round_: Round) -> list[Hand]:
    """The round's hands: those round_detail or table_rounds read with it (``hand_rows``),
    else its ``hands`` (prefetched by the caller, or read now)."""
    rows = getattr(round_, "hand_rows", None)
    return list(round_.hands.all()) if rows is None else rows


def round_is_protected(round_: Round) -> bool:
    """Whether the deal's hidden cards (stacks, burnt, the event log's cards) stay hidden."""
    return round_.state in Round.State.OPEN


# Keys of the deal's event that hold cards no player's own hand shows: the stacks (every
# position's seven, the dealer's and the unused ones), the burnt cards, and a physical
# deal's recorded hands (the dealer's and a player-banker's among them).
_DEALT_CARDS = ("stacks", "burnt", "hands")


def round_event_data(round_: Round, event: RoundEvent) -> dict:
    """What anyone may see of an event's data now (game protection): while the round is in
    play, none of the deal's cards beyond each hand's own, which the hands show."""
    if not round_is_protected(round_) or event.kind != "dealt":
        return event.data
    return {key: value for key, value in event.data.items() if key not in _DEALT_CARDS}


def round_bank_positions(round_: Round) -> set[str]:
    """The positions whose hands are the bank's side: the dealer's (the house way, or the
    house stake against a player-bank) and a player-banker's seat."""
    bank = round_.banker_position if round_.banker_is_house is not None else ""
    return {bank, "dealer"} - {""}


def round_players_set(round_: Round, hands: list[Hand] | None = None) -> bool:
    """Whether every player's hand is set (rules §4.1): from then on the bank's hand shows and
    no player's hand changes; before, the bank's is neither shown nor set."""
    guarded = round_bank_positions(round_)
    return all(h.set_by for h in (round_hand_list(round_) if hands is None else hands)
               if h.position not in guarded)


def round_hidden_positions(round_: Round) -> set[str]:
    """The positions whose cards may not be shown yet: the banker's and the dealer's while
    any player's hand is still to be set in a round in play."""
    if not round_is_protected(round_):
        return set()
    return set() if round_players_set(round_) else round_bank_positions(round_)


# --- a round's settlement, as every screen shows it ------------------------------------------

@dataclass(frozen=True)
class PositionSettlement:
    """One position's result against the bank, from the position's point of view."""

    position: str       # "dealer" (the house stake against a player-bank) or "1"-"6"
    wager: int          # minor units, as every figure here
    outcome: str        # win / push / loss (Hand.Outcome)
    high: str           # the high hand's result, "" when no cards were shown down
    low: str
    amount: int | None  # won (+) or lost (-), before commission
    commission: int
    # Card room: who covered the wager (the rest got no action) and its collection fee.
    cover_banker: int = 0
    cover_third_party: int = 0
    fee: int = 0
    card_room: bool = False

    @property
    def net(self) -> int:
        return (self.amount or 0) - self.commission - self.fee

    @property
    def uncovered(self) -> int:
        return self.wager - self.cover_banker - self.cover_third_party if self.card_room else 0


@dataclass(frozen=True)
class SettlementSummary:
    """A settled (or settled, then reversed) round's money, read from its rows once: the API,
    the admin and the table screen render these figures and work none out themselves."""

    positions: tuple[PositionSettlement, ...]   # in position order, the banker's left out
    banker_position: str
    banker_is_house: bool
    banker_net: int | None        # everything the bank won less all it paid
    banker_commission: int | None  # a player-banker's commission on its net win (rules §7.6)
    house_stake_result: int | None  # + the house stake won, - lost (player-banked rounds)
    house_bank_share: int         # co-banking: the house's half of the bank's result
    co_banked: bool
    commission_income: int        # the house's commission from players and banker
    entry_id: int | None          # the settlement's ledger entry (none: every hand pushed)
    reversal_entry_id: int | None
    # Card room: the proposition player (its id, result before commission and fee, its
    # commission) and the collection fees (the bank's, all the wagers'), None elsewhere.
    card_room: bool = False
    third_party_id: int | None = None
    third_party_net: int | None = None
    third_party_commission: int | None = None
    collection_banker: int | None = None
    collection_players: int | None = None

    @property
    def collection_paid_by(self) -> str | None:
        """Who paid the bank's collection fee: the player-dealer, or the proposition player
        banking alone."""
        if not self.card_room or not self.collection_banker:
            return None
        return "third_party" if self.banker_position == "dealer" else "player_dealer"


def round_settlement(round_: Round) -> SettlementSummary | None:
    """The round's settlement, or None while it is not settled. Reads the round's hands
    (read with it by round_detail and table_rounds: no query then)."""
    if round_.state not in Round.State.PLAYED:
        return None
    bank = round_.banker_position
    hands = sorted((h for h in round_hand_list(round_) if h.outcome and h.position != bank),
                   key=lambda h: POSITIONS.index(h.position))
    card_room = round_.table_rules.card_room
    return SettlementSummary(
        positions=tuple(PositionSettlement(
            position=h.position, wager=h.wager, outcome=h.outcome, high=h.high_result,
            low=h.low_result, amount=h.amount, commission=h.commission,
            cover_banker=h.cover_banker, cover_third_party=h.cover_third_party, fee=h.fee,
            card_room=card_room) for h in hands),
        banker_position=bank,
        banker_is_house=bool(round_.banker_is_house),
        banker_net=round_.banker_net,
        banker_commission=round_.banker_commission,
        house_stake_result=round_.house_stake_result,
        house_bank_share=round_.house_bank_share,
        co_banked=round_.table_rules.co_banking and round_.banker_is_house is False,
        commission_income=(round_.player_commission or 0) + (round_.banker_commission or 0)
        + (round_.third_party_commission or 0),
        entry_id=round_.entry_id,
        reversal_entry_id=round_.reversal_entry_id,
        card_room=card_room,
        third_party_id=round_.third_party_id,
        third_party_net=round_.third_party_net,
        third_party_commission=round_.third_party_commission,
        collection_banker=round_.collection_banker,
        collection_players=round_.collection_players,
    )


# --- who may read a table's past rounds ------------------------------------------------------

def table_history_readable(*, table_id: int, user: User) -> bool:
    """Whether ``user`` may read the table's round history (its rounds, who played them, the
    money): pit bosses and auditors every table's (they see every player), a dealer only
    the tables they run (table_run_by), as the table screen shows players' funds."""
    if not user.has_perm("rounds.view_round"):
        return False
    return user.has_perm("casino.view_player") or table_run_by(table_id=table_id, user=user)
