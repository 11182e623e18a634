"""Dealers at the tables: signing in and being relieved (rounds.models.DealerShift).

A dealer signs in at a table from their own session; a pit boss may sign in a dealer they
name. Signing in relieves the table's dealer until then: the next dealer taking over is how
a table changes hands. A dealer is relieved by themselves or by a pit boss. Each round
records the dealer signed in when it opened (rounds.services.play.round_open).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from casino.shared.errors import Conflict, PermissionRefused, ValidationFailed
from casino.shared.gaming_day import gaming_day_of
from casino.shared.templatetags.casino_time import casino_time_text
from rounds.locks import dealer_lock, table_lock
from rounds.models import DealerShift, Table
from rounds.selectors import dealer_shift_open

RUN = "rounds.run_rounds"
# Naming another person as the table's dealer, or relieving someone else, is the pit's.
PIT = "rounds.change_table"


def dealer_shift_starter_check(*, by: User | None) -> None:
    """Who may sign a dealer in at all: someone who runs rounds (checked before anything
    sent is read)."""
    if by is None or not by.has_perm(RUN):
        raise PermissionRefused("Only staff who run rounds sign in at a table as its dealer.",
                                detail={"permission": RUN})


def _dealer(*, username: str | None, by: User) -> User:
    """The dealer to sign in: the caller, or the person a pit boss names."""
    if not username or username == by.get_username():
        return by
    if not by.has_perm(PIT):
        raise PermissionRefused(
            "A dealer signs in as themselves; only a pit boss signs in another dealer.",
            code="not_your_shift", detail={"permission": PIT})
    named = get_user_model().objects.filter(username=username).first()
    if named is None or not named.is_active:
        raise ValidationFailed(f"There is no active staff member called {username!r}.",
                               code="invalid_dealer",
                               detail={"fields": {"dealer": ["an active dealer's username"]}})
    if not named.has_perm(RUN):
        raise ValidationFailed(f"{username} does not deal (their role runs no rounds).",
                               code="invalid_dealer",
                               detail={"fields": {"dealer": ["someone who runs rounds"]}})
    return named


@dataclass(frozen=True)
class SignIn:
    """A sign-in checked: who deals from now, and the shift it ends (if any)."""

    table: Table
    dealer: User
    relieves: DealerShift | None


def dealer_shift_start_check(*, table: Table, dealer: User) -> SignIn:
    """Refuse a sign-in the floor cannot take: a closed table, a dealer already signed in
    here, or dealing at another table (relieved there first). Holds the table's and the
    dealer's locks (dealer_shift_start)."""
    if not table.is_open:
        raise Conflict(f"{table.name} is closed: nobody deals there.", code="table_closed")
    mine = dealer_shift_open(dealer_id=dealer.pk)
    if mine is not None and mine.table_id == table.pk:
        raise Conflict(f"{dealer.get_username()} is already dealing at {table.name} (since "
                       f"{casino_time_text(mine.started_at, '%H:%M')}).", code="already_dealing",
                       detail={"shift": mine.pk})
    if mine is not None:
        raise Conflict(f"{dealer.get_username()} is dealing at {mine.table.name} (since "
                       f"{casino_time_text(mine.started_at, '%H:%M')}): they are relieved there "
                       "before signing in here.", code="dealing_elsewhere",
                       detail={"shift": mine.pk, "table_id": mine.table_id})
    return SignIn(table=table, dealer=dealer, relieves=dealer_shift_open(table_id=table.pk))


def dealer_shift_post(plan: SignIn, *, by: User) -> DealerShift:
    """Relieve the table's dealer and open the new shift, at one moment. The caller holds
    the table's lock and the dealer's (rounds.locks)."""
    now = timezone.now()
    if plan.relieves is not None:
        plan.relieves.ended_at, plan.relieves.ended_by = now, by
        plan.relieves.save(update_fields=["ended_at", "ended_by"])
    return DealerShift.objects.create(table=plan.table, dealer=plan.dealer, started_at=now,
                                      gaming_day=gaming_day_of(now), started_by=by)


@transaction.atomic
def dealer_shift_start(*, table_id: int, by: User | None,
                       dealer: str | None = None) -> DealerShift:
    """Sign in at a table as its dealer (``dealer`` empty: the caller), relieving the
    dealer signed in there until now. Returns the new shift."""
    dealer_shift_starter_check(by=by)
    assert by is not None
    table = table_lock(table_id)
    who = _dealer(username=dealer, by=by)
    dealer_lock(who.pk)
    return dealer_shift_post(dealer_shift_start_check(table=table, dealer=who), by=by)


@transaction.atomic
def dealer_shift_end(*, table_id: int, by: User | None) -> DealerShift:
    """Relieve the table's dealer: by themselves, or by a pit boss. Returns the ended
    shift. The table waits without a dealer until the next one signs in; its rounds
    meanwhile record whoever opens them."""
    dealer_shift_starter_check(by=by)
    assert by is not None
    table = table_lock(table_id)
    shift = dealer_shift_open(table_id=table.pk)
    if shift is None:
        raise Conflict(f"Nobody is signed in as the dealer at {table.name}.",
                       code="no_dealer", detail={"table_id": table.pk})
    if shift.dealer_id != by.pk and not by.has_perm(PIT):
        raise PermissionRefused(
            f"{shift.dealer.get_username()} is dealing at {table.name}: they are relieved by "
            "themselves, a pit boss, or the next dealer signing in.",
            code="not_your_shift", detail={"shift": shift.pk})
    shift.ended_at, shift.ended_by = timezone.now(), by
    shift.save(update_fields=["ended_at", "ended_by"])
    return shift
