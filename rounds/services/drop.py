"""Cash at the table and the count of the drop box (docs/rules.md, "Drop and win").

- A buy-in: a seated player hands the dealer cash; it goes through the slot into the
  table's drop box and the player's account is credited from the drop box's account, one
  ledger entry of kind ``buy_in``. ``buy_in_take`` validates (``buy_in_check``), then
  writes (``buy_in_post``), in one transaction. One that brings the player's buy-ins at
  the table in the gaming day above ``CASINO_BUY_IN_APPROVAL_ABOVE`` waits for a pit
  boss's approval (``buy_in_submit``): credited on the dealer's word, it could be paid
  out at the cage before the box's count shows whether the cash was ever there.
- A drop count: two people count a table's box for a gaming day, the counter and a named
  witness, and each signs with their own credentials. The counter records what was found
  (``drop_count_record``): the count awaits its witness and nothing moves. The witness
  confirms it (``drop_count_confirm``): then the counted cash moves from the drop box to
  the cage (an entry of kind ``drop_count``) and what the count found more or less than
  the day's buy-ins recorded (read then, under the table's lock) moves to the table's
  variance account (``drop_variance``). Or the witness refuses it (``drop_count_refuse``):
  nothing moves, and the box is counted again. A variance is an exception that someone
  other than its counter explains (``drop_count_explain``). One posted count per table and
  gaming day; a wrong one is corrected by a pit boss: its entries reversed and the box
  counted again, the recount awaiting its own witness.

Locking follows rounds.services: the table row first (a buy-in and a count of the same
table queue there, so a count's "recorded" cannot miss a buy-in committing beside it),
then the seat, then the ledger's accounts in primary-key order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from casino import cash
from casino.exclusions import player_exclusion_check
from casino.models import Player
from casino.shared import approvals
from casino.shared.approvals import Approval
from casino.shared.errors import Conflict, NotFound, PermissionRefused, ValidationFailed
from casino.shared.gaming_day import gaming_day_of
from casino.shared.money import to_minor
from casino.shared.permissions import permission_refused
from ledger import services as ledger
from ledger.models import Account, Entry
from ledger.services import account_lock
from rounds.accounts import (
    drop_box_account,
    drop_variance_account,
    player_account,
    table_ref,
)
from rounds.drop import BUY_IN, DROP_COUNT, DROP_VARIANCE, drop_recorded, player_buy_ins
from rounds.locks import drop_count_lock, seat_lock, table_lock
from rounds.models import DropCount, Table
from rounds.services.tables import seat_number_check

if TYPE_CHECKING:
    from django.contrib.auth.models import User

TAKE_BUY_IN = "rounds.take_buy_in"
# A buy-in past the line: the request a pit boss approves (rounds.approvals).
BUY_IN_ACTION = "rounds.buy_in"
APPROVE_BUY_IN = "casino.approve_buy_in"
COUNT_DROP = "rounds.count_drop"
WITNESS_DROP = "rounds.witness_drop"
CORRECT_DROP = "rounds.correct_drop_count"
# The corrections' requests for a second pit boss, under dual control (rounds.approvals).
CORRECT_BUY_IN = "rounds.buy_in_correct"
CORRECT_COUNT = "rounds.drop_count_correct"


# --- buy-ins ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class BuyIn:
    """A buy-in as taken: its ledger entry and what it was for (amount in minor units)."""

    entry_id: int
    table_id: int
    seat: int
    player_id: int
    player_name: str
    amount: int
    currency: str
    gaming_day: date
    created_at: datetime


def buy_in_check(*, table_id: int, seat: int, amount: int, by: User | None,
                 ) -> tuple[Table, Player]:
    """Whether the dealer may take this cash at this seat now: the permission, a positive
    amount, an open table, a player in the seat. Returns the table (locked, when called in
    a transaction) and the seated player (the seat locked likewise)."""
    if by is None or not by.has_perm(TAKE_BUY_IN):
        raise permission_refused(TAKE_BUY_IN)
    seat_number_check(seat)
    if amount <= 0:
        raise ValidationFailed("A buy-in must be positive.", code="invalid_amount",
                               detail={"fields": {"amount": ["a positive amount"]}})
    table = table_lock(table_id)
    if not table.is_open:
        raise Conflict(f"{table.name} is closed: it takes no cash.", code="table_closed",
                       detail={"table_id": table_id})
    row = seat_lock(table_id=table.pk, number=seat)
    if row is None or row.player is None:
        raise Conflict(f"Seat {seat} of {table.name} is empty: seat the player first.",
                       code="seat_empty", detail={"table_id": table_id, "seat": seat})
    # A player excluded while seated brings no more cash to the table (casino.exclusions).
    player_exclusion_check(player=row.player, doing="buy in")
    today = gaming_day_of()
    # A box counted today holds nothing the count did not see: cash taken after it would
    # stay in the box uncounted (the day is counted once), so the table takes no more
    # until the next gaming day. The table's row is locked, so a count waits for us or
    # we see it.
    # A count awaiting its witness holds the box too: the witness confirms what is in it.
    if _counts_of_the_day(table, today).exists():
        raise Conflict(f"{table.name}'s drop box for gaming day {today} is already counted: "
                       "it takes no more cash today.", code="drop_counted",
                       detail={"table_id": table_id, "gaming_day": str(today)})
    return table, row.player


def buy_in_line(currency: str) -> int:
    """The most a player buys in for at one table in a gaming day on the dealer's word
    alone (``CASINO_BUY_IN_APPROVAL_ABOVE``), in minor units."""
    return to_minor(str(settings.CASINO_BUY_IN_APPROVAL_ABOVE), currency)


def buy_ins_today(*, table_id: int, player: Player) -> int:
    """What ``player`` bought in for at the table in the current gaming day (minor units)."""
    return player_buy_ins(account_id=player_account(player).pk,
                          gaming_day=gaming_day_of()).get(table_id, 0)


def buy_in_post(*, table: Table, seat: int, player: Player, amount: int,
                by: User | None, approved_by: Approval | None = None) -> BuyIn:
    """Credit the player's account from the table's drop box: one ``buy_in`` entry.

    The caller holds the table's row and the seat's locked (buy_in_check), so the player is
    still seated and a count of the table waits for this entry; entry_post locks the two
    accounts in primary-key order."""
    box = drop_box_account(table)
    account = player_account(player)
    # Cash in for the player's day (casino.cash): both accounts locked first, in primary-key
    # order as entry_post takes them, so two buy-ins or a deposit at once count one after
    # the other; past the identity line without an identity on file, nothing is posted.
    account_lock(account_ids=sorted([box.pk, account.pk]))
    cash.cash_movement_check(player=player, direction="in", amount=amount)
    # Past the buy-in line a pit boss approves first, whoever calls; the day's buy-ins are
    # read under the table's and the accounts' locks, so two at once cannot both pass on
    # one reading (casino.shared.approvals).
    approvals.approval_required_check(
        action=BUY_IN_ACTION,
        params={"table_id": table.pk, "seat": seat, "player_id": player.pk,
                "amount_minor": amount},
        by=by, approved_by=approved_by)
    entry = ledger.entry_post(
        kind=BUY_IN, memo=f"Buy-in at {table.name}, seat {seat}",
        lines=[(box.pk, -amount), (account.pk, amount)], by=by, ref=table_ref(table.pk))
    cash.cash_movement_record(player=player, entry=entry)
    return BuyIn(entry_id=entry.pk, table_id=table.pk, seat=seat, player_id=player.pk,
                 player_name=player.name, amount=amount, currency=table.currency,
                 gaming_day=gaming_day_of(entry.created_at), created_at=entry.created_at)


def buy_in_take(*, table_id: int, seat: int, amount: int, by: User | None,
                player_id: int | None = None, approved_by: Approval | None = None,
                ) -> BuyIn:
    """Cash a dealer takes at the table from the player in ``seat``: validate, then write,
    in one transaction (a refusal changes nothing). Past the buy-in line it needs a pit
    boss's approval (``approved_by``, handed over by approval_decide; buy_in_submit asks
    for it). ``player_id``: the player the cash was taken from, when asked earlier (a
    request approved later): refused if the seat now holds someone else."""
    with transaction.atomic():
        # Every check that may refuse the buy-in runs here, before the entry is posted.
        table, player = buy_in_check(table_id=table_id, seat=seat, amount=amount, by=by)
        if player_id is not None and player.pk != player_id:
            raise Conflict(f"Seat {seat} of {table.name} now holds {player.name}, not the "
                           "player this cash was taken from: reject the request.",
                           code="seat_changed",
                           detail={"table_id": table_id, "seat": seat,
                                   "player_id": player_id, "seated": player.pk})
        return buy_in_post(table=table, seat=seat, player=player, amount=amount, by=by,
                           approved_by=approved_by)


def buy_in_submit(*, table_id: int, seat: int, amount: int,
                  by: User | None) -> approvals.Submitted:
    """A buy-in as the API and the console take it: posted now, or, past the buy-in line,
    filed for a pit boss's approval with nothing moved (casino.shared.approvals). The
    request names the player seated now, so an approval never credits someone else."""
    with transaction.atomic():
        # Refused now what would be refused anyway (who may, the amount, the table, the
        # seat); the locks are let go: buy_in_take takes them again to write.
        _, player = buy_in_check(table_id=table_id, seat=seat, amount=amount, by=by)
    assert by is not None
    return approvals.action_submit(
        action=BUY_IN_ACTION,
        params={"table_id": table_id, "seat": seat, "player_id": player.pk,
                "amount_minor": amount},
        by=by)


# --- the count --------------------------------------------------------------------------------

def _cage_account(currency: str) -> Account:
    # The cage's one account per currency, as the cage's deposits use it (casino.services).
    return ledger.account_get_or_create(kind=Account.Kind.CAGE, currency=currency,
                                        name=f"Cage ({currency})")


def _counts_of_the_day(table: Table, gaming_day: date) -> QuerySet[DropCount]:
    """The day's count of the box, posted or awaiting its witness (neither corrected nor
    refused): while there is one, the box is counted."""
    return (DropCount.objects.filter(table=table, gaming_day=gaming_day)
            .exclude(status__in=[DropCount.Status.CORRECTED, DropCount.Status.REFUSED]))


def _witness(*, username: str, counter: User) -> User:
    user = get_user_model().objects.filter(username=username).first()
    if user is None or not user.is_active:
        raise ValidationFailed(f"There is no active staff member called {username!r} to "
                               "witness the count.", code="invalid_witness",
                               detail={"fields": {"witness": ["an active staff username"]}})
    if user.pk == counter.pk:
        raise ValidationFailed("The witness must be another person than the counter.",
                               code="invalid_witness",
                               detail={"fields": {"witness": ["another person"]}})
    if not user.has_perm(WITNESS_DROP):
        raise ValidationFailed(f"{username} may not witness a drop count (the count room, "
                               "the cage or a pit boss may).", code="invalid_witness",
                               detail={"fields": {"witness": ["someone who may witness"]}})
    return user


@dataclass(frozen=True)
class CountPlan:
    table: Table
    witness: User


def drop_count_check(*, table_id: int, gaming_day: date, counted: int, witness: str,
                     by: User | None, permission: str = COUNT_DROP) -> CountPlan:
    """What may be refused before anything is locked: the counter's permission, the
    witness, the amount, the day (today's or a past one: a box may be counted during the
    day it fills, never for a day to come) and the table."""
    if by is None or not by.has_perm(permission):
        raise permission_refused(permission)
    if counted < 0:
        raise ValidationFailed("The cash counted cannot be negative.", code="invalid_amount",
                               detail={"fields": {"counted": ["zero or more"]}})
    today = gaming_day_of()
    if gaming_day > today:
        raise ValidationFailed(f"Gaming day {gaming_day} has not begun (today is {today}).",
                               code="gaming_day_not_begun",
                               detail={"gaming_day": str(gaming_day), "today": str(today)})
    user = _witness(username=witness, counter=by)
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise NotFound(f"There is no table #{table_id}.", detail={"table_id": table_id})
    opened = gaming_day_of(table.created_at)
    if gaming_day < opened:
        # No box existed to count: a count then would move cash that was never taken.
        raise ValidationFailed(f"{table.name} opened on gaming day {opened}: it has no drop "
                               f"box for gaming day {gaming_day}.",
                               code="before_the_table",
                               detail={"gaming_day": str(gaming_day), "opened": str(opened)})
    return CountPlan(table=table, witness=user)


def _already_counted(table: Table, gaming_day: date) -> Conflict:
    return Conflict(f"{table.name}'s drop box for gaming day {gaming_day} is already "
                    "counted; a pit boss corrects a count that was wrong.",
                    code="already_counted",
                    detail={"table_id": table.pk, "gaming_day": str(gaming_day)})


def _awaiting_witness(table: Table, gaming_day: date) -> Conflict:
    waiting = (DropCount.objects.filter(table=table, gaming_day=gaming_day,
                                        status=DropCount.Status.AWAITING_WITNESS)
               .select_related("witness").first())
    who = waiting.witness.get_username() if waiting is not None else "its witness"
    return Conflict(f"{table.name}'s count for gaming day {gaming_day} awaits its witness, "
                    f"{who}: they confirm or refuse it first.", code="awaiting_witness",
                    detail={"table_id": table.pk, "gaming_day": str(gaming_day),
                            "count_id": waiting.pk if waiting is not None else None})


def drop_count_open_check(*, table: Table, gaming_day: date) -> None:
    """The day's box is not counted yet, nor awaiting a witness. The caller holds the
    table's row locked, so two counters queue and the second sees the first's count."""
    found = _counts_of_the_day(table, gaming_day).values_list("status", flat=True).first()
    if found == DropCount.Status.AWAITING_WITNESS:
        raise _awaiting_witness(table, gaming_day)
    if found is not None:
        raise _already_counted(table, gaming_day)


def drop_count_await(*, table: Table, gaming_day: date, counted: int, note: str,
                     witness: User, by: User, corrects: DropCount | None = None,
                     ) -> DropCount:
    """Record the count as its counter signs it: awaiting its witness, nothing posted. The
    caller holds the table's row locked and runs in a transaction."""
    try:
        with transaction.atomic():
            return DropCount.objects.create(
                table=table, gaming_day=gaming_day, currency=table.currency,
                counted=counted, status=DropCount.Status.AWAITING_WITNESS,
                note=note.strip(), counted_by=by, witness=witness,
                counted_at=timezone.now(), corrects=corrects)
    except IntegrityError:
        raise _awaiting_witness(table, gaming_day) from None


def drop_count_record(*, table_id: int, gaming_day: date, counted: int, witness: str,
                      by: User | None, note: str = "") -> DropCount:
    """Count a table's drop box for a gaming day (the counter is ``by``): validate, then
    write, in one transaction. The count awaits its witness (drop_count_confirm); ``note``
    is what the counter says of it (it closes no variance)."""
    plan = drop_count_check(table_id=table_id, gaming_day=gaming_day, counted=counted,
                            witness=witness, by=by)
    assert by is not None
    with transaction.atomic():
        table = table_lock(plan.table.pk)
        drop_count_open_check(table=table, gaming_day=gaming_day)
        return drop_count_await(table=table, gaming_day=gaming_day, counted=counted,
                                note=note, witness=plan.witness, by=by)


# --- the witness signs ------------------------------------------------------------------------

def drop_count_witness_check(*, count_id: int, by: User | None) -> DropCount:
    """Only the witness the counter named, signed in as themselves and still allowed to
    witness, confirms or refuses a count: checked before anything they send is read, so
    anyone else gets 403 whatever they send. Returns the count, read (not locked)."""
    if by is None or not by.has_perm(WITNESS_DROP):
        raise permission_refused(WITNESS_DROP)
    count = (DropCount.objects.select_related("table", "witness")
             .filter(pk=count_id).first())
    if count is None:
        raise NotFound(f"There is no drop count #{count_id}.", detail={"count_id": count_id})
    if count.witness_id != by.pk:
        witness = count.witness.get_username()
        raise PermissionRefused(
            f"{count.table.name}'s count for gaming day {count.gaming_day} names {witness} "
            f"as its witness: only {witness}, signed in as themselves, confirms or refuses "
            "it.", code="not_the_witness",
            detail={"count_id": count_id, "witness": witness})
    return count


def _witnessed_count(*, count_id: int, by: User | None) -> tuple[Table, DropCount]:
    """The witness's count, locked (its table first, then the count: rounds.locks), still
    awaiting them."""
    read = drop_count_witness_check(count_id=count_id, by=by)
    table = table_lock(read.table_id)
    count = drop_count_lock(count_id)
    assert count is not None  # counts are never deleted
    if count.status != DropCount.Status.AWAITING_WITNESS:
        raise Conflict(f"{table.name}'s count for gaming day {count.gaming_day} awaits no "
                       f"witness: it is {count.get_status_display().lower()}.",
                       code="not_awaiting_witness",
                       detail={"count_id": count_id, "status": count.status})
    return table, count


def drop_count_post(*, table: Table, count: DropCount) -> DropCount:
    """Post a count its witness confirms: "recorded" read now, the cash to the cage, the
    variance to the variance account. The caller holds the table's row locked (no buy-in
    of the table commits while "recorded" is read), then the count's, in a transaction."""
    if count.corrects_id is None and _counts_of_the_day(table, count.gaming_day).exclude(
            pk=count.pk).exists():
        raise _already_counted(table, count.gaming_day)
    counted = count.counted
    recorded = drop_recorded(table_ids=[table.pk], gaming_day=count.gaming_day).get(table.pk, 0)
    variance = counted - recorded
    box, cage = drop_box_account(table), _cage_account(table.currency)
    variance_account = drop_variance_account(table)
    # Two entries in one transaction: their accounts are locked together first, in key
    # order (ledger.services' rule for a caller posting more than one entry).
    ledger.account_lock(account_ids=[box.pk, cage.pk, variance_account.pk])
    ref, day = table_ref(table.pk), count.gaming_day.isoformat()
    # The entries are the count's, so they are in its counter's name; who confirmed it and
    # when is the count's own record (witness, witnessed_at).
    by = count.counted_by
    entry = variance_entry = None
    if counted:
        entry = ledger.entry_post(
            kind=DROP_COUNT, memo=f"Drop count of {table.name}, gaming day {day}",
            lines=[(box.pk, counted), (cage.pk, -counted)], by=by, ref=ref)
    if variance:
        # The box is left holding what was recorded minus what was counted: the variance
        # account takes it, so the box starts the next day empty.
        variance_entry = ledger.entry_post(
            kind=DROP_VARIANCE,
            memo=f"Drop variance of {table.name}, gaming day {day}: to be explained",
            lines=[(box.pk, -variance), (variance_account.pk, variance)], by=by, ref=ref)
    # The money moves whatever is said of it. A variance is an exception left open until
    # someone other than its counter explains it (drop_count_explain): the counter's note
    # does not close it, nor does the witness's signature, which says the cash was counted
    # as recorded here, not why it differs from the buy-ins; explaining is an act of its
    # own, in the explainer's name, that the exceptions list shows.
    count.recorded, count.variance = recorded, variance
    count.status = (DropCount.Status.BALANCED if not variance
                    else DropCount.Status.UNEXPLAINED)
    count.witnessed_at = timezone.now()
    count.entry, count.variance_entry = entry, variance_entry
    try:
        with transaction.atomic():
            count.save(update_fields=["recorded", "variance", "status", "witnessed_at",
                                      "entry", "variance_entry"])
    except IntegrityError:
        raise _already_counted(table, count.gaming_day) from None
    return count


def drop_count_confirm(*, count_id: int, by: User | None) -> DropCount:
    """The named witness confirms a count with their own credentials: only then does it
    post (drop_count_post), in one transaction."""
    with transaction.atomic():
        table, count = _witnessed_count(count_id=count_id, by=by)
        return drop_count_post(table=table, count=count)


def drop_count_refuse(*, count_id: int, reason: str, by: User | None) -> DropCount:
    """The named witness refuses a count (they did not see it so): nothing is posted, the
    count stays, refused with why, and the box is counted again."""
    drop_count_witness_check(count_id=count_id, by=by)
    reason = reason.strip()
    if not reason:
        raise ValidationFailed("Say why the count is refused.", code="reason_required",
                               detail={"fields": {"reason": ["a reason in words"]}})
    with transaction.atomic():
        _, count = _witnessed_count(count_id=count_id, by=by)
        count.status = DropCount.Status.REFUSED
        count.reason = reason
        count.witnessed_at = timezone.now()
        count.save(update_fields=["status", "reason", "witnessed_at"])
        return count


# --- a variance explained ---------------------------------------------------------------------

def drop_count_explain_check(*, count_id: int, by: User | None) -> None:
    """Who may explain a variance: the count room, the cage or a pit boss, and never the
    count's own counter (two people close an exception). Checked before anything said
    about it is read, so a reader who may not gets 403 whatever they send."""
    if by is None or not any(by.has_perm(p) for p in (COUNT_DROP, WITNESS_DROP,
                                                      CORRECT_DROP)):
        raise permission_refused(COUNT_DROP)
    count = (DropCount.objects.select_related("table", "counted_by")
             .filter(pk=count_id).first())
    if count is None:
        raise NotFound(f"There is no drop count #{count_id}.", detail={"count_id": count_id})
    if count.counted_by_id == by.pk:
        raise PermissionRefused(
            f"You counted {count.table.name}'s box for gaming day {count.gaming_day}: its "
            "variance is explained by someone else (the witness, the cage or a pit boss).",
            code="own_count", detail={"count_id": count_id})


def drop_count_explain(*, count_id: int, reason: str, by: User | None) -> DropCount:
    """Explain a count's variance after the count (someone other than its counter): the
    exception stops being open; the money it moved stays where the count put it."""
    drop_count_explain_check(count_id=count_id, by=by)
    reason = reason.strip()
    if not reason:
        raise ValidationFailed("Say why the count differs from the buy-ins recorded.",
                               code="reason_required",
                               detail={"fields": {"reason": ["a reason in words"]}})
    with transaction.atomic():
        count = drop_count_lock(count_id)
        assert count is not None  # counts are never deleted (read above)
        # A correction waiting for a second pit boss is decided first, not explained around.
        approvals.approval_pending_check(ref=f"drop_count:{count_id}")
        if count.status != DropCount.Status.UNEXPLAINED:
            raise Conflict(f"Drop count #{count_id} has no variance left to explain "
                           f"({count.get_status_display().lower()}).",
                           code="nothing_to_explain",
                           detail={"count_id": count_id, "status": count.status})
        count.status = DropCount.Status.EXPLAINED
        count.reason = reason
        count.explained_by = by
        count.explained_at = timezone.now()
        count.save(update_fields=["status", "reason", "explained_by", "explained_at"])
        return count


def drop_count_correct_check(*, count_id: int, counted: int, witness: str, reason: str,
                             by: User | None) -> CountPlan:
    """What may refuse a count's correction before anything is locked: a reason, the count
    exists, was posted and is not corrected already, and the recount's own checks
    (drop_count_check, with the pit boss's permission). Returns the recount's plan."""
    if not reason.strip():
        raise ValidationFailed("A correction needs a reason.", code="reason_required")
    old = DropCount.objects.filter(pk=count_id).first()
    if old is None:
        raise NotFound(f"There is no drop count #{count_id}.", detail={"count_id": count_id})
    plan = drop_count_check(table_id=old.table_id, gaming_day=old.gaming_day,
                            counted=counted, witness=witness, by=by, permission=CORRECT_DROP)
    _correctable_check(old)
    return plan


def _correctable_check(old: DropCount) -> None:
    if old.status == DropCount.Status.CORRECTED:
        raise Conflict(f"Drop count #{old.pk} was already corrected.",
                       code="already_corrected", detail={"count_id": old.pk})
    if old.status in DropCount.UNPOSTED:
        # Nothing of it was posted: its witness confirms or refuses it, nobody corrects it.
        raise Conflict(f"Drop count #{old.pk} was never posted "
                       f"({old.get_status_display().lower()}): there is nothing to correct.",
                       code="not_posted", detail={"count_id": old.pk, "status": old.status})


def drop_count_correct(*, count_id: int, counted: int, witness: str, reason: str,
                       by: User | None, approved_by: Approval | None = None) -> DropCount:
    """A pit boss corrects a count that was wrong: its entries are reversed, it is marked
    corrected, and the box is counted again (``counted``, ``witness``, the reason as the
    recount's note), in one transaction. The recount awaits its witness like any count
    (drop_count_confirm posts it); the corrected count stays beside it. Under dual control
    a second pit boss approves first (``approved_by``: the approval it carries out;
    rounds.approvals registers the request).

    The reversal is the pit boss's (and the approving pit boss's) and happens now, where
    the approval is carried out; what the recount found is posted only once its witness
    signs. A recount its witness refuses leaves the day uncounted: the box is counted
    again."""
    plan = drop_count_correct_check(count_id=count_id, counted=counted, witness=witness,
                                    reason=reason, by=by)
    assert by is not None
    with transaction.atomic():
        table = table_lock(plan.table.pk)
        old = drop_count_lock(count_id)
        assert old is not None  # counts are never deleted (read above)
        _correctable_check(old)
        approvals.approval_required_check(
            action=CORRECT_COUNT,
            params={"count_id": count_id, "counted_minor": counted, "witness": witness,
                    "reason": reason},
            by=by, approved_by=approved_by)
        box, cage = drop_box_account(table), _cage_account(table.currency)
        ledger.account_lock(account_ids=[box.pk, cage.pk, drop_variance_account(table).pk])
        for entry_id in (old.entry_id, old.variance_entry_id):
            if entry_id is not None:
                ledger.entry_reverse(entry_id=entry_id, reason=f"Drop count corrected: {reason}",
                                     by=by, by_owner=True, permission=CORRECT_DROP,
                                     approved_by=approved_by)
        old.status = DropCount.Status.CORRECTED
        old.save(update_fields=["status"])
        return drop_count_await(table=table, gaming_day=old.gaming_day, counted=counted,
                                note=reason, witness=plan.witness, by=by, corrects=old)


@dataclass(frozen=True)
class BuyInTaken:
    """A buy-in entry as its correction reads it: where it was taken and whose it was."""

    entry: Entry
    table_id: int
    player: Player
    gaming_day: date


def buy_in_correct_check(*, entry_id: int, reason: str, by: User | None) -> BuyInTaken:
    """What may refuse a buy-in's correction before anything is locked: the pit boss's
    permission, a reason, a buy-in of that id. Returns it, read."""
    if by is None or not by.has_perm(CORRECT_DROP):
        raise permission_refused(CORRECT_DROP)
    if not reason.strip():
        raise ValidationFailed("A correction needs a reason.", code="reason_required",
                               detail={"fields": {"reason": ["a reason in words"]}})
    entry = Entry.objects.filter(pk=entry_id, kind=BUY_IN).first()
    if entry is None:
        raise NotFound(f"There is no buy-in #{entry_id}.", detail={"entry_id": entry_id})
    credited = (entry.lines.filter(account__kind=Account.Kind.PLAYER)
                .values_list("account__ref", flat=True).get())
    return BuyInTaken(entry=entry, table_id=int(entry.ref.removeprefix("table:")),
                      player=Player.objects.get(pk=int(credited.removeprefix("player:"))),
                      gaming_day=gaming_day_of(entry.created_at))


def buy_in_correct(*, entry_id: int, reason: str, by: User | None,
                   approved_by: Approval | None = None) -> Entry:
    """A buy-in taken in error (the wrong seat, an amount mistyped), corrected by a pit
    boss: its entry reversed (the player's account back to the drop box) and the player's
    cash in for its day lowered with it (casino.cash), in one transaction. Refused once the
    box of its day is counted: the count saw that cash, so the count is what is corrected.
    Under dual control a second pit boss approves first (``approved_by``: the approval it
    carries out; rounds.approvals registers the request)."""
    taken = buy_in_correct_check(entry_id=entry_id, reason=reason, by=by)
    assert by is not None
    day = taken.gaming_day
    with transaction.atomic():
        table = table_lock(taken.table_id)   # a count of the table waits for us, or we see it
        if _counts_of_the_day(table, day).exists():
            raise Conflict(f"{table.name}'s drop box for gaming day {day} is counted: "
                           "correct the count, not the buy-in.", code="drop_counted",
                           detail={"table_id": table.pk, "gaming_day": str(day)})
        approvals.approval_required_check(
            action=CORRECT_BUY_IN, params={"entry_id": entry_id, "reason": reason},
            by=by, approved_by=approved_by)
        # entry_reverse locks both accounts in key order; once per entry (409 after).
        reversal = ledger.entry_reverse(entry_id=taken.entry.pk, reason=reason.strip(), by=by,
                                        by_owner=True, permission=CORRECT_DROP,
                                        approved_by=approved_by)
        cash.cash_movement_record(player=taken.player, entry=reversal)
        return reversal


def drop_entry_owner() -> tuple[tuple[str, str], ...]:
    """The entry kinds this flow owns and how each is corrected (rounds.apps registers
    them): a count's money moves back only with its count, a buy-in only through its own
    correction (which tells the cash rules)."""
    how = "correct the drop count (POST /api/v1/drop-counts/{id}/correct)"
    return ((DROP_COUNT, how), (DROP_VARIANCE, how),
            (BUY_IN, "correct the buy-in (POST /api/v1/buy-ins/{id}/correct)"))

