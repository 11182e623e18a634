"""Tables and seats: settings change only between rounds and are recorded."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.exclusions import player_exclusion_check
from casino.models import Player
from casino.selectors import player_label
from casino.shared.errors import Conflict, NotFound, ValidationFailed
from casino.shared.money import MAX_MINOR, format_minor
from rounds import accounts, paigow
from rounds.errors import (
    PlayerSeatedElsewhere,
    SeatProblem,
    TableBusy,
)
from rounds.locks import (
    player_seating_lock,
    round_in_play_lock,
    seat_lock,
    seats_lock,
    table_lock,
)
from rounds.models import Round, Seat, SeatChange, Table, TableSettingsChange, Wager
from rounds.rules import fee_bands
from rounds.settlement import bands_check

# The bank's side of a round (six wagers plus a house stake) is one ledger amount.
MAX_TABLE_BET = MAX_MINOR // 8

# The table settings a round copies when it opens (rules §6-§9), and that a pit boss may
# change between rounds.
RULE_FIELDS = (
    "min_bet", "max_bet", "commission_rate", "commission_rounding", "wheel", "house_way",
    "bank_rotation", "banker_must_have_played", "house_stake_cap", "foul_policy",
    "co_banking", "first_stack", "deal_modes", "bank_mode", "collection_banker",
    "collection_player", "max_consecutive_banks", "rotation_minutes",
)
TABLE_FIELDS = ("name", "currency", "is_open", "self_service", *RULE_FIELDS)



# --- tables and seats ----------------------------------------------------------------------

def _deal_modes(modes: Any) -> Any:
    """One spelling per set of deal modes (the choices' order, each once), so a reordered
    list is no change to record; anything else is left for _check_table_rules to refuse."""
    if not isinstance(modes, list | tuple) or not all(isinstance(m, str) for m in modes):
        return modes
    known = [m for m in Table.DealMode.values if m in modes]
    return known + sorted(set(modes) - set(known))


def _check_table_rules(table: Table) -> None:
    modes = table.deal_modes if isinstance(table.deal_modes, list) else []
    unknown_modes = [m for m in modes if m not in Table.DealMode.values]
    if not modes or unknown_modes:
        raise ValidationFailed(
            "Choose how the table's rounds may be dealt: one or more of "
            f"{', '.join(Table.DealMode.values)}.",
            detail={"fields": {"deal_modes": [f"choose from {list(Table.DealMode.values)}"]}},
        )
    if table.house_way not in paigow.HOUSE_WAYS:
        raise ValidationFailed(
            f"There is no house way called {table.house_way!r}; choose one of "
            f"{', '.join(sorted(paigow.HOUSE_WAYS))}.",
            detail={"fields": {"house_way": [
                f"Choose one of {', '.join(sorted(paigow.HOUSE_WAYS))}."]}},
        )
    why = table_limits_refusal(min_bet=table.min_bet, max_bet=table.max_bet,
                               currency=table.currency)
    if why is not None:
        raise ValidationFailed(why, detail={"fields": {"max_bet": [why]}})
    _check_card_room_settings(table)
    if table.self_service and (table.bank_mode != Table.BankMode.CASINO
                               or list(modes) != [Table.DealMode.ELECTRONIC]):
        raise ValidationFailed(
            "A self-service table is banked by the house and dealt by the service: its bank "
            "mode is casino and its only deal mode electronic.",
            detail={"fields": {"self_service": ["house-banked and electronic only"]}})
    if not Decimal(0) <= Decimal(table.commission_rate) < Decimal(1):
        raise ValidationFailed("The commission is from 0 % up to, not including, 100 % of "
                               "the win (as a rate: at least 0 and below 1; 0.05 is 5 %).",
                               detail={"fields": {"commission_rate": ["at least 0, below 1"]}})
    table.full_clean(validate_unique=False, validate_constraints=False)


def table_limits_refusal(*, min_bet: int, max_bet: int, currency: str) -> str | None:
    """Why a table's limits are not limits, in words; None when they are. The one home of
    the rule: the service refuses by it, and the forms (the console's, the admin's) say it
    beside the field (the database's CHECK is the last guard)."""
    if min_bet <= 0 or max_bet < min_bet:
        return "The minimum bet must be positive and not above the maximum bet."
    if max_bet > MAX_TABLE_BET:
        # Six wagers and a house stake at the maximum must still fit in one ledger amount,
        # or a round within the limits could never be settled.
        return (f"The maximum bet may be at most {format_minor(MAX_TABLE_BET, currency)} "
                f"{currency}.")
    return None


def _check_card_room_settings(table: Table) -> None:
    if table.bank_mode not in Table.BankMode.values:
        raise ValidationFailed(
            f"bank_mode is one of {', '.join(Table.BankMode.values)}",
            detail={"fields": {"bank_mode": [f"choose from {list(Table.BankMode.values)}"]}})
    bands = table.collection_banker
    try:
        if not isinstance(bands, list) or not all(isinstance(b, dict) and set(b) ==
                                                  {"up_to", "fee"} for b in bands):
            raise TypeError
        why = bands_check(fee_bands(bands))
    except (TypeError, ValueError, KeyError):
        why = 'each band is {"up_to": amount or null, "fee": amount}'
    if why is None and any(b["fee"] > MAX_TABLE_BET or (b["up_to"] or 0) > MAX_MINOR
                           for b in bands):
        why = "a band's figures are too large"
    if why is not None:
        raise ValidationFailed(f"The bank's collection fee bands: {why}.",
                               detail={"fields": {"collection_banker": [why]}})
    if not isinstance(table.collection_player, int) or not \
            0 <= table.collection_player <= MAX_TABLE_BET:
        raise ValidationFailed("The players' collection fee is zero or more.",
                               detail={"fields": {"collection_player": ["zero or more"]}})
    if not isinstance(table.max_consecutive_banks, int) or not \
            1 <= table.max_consecutive_banks <= 100:
        raise ValidationFailed("A player may bank from 1 to 100 consecutive rounds.",
                               detail={"fields": {"max_consecutive_banks": ["from 1 to 100"]}})
    minutes = table.rotation_minutes
    if minutes is not None and (not isinstance(minutes, int) or not 1 <= minutes <= 24 * 60):
        raise ValidationFailed("The bank's rotation time is from 1 to 1440 minutes, or none.",
                               detail={"fields": {"rotation_minutes": ["1 to 1440, or null"]}})


@transaction.atomic
def table_create(*, by: User, name: str, **settings: Any) -> Table:
    """A new table with six empty seats; settings not given take the rules' defaults, but a
    card-room table takes no commission unless asked (rules §14: the room earns collection
    fees; commission on wins is not its model)."""
    unknown = set(settings) - set(TABLE_FIELDS)
    if unknown:
        raise ValidationFailed(f"unknown table settings: {', '.join(sorted(unknown))}")
    if settings.get("bank_mode") == Table.BankMode.CARD_ROOM:
        settings.setdefault("commission_rate", Decimal(0))
    if settings.get("self_service"):
        # The service deals a player's own game; nobody records cards or outcomes there.
        settings.setdefault("deal_modes", [Table.DealMode.ELECTRONIC])
    if "deal_modes" in settings:
        settings["deal_modes"] = _deal_modes(settings["deal_modes"])
    table = Table(name=name, created_by=by, **settings)
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
    table = table_lock(table_id)
    unknown = set(changes) - set(TABLE_FIELDS) - {"currency"}
    if unknown:
        raise ValidationFailed(f"unknown table settings: {', '.join(sorted(unknown))}")
    if "currency" in changes and changes["currency"] != table.currency:
        raise ValidationFailed("a table's currency cannot change; open a new table")
    if Round.objects.filter(table=table, state__in=Round.State.OPEN).exists():
        raise TableBusy("Settings change only between rounds: this table has a round in play.")
    diff: dict[str, list[Any]] = {}
    if "deal_modes" in changes:
        changes = {**changes, "deal_modes": _deal_modes(changes["deal_modes"])}
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


def round_rules_of(table: Table) -> dict[str, Any]:
    """The table's settings as a round copies them when it opens (``Round.rules``)."""
    return {field: _jsonable(getattr(table, field)) for field in RULE_FIELDS}


def _jsonable(value: Any) -> Any:
    return str(value) if isinstance(value, Decimal) else value


@transaction.atomic
def seat_take(*, table_id: int, number: int, player_id: int, by: User) -> Seat:
    """Seat a player: one seat, at one table, at a time (a player's rating and their cash
    are one person's, and a player cannot play two tables at once).

    Locks the table, its seat rows in primary-key order, then the player's row (FOR NO KEY
    UPDATE: it queues a seating of the same player at another table, which holds that
    table's locks, and blocks nothing that only refers to the player, such as a wager).
    The database refuses a second seat as well (``seat_one_per_player``)."""
    table = table_lock(table_id)
    seat_number_check(number)
    if table.self_service:
        raise SeatProblem(f"{table.name} is a self-service table: players play their own "
                          "games there (/play/), no one takes a seat",
                          code="self_service_table", detail={"table_id": table.pk})
    seats = {s.number: s for s in seats_lock(table.pk)}
    player = player_seating_lock(player_id)
    if player is None:
        raise NotFound(f"no player #{player_id}")
    # Named apart from a namesake already at the table ("Anna #4").
    who = player_label(player, among=Player.objects.filter(
        pk__in=[s.player_id for s in seats.values() if s.player_id]))
    if player.kind == Player.Kind.PROPOSITION:
        # A proposition player banks from off the table (card room): it never plays a seat.
        raise SeatProblem(f"{who} is a third-party proposition player: it covers the bank "
                          "from off the table and never takes a seat",
                          code="proposition_player_not_seated",
                          detail={"player": player.pk})
    if player.currency != table.currency:
        raise SeatProblem(
            f"{who} plays in {player.currency}; this table plays in {table.currency}"
        )
    # Self-excluded or barred: refused here as at every door (casino.exclusions).
    player_exclusion_check(player=player, doing="be seated")
    seat = seats[number]
    if seat.player_id == player.pk:
        return seat
    if seat.player_id is not None:
        raise SeatProblem(f"seat {number} is taken; the player there must leave first",
                          detail={"seat": number, "player": seat.player_id})
    elsewhere = [s.number for s in seats.values() if s.player_id == player.pk]
    if elsewhere:
        raise SeatProblem(f"{who} already sits at seat {elsewhere[0]} of this table",
                          detail={"seat": elsewhere[0]})
    seated_elsewhere_check(player=player, table=table)
    seat.player = player
    seat.since = timezone.now()
    seat.save(update_fields=["player", "since"])
    SeatChange.objects.create(table=table, number=number, player=player,
                              kind=SeatChange.Kind.TOOK, by=by)
    return seat


def seated_elsewhere_check(*, player: Player, table: Table) -> None:
    """Refuse (409 ``player_seated_elsewhere``, naming where) to seat a player who sits at
    another table. The caller holds the player's row locked, so the seat read here is the
    last one committed."""
    other = (Seat.objects.filter(player=player).exclude(table=table).select_related("table")
             .first())
    if other is None:
        return
    # Named apart from a namesake at either table ("Anna #4").
    who = player_label(player, among=Player.objects.filter(
        seats__table__in=[table.pk, other.table_id]))
    raise PlayerSeatedElsewhere(
        f"{who} already sits at {other.table.name}, seat {other.number}: they leave that "
        "seat first",
        detail={"player": player.pk, "table": other.table_id,
                "table_name": other.table.name, "seat": other.number})


@transaction.atomic
def seat_leave(*, table_id: int, number: int, by: User) -> Seat:
    """The player leaves, unless they have a wager or the bank in the round in play.

    Locks the table, then the round in play, then the seat (the lock order of
    rounds.services): a wager or a bank being placed holds the round, so the leave waits
    for it and then sees it, or goes first and the wager finds the seat empty.
    """
    table = table_lock(table_id)
    seat_number_check(number)
    open_round = round_in_play_lock(table.pk)
    seat = seat_lock(table_id=table.pk, number=number)
    assert seat is not None  # a table has its six seats from its opening
    if seat.player_id is None:
        return seat
    if open_round is not None:
        if open_round.wagers.filter(seat=number, state=Wager.State.ACTIVE).exists():
            raise SeatProblem(f"seat {number} has a wager in round {open_round.number}; "
                              "clear it or finish the round first")
        if open_round.banker_seat == number:
            raise SeatProblem(f"seat {number} holds the bank in round {open_round.number}")
    leaving = seat.player_id
    seat.player = None
    seat.since = None
    seat.save(update_fields=["player", "since"])
    SeatChange.objects.create(table=table, number=number, player_id=leaving,
                              kind=SeatChange.Kind.LEFT, by=by)
    return seat


def seat_number_check(number: int) -> None:
    if number not in range(1, 7):
        raise ValidationFailed(f"seats are numbered 1 to 6, not {number}",
                               detail={"fields": {"seat": ["a seat from 1 to 6"]}})
