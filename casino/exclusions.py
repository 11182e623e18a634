"""Exclusions: who may not play, and the one check every door asks.

A player is self-excluded (they asked the casino to keep them from play) or barred (the
casino keeps them out), from a gaming day until a gaming day (inclusive) or for good. The
cage and the pit boss record one; a pit boss lifts a barring; lifting a self-exclusion
before its end needs a second person (casino.shared.approvals: the request waits for
another pit boss or cage clerk), since the protection is the player's own and one
employee's word must not end it.

``player_exclusion_check`` is the one rule: seating a player (rounds.services.tables),
their wager and their bank (rounds.services.play), a buy-in at the table
(rounds.services.drop) and a deposit at the cage (casino.services) each call it, so every
door (API, console, admin, command) refuses an excluded player alike: 409
``player_excluded``, in words. A player already seated when an exclusion is recorded
stays in the seat (nobody is unseated by a clerk's record) but places no further wager and
takes no bank; a pit boss unseats them. Paying a player out (a withdrawal) is never
refused for an exclusion: the money is theirs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from casino.models import Exclusion, Player
from casino.shared import approvals
from casino.shared.approvals import Approval
from casino.shared.errors import Conflict, NotFound, ValidationFailed
from casino.shared.gaming_day import gaming_day_of, gaming_day_start
from casino.shared.permissions import permission_refused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

RECORD = "casino.add_exclusion"
LIFT_SELF = "casino.lift_exclusion"
LIFT_BARRING = "casino.lift_barring"
LIFT = "casino.exclusion_lift"   # the operation a second person approves


class PlayerExcluded(Conflict):
    """The player is self-excluded or barred on this gaming day."""

    code = "player_excluded"


# --- reading --------------------------------------------------------------------------------

def _covers(day: date) -> Q:
    """Exclusions not lifted whose days include ``day``."""
    return (Q(lifted_at__isnull=True, starts__lte=day)
            & (Q(until__isnull=True) | Q(until__gte=day)))


def player_exclusion_on(*, player_id: int, day: date | None = None) -> Exclusion | None:
    """The exclusion that keeps the player from play on ``day`` (today's gaming day by
    default), or None. Of several, a barring first, then the one that lasts longest."""
    day = day or gaming_day_of()
    found = list(Exclusion.objects.filter(_covers(day), player_id=player_id))
    return min(found, key=_first) if found else None


def players_excluded(*, player_ids: list[int], day: date | None = None,
                     ) -> dict[int, Exclusion]:
    """The exclusion keeping each of these players from play on ``day`` (today's gaming
    day by default), by player, in one read: the table screen names the seated players an
    exclusion now covers."""
    day = day or gaming_day_of()
    found: dict[int, Exclusion] = {}
    for exclusion in Exclusion.objects.filter(_covers(day), player_id__in=player_ids):
        kept = found.get(exclusion.player_id)
        if kept is None or _first(exclusion) < _first(kept):
            found[exclusion.player_id] = exclusion
    return found


def _first(exclusion: Exclusion) -> tuple[bool, int, int]:
    # Of several, a barring first, then the one that lasts longest.
    return (exclusion.kind != Exclusion.Kind.BARRED,
            -(exclusion.until or date.max).toordinal(), exclusion.pk)


def exclusion_words(exclusion: Exclusion) -> str:
    """What the exclusion says, after the player's name: "is self-excluded until
    2027-06-01", "is barred for good", "is barred from 2027-01-01 until 2027-03-01"."""
    what = "self-excluded" if exclusion.kind == Exclusion.Kind.SELF else "barred"
    starts = ""
    if exclusion.starts > gaming_day_of():
        starts = f" from {exclusion.starts.isoformat()}"
    until = (f" until {exclusion.until.isoformat()}" if exclusion.until is not None
             else " for good")
    return f"is {what}{starts}{until}"


def exclusion_state(exclusion: Exclusion, day: date | None = None) -> str:
    """Where the exclusion stands: ``in_force``, ``starts_later``, ``ended`` or ``lifted``."""
    day = day or gaming_day_of()
    if exclusion.lifted_at is not None:
        return "lifted"
    if exclusion.starts > day:
        return "starts_later"
    if exclusion.until is not None and exclusion.until < day:
        return "ended"
    return "in_force"


STATE_WORDS = {"in_force": "In force", "starts_later": "Starts later", "ended": "Ended",
               "lifted": "Lifted"}


def exclusion_list(*, current: bool = True, kind: str = "",
                   player_id: int | None = None) -> QuerySet[Exclusion]:
    """Exclusions, newest first: ``current`` those not lifted and not ended (in force now
    or starting later); otherwise every one ever recorded."""
    found = Exclusion.objects.select_related("player", "recorded_by", "lifted_by",
                                             "lift_approved_by")
    if current:
        today = gaming_day_of()
        found = found.filter(Q(lifted_at__isnull=True)
                             & (Q(until__isnull=True) | Q(until__gte=today)))
    if kind:
        found = found.filter(kind=kind)
    if player_id is not None:
        found = found.filter(player_id=player_id)
    return found.order_by("-id")


def exclusions_on(*, gaming_day: date) -> list[Exclusion]:
    """The exclusions in force on ``gaming_day`` as the report lists them: covering the day
    and not lifted before it began (one lifted during the day was in force when it began),
    by player."""
    return list(Exclusion.objects.filter(
        Q(starts__lte=gaming_day) & (Q(until__isnull=True) | Q(until__gte=gaming_day))
        & (Q(lifted_at__isnull=True) | Q(lifted_at__gte=gaming_day_start(gaming_day))))
        .select_related("player", "recorded_by", "lifted_by", "lift_approved_by")
        .order_by("player__name", "player_id", "id"))


def exclusion_get(*, exclusion_id: int) -> Exclusion:
    found = exclusion_list(current=False).filter(pk=exclusion_id).first()
    if found is None:
        raise NotFound(f"There is no exclusion #{exclusion_id}.",
                       detail={"exclusion_id": exclusion_id})
    return found


# --- the one check --------------------------------------------------------------------------

def player_exclusion_check(*, player: Player, doing: str, day: date | None = None) -> None:
    """Refuse (409 ``player_excluded``) what ``doing`` says ("be seated", "place a wager",
    "buy in", "deposit at the cage", "take the bank") for a player an exclusion keeps from
    play on ``day`` (today's gaming day by default). Every door's service calls this one."""
    exclusion = player_exclusion_on(player_id=player.pk, day=day)
    if exclusion is None:
        return
    raise PlayerExcluded(
        f"{player.name} {exclusion_words(exclusion)} and cannot {doing}.",
        detail={"player": player.pk, "exclusion": exclusion.pk, "kind": exclusion.kind,
                "until": exclusion.until.isoformat() if exclusion.until else None})


# --- recording and lifting ------------------------------------------------------------------

def exclusion_record(*, player_id: int, kind: str, reason: str, by: User | None,
                     until: date | None = None, starts: date | None = None) -> Exclusion:
    """Record an exclusion from ``starts`` (today's gaming day by default; never a day
    gone) until ``until`` (inclusive; None: for good). Holds the player's row locked (FOR
    NO KEY UPDATE, as seating takes it), so a seating at the same moment waits and then
    finds the exclusion."""
    if by is None or not by.has_perm(RECORD):
        raise permission_refused(RECORD)
    if kind not in Exclusion.Kind.values:
        raise ValidationFailed(f"An exclusion is self or barred, not {kind!r}.",
                               detail={"fields": {"kind": ["self or barred"]}})
    if not reason.strip():
        raise ValidationFailed("An exclusion needs a reason.", code="reason_required",
                               detail={"fields": {"reason": ["a reason, in words"]}})
    today = gaming_day_of()
    starts = starts or today
    if starts < today:
        raise ValidationFailed(f"An exclusion starts today ({today.isoformat()}) or later, "
                               f"not on {starts.isoformat()}: a day gone is not rewritten.",
                               detail={"fields": {"starts": [f"{today.isoformat()} or later"]}})
    if until is not None and until < starts:
        raise ValidationFailed(f"An exclusion ends on or after the day it starts "
                               f"({starts.isoformat()}), not on {until.isoformat()}.",
                               detail={"fields": {"until": [f"{starts.isoformat()} or later, "
                                                            "or empty for good"]}})
    with transaction.atomic():
        player = Player.objects.select_for_update(no_key=True).filter(pk=player_id).first()
        if player is None:
            raise NotFound(f"There is no player #{player_id}.",
                           detail={"player_id": player_id})
        return Exclusion.objects.create(player=player, kind=kind, starts=starts, until=until,
                                        reason=reason.strip(), recorded_by=by)


# What a player may choose on their own page (casino.api.me, the /play/account/ page): a
# self-exclusion for one of these periods, from today's gaming day; months, None: for good.
# Longer or other ones, and every barring, are recorded by staff (exclusion_record). Lifting
# one stays with staff too, with a second person before its end.
SELF_PERIODS: dict[str, int | None] = {"six_months": 6, "one_year": 12, "five_years": 60,
                                       "for_good": None}
SELF_PERIOD_WORDS = {"six_months": "Six months", "one_year": "One year",
                     "five_years": "Five years", "for_good": "For good"}
SELF_REASON = "Asked by the player on their own page"


def _months_later(day: date, months: int) -> date:
    """The last day of a period of whole months from ``day``: the day before the same date
    ``months`` later, or, where that month has no such date (31 August + 6 months), its
    last day (28 or 29 February)."""
    year, month = divmod(day.month - 1 + months, 12)
    year, month = day.year + year, month + 1
    try:
        return date(year, month, day.day) - timedelta(days=1)
    except ValueError:
        first_of_next = date(year + month // 12, month % 12 + 1, 1)
        return first_of_next - timedelta(days=1)


def exclusion_self_record(*, player_id: int, period: str, by: User | None) -> Exclusion:
    """A player's own self-exclusion, from their own login, for one of SELF_PERIODS from
    today's gaming day: in force at once, at every door (player_exclusion_check). Only the
    player's own login records it here (403 otherwise); staff record exclusions with
    exclusion_record."""
    if period not in SELF_PERIODS:
        raise ValidationFailed(f"A self-exclusion is for one of {', '.join(SELF_PERIODS)}.",
                               detail={"fields": {"period": list(SELF_PERIODS)}})
    with transaction.atomic():
        # Locked as exclusion_record locks it: a seating at the same moment waits.
        player = Player.objects.select_for_update(no_key=True).filter(pk=player_id).first()
        if player is None:
            raise NotFound(f"There is no player #{player_id}.", detail={"player_id": player_id})
        if by is None or player.user_id is None or by.pk != player.user_id:
            raise permission_refused(RECORD, "Only the player excludes themselves from "
                                             "their own page; staff record exclusions at the "
                                             "cage.")
        starts = gaming_day_of()
        months = SELF_PERIODS[period]
        until = None if months is None else _months_later(starts, months)
        return Exclusion.objects.create(player=player, kind=Exclusion.Kind.SELF,
                                        starts=starts, until=until, reason=SELF_REASON,
                                        recorded_by=by)


def exclusion_lift_allowed(*, exclusion_id: int, by: User | None) -> Exclusion:
    """Whether ``by`` may lift (or ask to lift) this exclusion: a barring, a pit boss
    (``casino.lift_barring``); a self-exclusion, the cage or a pit boss
    (``casino.lift_exclusion``), with a second person's approval before its end. Checked
    before anything the caller sent is read."""
    exclusion = exclusion_get(exclusion_id=exclusion_id)
    permission = LIFT_BARRING if exclusion.kind == Exclusion.Kind.BARRED else LIFT_SELF
    if by is None or not by.has_perm(permission):
        raise permission_refused(permission)
    return exclusion


def exclusion_lift_needs_approval(exclusion: Exclusion) -> bool:
    """A self-exclusion lifted before its end: a second person approves (a barring is the
    casino's own decision, lifted by a pit boss alone; an ended one protects nobody)."""
    return (exclusion.kind == Exclusion.Kind.SELF and exclusion.lifted_at is None
            and (exclusion.until is None or exclusion.until >= gaming_day_of()))


def exclusion_lift(*, exclusion_id: int, reason: str, by: User | None,
                   approved_by: Approval | None = None) -> Exclusion:
    """Lift an exclusion, with a reason: from now on it keeps the player from nothing.
    ``approved_by``: the second person's approval it carries out (a self-exclusion before
    its end; approval_required_check refuses the lift without one). Holds the exclusion's
    row locked, so two lifts queue and the second finds it lifted."""
    if not reason.strip():
        raise ValidationFailed("Lifting an exclusion needs a reason.", code="reason_required",
                               detail={"fields": {"reason": ["a reason, in words"]}})
    with transaction.atomic():
        exclusion = (Exclusion.objects.select_for_update().select_related("player")
                     .filter(pk=exclusion_id).first())
        if exclusion is None:
            raise NotFound(f"There is no exclusion #{exclusion_id}.",
                           detail={"exclusion_id": exclusion_id})
        exclusion_lift_allowed(exclusion_id=exclusion_id, by=by)
        _not_lifted_check(exclusion)
        approvals.approval_required_check(
            action=LIFT, params={"exclusion_id": exclusion_id, "reason": reason},
            by=by, approved_by=approved_by)
        exclusion.lifted_at = timezone.now()
        exclusion.lifted_by = by
        exclusion.lift_reason = reason.strip()
        exclusion.lift_approved_by = approved_by.decided_by if approved_by else None
        exclusion.save(update_fields=["lifted_at", "lifted_by", "lift_reason",
                                      "lift_approved_by"])
        return exclusion


def _not_lifted_check(exclusion: Exclusion) -> None:
    if exclusion.lifted_at is not None:
        raise Conflict(f"Exclusion #{exclusion.pk} of {exclusion.player.name} was lifted "
                       "already.", code="exclusion_lifted",
                       detail={"exclusion_id": exclusion.pk})


# --- the lift as an operation a second person approves (casino.shared.approvals) -----------

def _lift_needs_approval(params: Mapping[str, Any]) -> bool:
    return exclusion_lift_needs_approval(exclusion_get(exclusion_id=params["exclusion_id"]))


def _lift_check(params: Mapping[str, Any], by: User) -> None:
    # Refused now rather than after the second person's approval; the service checks again.
    exclusion = exclusion_lift_allowed(exclusion_id=params["exclusion_id"], by=by)
    _not_lifted_check(exclusion)
    if not str(params.get("reason", "")).strip():
        raise ValidationFailed("Lifting an exclusion needs a reason.", code="reason_required")


def _lift_summary(params: Mapping[str, Any]) -> str:
    exclusion = exclusion_get(exclusion_id=params["exclusion_id"])
    return (f"Lift the self-exclusion of {exclusion.player.name} (#{exclusion.player_id}), "
            f"{exclusion_words(exclusion).removeprefix('is self-excluded ')}: "
            f"{params['reason']}")


def approval_actions_register() -> None:
    approvals.action_register(approvals.Action(
        name=LIFT, ask_permission=LIFT_SELF, approve_permission=LIFT_SELF,
        needs_approval=_lift_needs_approval,
        run=lambda p, by, approved: exclusion_lift(
            exclusion_id=p["exclusion_id"], reason=p["reason"], by=by, approved_by=approved),
        result_ref=lambda e: f"exclusion:{e.pk}", summary=_lift_summary,
        ref=lambda p: f"exclusion:{p['exclusion_id']}", check=_lift_check))


@dataclass(frozen=True)
class ExclusionRow:
    """One exclusion as the report lists it."""

    exclusion: int
    player: int
    player_name: str
    kind: str
    starts: date
    until: date | None
    reason: str
    recorded_by: str
    recorded_at: Any
    lifted_at: Any
    lifted_by: str
    lift_reason: str


def exclusion_rows(*, gaming_day: date) -> list[ExclusionRow]:
    """The report's rows: each exclusion in force on ``gaming_day`` (exclusions_on)."""
    return [ExclusionRow(
        exclusion=e.pk, player=e.player_id, player_name=e.player.name,
        kind=e.get_kind_display(), starts=e.starts, until=e.until, reason=e.reason,
        recorded_by=e.recorded_by.get_username(), recorded_at=e.recorded_at,
        lifted_at=e.lifted_at, lifted_by=e.lifted_by.get_username() if e.lifted_by else "",
        lift_reason=e.lift_reason) for e in exclusions_on(gaming_day=gaming_day)]
