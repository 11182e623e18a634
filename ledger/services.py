"""Every write to the ledger: accounts, entries, holds, reversals.

Each money movement is one call of a PostgreSQL function (ledger/migrations/0009), so one
statement and one round trip: on its own it is its own transaction, and inside a caller's
transaction (a round's settlement posting its entry together with its own rows) it runs in a
savepoint. Python checks the input's shape for readable errors; the function checks the rest
under its locks, and every trigger of the ledger still judges what it writes.

Locking, always in this order, so two movements can never wait on each other in a cycle:
  1. the entry being reversed (reversals only; a transaction-level advisory lock);
  2. every account the movement touches, in primary-key order (``account_lock``);
  3. the holds it settles, in primary-key order.
Nothing else: no row shared by unrelated accounts is locked, so two movements on disjoint
accounts never wait for each other. The entry is hashed after commit, into a block, by the
sealer (``entries_seal`` below). A caller that posts several entries in one transaction, or
places a hold and then posts an entry, should first lock the union of their accounts with
``account_lock``; otherwise its second movement would take account locks while already
holding another account's, out of the order above.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import DatabaseError, IntegrityError, connection, transaction

from casino.shared import approvals
from casino.shared.errors import (
    Conflict,
    DomainError,
    NotFound,
    ValidationFailed,
)
from casino.shared.money import MAX_MINOR, format_minor, minor_digits
from casino.shared.permissions import permission_refused
from ledger import selectors
from ledger.models import Account, Entry, Hold

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# --- accounts -------------------------------------------------------------------------------

def account_get_or_create(*, kind: str, currency: str, ref: str = "", name: str = "") -> Account:
    """The one account of this kind, currency and reference, made on first use."""
    if kind not in Account.Kind.values:
        raise ValidationFailed(f"Unknown account kind {kind!r}.", code="invalid_kind",
                               detail={"kind": kind, "known": list(Account.Kind.values)})
    minor_digits(currency)  # refuses an unknown currency
    found = selectors.account_find(kind=kind, currency=currency, ref=ref)
    if found is not None:
        return found
    # get_or_create retries the read when a concurrent caller inserted the same account
    # first (the unique constraint), so two first deposits cannot make two accounts.
    account, _ = Account.objects.get_or_create(
        kind=kind, currency=currency, ref=ref,
        defaults={"name": name, "allow_negative": kind not in Account.NON_NEGATIVE_KINDS},
    )
    return account


def account_lock(*, account_ids: Iterable[int]) -> dict[int, Account]:
    """Lock accounts FOR UPDATE in primary-key order; returns them by id (fresh values).

    Must run inside a transaction. Raises NotFound when any id names no account.
    """
    ids = sorted(set(account_ids))
    if not ids:
        return {}
    locked = {a.pk: a for a in
              Account.objects.select_for_update().filter(pk__in=ids).order_by("pk")}
    missing = [i for i in ids if i not in locked]
    if missing:
        raise NotFound(f"No such ledger account: {', '.join(f'#{i}' for i in missing)}.",
                       detail={"account_ids": missing})
    return locked


# --- entries --------------------------------------------------------------------------------

def _check_amount(amount: object, what: str = "amount") -> int:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ValidationFailed(f"The {what} must be an integer number of minor units.",
                               code="invalid_amount", detail={what: repr(amount)})
    if amount == 0 or abs(amount) > MAX_MINOR:
        raise ValidationFailed(f"The {what} must be non-zero and at most {MAX_MINOR} "
                               "minor units.", code="invalid_amount", detail={what: amount})
    return amount


def _whose(account: Account) -> str:
    """An account as a refusal names it: its holder's name when it has one (a player's
    account carries the player's name), with the number staff look it up by."""
    if account.name:
        return f"{account.name} (account #{account.pk})"
    return f"Account #{account.pk} ({account.ref or account.get_kind_display()})"


def insufficient_funds(account: Account, *, required: int, available: int) -> Conflict:
    """The refusal for a debit beyond an account's available funds, with its figures."""
    cur = account.currency
    shortfall = required - available
    return Conflict(
        f"{_whose(account)} has {format_minor(available, cur)} {cur} available; "
        f"this needs {format_minor(required, cur)} {cur}.",
        code="insufficient_funds",
        detail={
            "account_id": account.pk, "currency": cur,
            "required": format_minor(required, cur),
            "available": format_minor(available, cur),
            "shortfall": format_minor(shortfall, cur),
        },
    )


def _check_lines(lines: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    checked = []
    for line in lines:
        try:
            account_id, amount = line
        except (TypeError, ValueError):
            raise ValidationFailed("Each line is an (account_id, amount) pair.",
                                   code="invalid_lines") from None
        checked.append((int(account_id), _check_amount(amount)))
    if len(checked) < 2:
        raise ValidationFailed("An entry needs at least two lines.", code="unbalanced_entry",
                               detail={"lines": len(checked)})
    return checked


# --- one call into PostgreSQL -----------------------------------------------------------------
# Posting an entry, placing a hold, releasing holds: each is one function of
# ledger/migrations/0009 that locks, checks and writes, so the service makes one round trip.
# Its refusals come back as SQLSTATEs of the ledger's own, with their figures as JSON.
_TOO_FEW_LINES, _UNBALANCED, _INSUFFICIENT = "23L00", "23L01", "23L02"
_HOLD_RESOLVED, _NO_ACCOUNT, _NO_HOLD, _ALREADY_REVERSED = "23L03", "23L04", "23L05", "23L06"
_NO_ENTRY, _REVERSAL_OF_REVERSAL, _NOT_NEGATION, _NO_USER = "23L07", "23L08", "23L09", "23L10"


def _refusal(exc: DatabaseError, account: Account | None = None) -> DomainError | None:
    """The domain error for a refusal of the ledger's functions; None for any other error.

    Runs after the refusing statement was rolled back (its savepoint, or its own
    transaction), so it may read what a readable message needs; ``account``, when the
    caller has read it, words a refusal about it without a read (without a savepoint the
    caller's transaction can read nothing more)."""
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None)
    if sqlstate is None or not sqlstate.startswith("23L"):
        return None
    detail = json.loads(cause.diag.message_detail or "{}")  # type: ignore[union-attr]
    if sqlstate == _TOO_FEW_LINES:
        return ValidationFailed("An entry needs at least two lines.", code="unbalanced_entry",
                                detail=detail)
    if sqlstate == _UNBALANCED:
        return ValidationFailed(
            "An entry's lines must sum to zero in each currency.", code="unbalanced_entry",
            detail={"sums": {cur: format_minor(t, cur) for cur, t in detail["sums"].items()}})
    if sqlstate == _INSUFFICIENT:
        if account is None or account.pk != detail["account_id"]:
            if connection.in_atomic_block and transaction.get_rollback():
                # Refused without a savepoint: the transaction can read nothing more, so
                # the refusal keeps to what the database said (amounts in minor units).
                return Conflict(
                    f"Account #{detail['account_id']} has too little available: "
                    f"{detail['available']} of the {detail['required']} needed "
                    "(in the currency's minor units).", code="insufficient_funds",
                    detail=detail)
            account = Account.objects.get(pk=detail["account_id"])
        return insufficient_funds(account, required=detail["required"],
                                  available=detail["available"])
    if sqlstate == _HOLD_RESOLVED:
        return Conflict(f"Hold #{detail['hold_id']} is already {detail['status']}.",
                        code="hold_resolved", detail=detail)
    if sqlstate == _NO_ACCOUNT:
        missing = detail["account_ids"]
        return NotFound(f"No such ledger account: {', '.join(f'#{i}' for i in missing)}.",
                        detail=detail)
    if sqlstate == _NO_HOLD:
        missing = detail["hold_ids"]
        return NotFound(f"No such hold: {', '.join(f'#{h}' for h in missing)}.", detail=detail)
    if sqlstate == _ALREADY_REVERSED:
        return Conflict(f"Entry #{detail['entry_id']} was already reversed by entry "
                        f"#{detail['reversed_by']}.", code="already_reversed", detail=detail)
    if sqlstate == _NO_ENTRY:
        return NotFound(f"There is no ledger entry #{detail['entry_id']}.", detail=detail)
    if sqlstate == _REVERSAL_OF_REVERSAL:
        return Conflict(f"Entry #{detail['entry_id']} is itself the reversal of entry "
                        f"#{detail['reverses']}; a reversal is never reversed: post a new "
                        "movement instead.", code="reversal_not_reversible", detail=detail)
    if sqlstate == _NOT_NEGATION:
        return ValidationFailed(f"A reversal of entry #{detail['entry_id']} has exactly its "
                                "lines, each amount negated.", code="invalid_reversal",
                                detail=detail)
    if sqlstate == _NO_USER:
        if detail["user_id"] is None:
            return ValidationFailed("A reversal names the user who asked for it.",
                                    code="user_required", detail=detail)
        return NotFound(f"There is no user #{detail['user_id']}.", detail=detail)
    return None


def _call(statement: str, params: list[int | str | None], *,
          savepoint: bool = True, account: Account | None = None) -> list[tuple]:
    """Run one of the ledger's functions; its refusals become the domain's errors.

    Alone (autocommit), the statement is its own transaction: locks, checks, writes, the
    deferred guards and the commit happen in one round trip. Inside a caller's transaction it runs
    in a savepoint, so a refusal leaves the caller's transaction usable; without one
    (``savepoint=False``) a refusal marks the caller's transaction for rollback, as any
    failed statement inside ``atomic`` does. ``account``: as for _refusal.
    """
    try:
        if connection.in_atomic_block or not connection.get_autocommit():
            with transaction.atomic(savepoint=savepoint), connection.cursor() as cursor:
                cursor.execute(statement, params)
                return cursor.fetchall()
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            return cursor.fetchall()
    except DatabaseError as exc:
        refusal = _refusal(exc, account)
        if refusal is None:
            raise
        raise refusal from None


def _array(ids: Iterable[int]) -> str:
    # A PostgreSQL array literal of integers: psycopg adapts one string far faster than a
    # list, and int() leaves nothing else in it.
    return "{" + ",".join(str(int(i)) for i in ids) + "}"


# Every parameter cast to the function's own type: a prepared statement's parameter types
# are fixed at its first use, whatever psycopg sends (an int2 for a small id, unknown for
# None), and the statement is prepared once for every call with the same types.
_ENTRY_POST = ("SELECT * FROM ledger_entry_post(%s::text, %s::text, %s::text, %s::integer,"
               " %s::bigint, %s::text, %s::bigint[], %s::bigint[], %s::bigint[])")


def entry_post(*, kind: str, memo: str, lines: Sequence[tuple[int, int]], by: User | None,
               ref: str = "", settle_holds: Sequence[int] = (), reverses: Entry | None = None,
               reason: str = "", savepoint: bool = True) -> Entry:
    """Post one balanced entry; optionally resolve open holds with it.

    A line's amount is the signed change to its account's balance, in minor units. The lines
    sum to zero per currency. ``settle_holds`` are closed first (captured up to what the entry
    debits on their account, otherwise released), then the non-negative rule is checked, so
    funds held for a wager can pay that wager.

    One call of ledger_entry_post (ledger/migrations/0009, 0013), which takes the locks in
    the order of this module's docstring, checks, settles, and writes the entry last.

    Inside a caller's transaction the call runs in a savepoint, so the caller may catch a
    refusal and go on. ``savepoint=False`` is for a caller whose transaction ends with any
    refusal anyway (it lets the error out of its ``atomic`` block): two round trips fewer.
    """
    if not kind:
        raise ValidationFailed("An entry needs a kind.", code="invalid_kind")
    checked = _check_lines(lines)
    if reverses is not None and not reason.strip():
        raise ValidationFailed("A reversal needs a reason.", code="reason_required")
    reason = reason.strip()
    by_id = by.pk if by is not None else None
    reverses_id = reverses.pk if reverses is not None else None
    try:
        ((entry_id, created_at),) = _call(_ENTRY_POST, [
            kind, memo, ref, by_id, reverses_id, reason, _array(a for a, _ in checked),
            _array(m for _, m in checked), _array(sorted(set(settle_holds)))],
            savepoint=savepoint)
    except IntegrityError as exc:
        # ledger_entry_post refuses a second reversal of one entry under the entry's lock;
        # the unique index on reverses_id is the guard of last resort.
        constraint = getattr(getattr(exc.__cause__, "diag", None), "constraint_name", "")
        if reverses is not None and "reverses" in (constraint or ""):
            raise Conflict(f"Entry #{reverses_id} was already reversed.",
                           code="already_reversed",
                           detail={"entry_id": reverses_id}) from None
        raise
    # txid is left unread: the entry's place among the blocks, which no caller shows.
    entry = Entry(pk=entry_id, kind=kind, memo=memo, ref=ref, created_at=created_at,
                  created_by_id=by_id, reverses=reverses, reason=reason)
    entry._state.adding = False
    entry._state.db = connection.alias
    return entry


# Entry kinds whose reversal belongs to the flow that posted them (kind -> how to correct
# one), registered by that flow's app. Reversing such an entry directly would move the money
# back behind the owner's back (a round would still read "settled", the cage's cash count
# would not know of it). A reversal of an owned entry is owned by the same flow.
OWNED_KINDS: dict[str, str] = {}
REVERSAL = "reversal"


def entry_kind_register_owner(*, kind: str, how_to_reverse: str) -> None:
    OWNED_KINDS[kind] = how_to_reverse


def entry_owner_rule(entry: Entry) -> tuple[str, str] | None:
    """(kind, how to correct it) when ``entry`` belongs to a flow, else None; a reversal is
    owned when the entry it reverses is."""
    kind = entry.kind
    if entry.reverses_id is not None:
        kind = Entry.objects.filter(pk=entry.reverses_id).values_list("kind", flat=True).get()
    if kind in OWNED_KINDS:
        return kind, OWNED_KINDS[kind]
    return None


def entry_reverse_check(*, entry_id: int, by: User | None, by_owner: bool = False,
                        permission: str = "ledger.reverse_entry") -> Entry:
    """The checks of entry_reverse that need no lock: the permission, the entry exists, it
    is not owned by another flow, it is not itself a reversal. Returns the entry."""
    if by is None or not by.has_perm(permission):
        raise permission_refused(permission)
    original = Entry.objects.filter(pk=entry_id).first()
    if original is None:
        raise NotFound(f"There is no ledger entry #{entry_id}.", detail={"entry_id": entry_id})
    owner = entry_owner_rule(original)
    if owner is not None and not by_owner:
        kind, how = owner
        raise Conflict(f"Entry #{entry_id} belongs to a {kind}: {how}.", code="owned_entry",
                       detail={"entry_id": entry_id, "kind": original.kind, "owner_kind": kind,
                               "ref": original.ref, "how_to_correct": how})
    if original.reverses_id is not None:
        # Reversing a reversal would replay the original behind its owner's back (a round
        # reads "reversed" while the win is paid again); a new movement says what happened.
        raise Conflict(f"Entry #{entry_id} is itself the reversal of entry "
                       f"#{original.reverses_id}; a reversal is never reversed: post a new "
                       "movement instead.", code="reversal_not_reversible",
                       detail={"entry_id": entry_id, "reverses": original.reverses_id})
    # A first look without a lock, for a refusal before anything is asked or filed;
    # entry_post checks again under the entry's lock.
    reversal = Entry.objects.filter(reverses_id=entry_id).values_list("pk", flat=True).first()
    if reversal is not None:
        raise Conflict(f"Entry #{entry_id} was already reversed by entry #{reversal}.",
                       code="already_reversed",
                       detail={"entry_id": entry_id, "reversed_by": reversal})
    return original


def entry_reverse(*, entry_id: int, reason: str, by: User, by_owner: bool = False,
                  permission: str = "ledger.reverse_entry",
                  approved_by: approvals.Approval | None = None) -> Entry:
    """A new entry with the original's lines negated, pointing at it; once per entry.

    Holds the original settled stay resolved: a reversal moves money back, it does not
    reopen a wager. An entry of an owned kind (OWNED_KINDS), or the reversal of one, is
    reversed only by its owner's flow, which says so with ``by_owner`` and names the
    permission it requires of ``by``. A reversal is never reversed. ``approved_by``: the
    second person's approval it carries out: a plain reversal's own request, or the request
    of the owner's flow (its correction, its round's reversal), which the flow checked and
    hands on here. Under dual control no reversal runs without one, whoever calls.
    """
    if by is None or not by.has_perm(permission):
        raise permission_refused(permission)
    if not reason or not reason.strip():
        raise ValidationFailed("A reversal needs a reason.", code="reason_required")
    if not by_owner:
        # Under dual control a second person approves first, whoever calls.
        approvals.approval_required_check(action="ledger.entry_reverse",
                                          params={"entry_id": entry_id, "reason": reason},
                                          by=by, approved_by=approved_by)
    else:
        # The owner's flow asked for its own request (its action, its arguments) before it
        # got here; the ledger still refuses a reversal that carries none, so a flow that
        # forgot to ask cannot move money back on one person's word.
        approvals.approval_carried_check(approved_by=approved_by, by=by,
                                         what=f"Reversing entry #{entry_id}")
    original = entry_reverse_check(entry_id=entry_id, by=by, by_owner=by_owner,
                                   permission=permission)
    # Lines never change, so they can be read before the locks entry_post takes.
    lines = [(account_id, -amount) for account_id, amount in
             original.lines.order_by("pk").values_list("account_id", "amount")]
    return entry_post(kind=REVERSAL, memo=f"Reversal of entry #{original.pk}", lines=lines,
                      by=by, ref=original.ref, reverses=original, reason=reason)


# --- holds ----------------------------------------------------------------------------------

_HOLD_PLACE = ("SELECT * FROM ledger_hold_place(%s::bigint, %s::bigint, %s::integer,"
               " %s::text, %s::text)")


def hold_place(*, account_id: int, amount: int, by: User | None, ref: str = "",
               memo: str = "", savepoint: bool = True, account: Account | None = None) -> Hold:
    """Reserve ``amount`` of an account's available funds until captured or released.

    One call of ledger_hold_place: lock the account, check its available funds (unless it
    may go negative), insert the hold (its trigger raises the account's ``held``).

    ``savepoint`` as for entry_post. Without one, a refusal (the funds short) cannot read
    the account for its message: the caller passes the ``account`` it has read (its name
    and currency word the refusal; the figures come from the refusal itself)."""
    _check_amount(amount)
    if amount < 0:
        raise ValidationFailed("A hold's amount must be positive.", code="invalid_amount",
                               detail={"amount": amount})
    if not savepoint and (account is None or account.pk != account_id):
        raise ValueError("hold_place without a savepoint takes the account it holds on")
    by_id = by.pk if by is not None else None
    ((hold_id, created_at),) = _call(_HOLD_PLACE, [int(account_id), amount, by_id, ref, memo],
                                     savepoint=savepoint, account=account)
    hold = Hold(pk=hold_id, account_id=account_id, amount=amount, ref=ref, memo=memo,
                created_at=created_at, created_by_id=by_id)
    hold._state.adding = False
    hold._state.db = connection.alias
    return hold


def hold_release(*, hold_id: int, by: User | None) -> Hold:
    """Release an open hold; a hold resolves exactly once, so a second call is a Conflict."""
    (hold,) = holds_release(hold_ids=[hold_id], by=by)
    return hold


_HOLD_COLUMNS = [field.attname for field in Hold._meta.concrete_fields]
_HOLDS_RELEASE = (f"SELECT {', '.join(_HOLD_COLUMNS)}"  # noqa: S608
                  " FROM ledger_holds_release(%s::bigint[], %s::integer)")


def holds_release(*, hold_ids: Sequence[int], by: User | None,
                  savepoint: bool = True) -> list[Hold]:
    """Release open holds together, in one call however many (a voided or all-push round
    releases a hold per seat). All or none: one hold already resolved refuses the lot.
    ledger_holds_release locks their accounts, then the holds, in key order.
    ``savepoint`` as for entry_post."""
    ids = sorted(set(hold_ids))
    if not ids:
        return []
    rows = _call(_HOLDS_RELEASE, [_array(ids), by.pk if by is not None else None],
                 savepoint=savepoint)
    return sorted((Hold.from_db(connection.alias, _HOLD_COLUMNS, row) for row in rows),
                  key=lambda hold: hold.pk)


def hold_capture(*, hold_id: int, amount: int, to_account_id: int, by: User | None,
                 memo: str = "", kind: str = "capture") -> Entry:
    """Move all or part of a held amount to another account; the rest is released."""
    _check_amount(amount)
    hold = Hold.objects.filter(pk=hold_id).first()
    if hold is None:
        raise NotFound(f"There is no hold #{hold_id}.", detail={"hold_id": hold_id})
    if not 0 < amount <= hold.amount:
        raise ValidationFailed(
            f"A capture takes between 1 and the hold's {hold.amount} minor units.",
            code="invalid_amount", detail={"amount": amount, "held": hold.amount})
    return entry_post(kind=kind, memo=memo, lines=[(hold.account_id, -amount),
                                                   (to_account_id, amount)],
                      by=by, ref=hold.ref, settle_holds=[hold_id])


# --- sealing --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sealed:
    """What one run of the sealer did: the blocks it made, the entries they hold, and the
    newest block's number afterwards (0 before the first)."""

    blocks: int
    entries: int
    last_block: int


def entries_seal(*, max_entries: int = 5000, max_blocks: int = 20) -> Sealed:
    """Seal the entries that can be sealed into blocks of up to ``max_entries``, at most
    ``max_blocks`` of them, in one transaction (ledger_seal, ledger/migrations/0018).

    An entry can be sealed once no transaction that began before its own is still running
    (its txid is below the snapshot's xmin): then no earlier entry can commit after it and
    the order ``(txid, id)`` of what is sealed is final. A long transaction therefore holds
    sealing back, never the posting; ``ledger_verify`` names an entry left unsealed longer
    than ``LEDGER_SEAL_WITHIN_SECONDS``. Runs as the service's role: the block trigger
    computes each block from the stored entries, so the caller decides only where it ends.
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT * FROM ledger_seal(%s::integer, %s::integer)",
                       [int(max_entries), int(max_blocks)])
        blocks, entries, last_block = cursor.fetchone()
    return Sealed(blocks=blocks, entries=entries, last_block=last_block)


def entries_seal_all(*, max_entries: int = 5000) -> Sealed:
    """Seal everything that can be sealed now, a run of blocks per transaction
    (entries_seal), so that no one transaction holds the sealer's lock for long; returns
    the totals and the newest block."""
    blocks = entries = 0
    while (done := entries_seal(max_entries=max_entries)).blocks:
        blocks, entries = blocks + done.blocks, entries + done.entries
    return Sealed(blocks=blocks, entries=entries, last_block=done.last_block)
