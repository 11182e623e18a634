"""Every write to the ledger: accounts, entries, holds, reversals.

Each money movement is one ``transaction.atomic()`` (a savepoint when the caller already runs
a transaction, e.g. a round's settlement posting its entries together with its own rows).

Locking, always in this order, so two movements can never wait on each other in a cycle:
  1. the entry being reversed (reversals only; a transaction-level advisory lock);
  2. every account the movement touches, in primary-key order (``account_lock``);
  3. the holds it settles, in primary-key order;
  4. the chain head (ledger_chainhead's single row), taken last, inside the one statement
     that appends the entry, and held to commit, because each entry's hash includes the
     previous entry's.
A caller that posts several entries in one transaction, or places a hold and then posts an
entry, should first lock the union of their accounts with ``account_lock``; otherwise its
second movement would take account locks while already holding the chain lock or another
account's, out of the order above.

The ledger needs READ COMMITTED (Django's default): the UPDATE that locks the chain head must
read the head as committed by the lock's previous holder, not as of an older snapshot.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from django.db import IntegrityError, connection, transaction
from django.db.models.functions import Now

from casino.shared import approvals
from casino.shared.db import update_rows
from casino.shared.errors import Conflict, NotFound, PermissionRefused, ValidationFailed
from casino.shared.money import MAX_MINOR, format_minor, minor_digits
from ledger import chain
from ledger.models import Account, Entry, Hold

if TYPE_CHECKING:
    from datetime import datetime

    from django.contrib.auth.models import User

# --- accounts -------------------------------------------------------------------------------

def account_get_or_create(*, kind: str, currency: str, ref: str = "", name: str = "") -> Account:
    """The one account of this kind, currency and reference, made on first use."""
    if kind not in Account.Kind.values:
        raise ValidationFailed(f"Unknown account kind {kind!r}.", code="invalid_kind",
                               detail={"kind": kind, "known": list(Account.Kind.values)})
    minor_digits(currency)  # refuses an unknown currency
    found = Account.objects.filter(kind=kind, currency=currency, ref=ref).first()
    if found is not None:
        return found
    # get_or_create retries the read when a concurrent caller inserted the same account
    # first (the unique constraint), so two first deposits cannot make two accounts.
    account, _ = Account.objects.get_or_create(
        kind=kind, currency=currency, ref=ref,
        defaults={"name": name, "allow_negative": kind not in Account.NON_NEGATIVE_KINDS},
    )
    return account


_ACCOUNT_FIELDS = ["id", "kind", "currency", "ref", "name", "allow_negative", "posted", "held",
                   "created_at"]
# Raw SQL on the hottest path: the ORM would only add CPU time while the rows stay locked.
_ACCOUNT_LOCK = (f"SELECT {', '.join(_ACCOUNT_FIELDS)} FROM ledger_account"  # noqa: S608
                 " WHERE id IN ({}) ORDER BY id FOR UPDATE")


def account_lock(*, account_ids: Iterable[int]) -> dict[int, Account]:
    """Lock accounts FOR UPDATE in primary-key order; returns them by id (fresh values).

    Must run inside a transaction. Raises NotFound when any id names no account.
    """
    ids = sorted(set(account_ids))
    if not ids:
        return {}
    with connection.cursor() as cursor:
        # Plain integer parameters: psycopg adapts them far faster than one array.
        cursor.execute(_ACCOUNT_LOCK.format(", ".join(["%s"] * len(ids))), ids)
        rows = cursor.fetchall()
    locked = {row[0]: Account.from_db(connection.alias, _ACCOUNT_FIELDS, row) for row in rows}
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
            "required_minor": required, "available_minor": available,
            "shortfall_minor": shortfall,
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


def _check_balanced(lines: list[tuple[int, int]], accounts: dict[int, Account]) -> None:
    totals: dict[str, int] = defaultdict(int)
    for account_id, amount in lines:
        totals[accounts[account_id].currency] += amount
    unbalanced = {cur: total for cur, total in totals.items() if total}
    if unbalanced:
        raise ValidationFailed(
            "An entry's lines must sum to zero in each currency.", code="unbalanced_entry",
            detail={"sums": {cur: format_minor(t, cur) for cur, t in unbalanced.items()}},
        )


def _settlement(holds: list[Hold], net: dict[int, int]) -> list[tuple[Hold, int]]:
    """How much of each hold the entry captures (0 = released).

    The entry's debit on a hold's account is shared out over that account's settled holds in
    primary-key order: each captures up to its amount, so funds held for a wager pay it.
    """
    debit_left = {account_id: -change for account_id, change in net.items() if change < 0}
    result = []
    for hold in holds:
        captured = min(hold.amount, debit_left.get(hold.account_id, 0))
        if captured:
            debit_left[hold.account_id] -= captured
        result.append((hold, captured))
    return result


def _check_funds(accounts: dict[int, Account], net: dict[int, int],
                 settled: list[tuple[Hold, int]]) -> None:
    freed: dict[int, int] = defaultdict(int)
    for hold, _ in settled:
        freed[hold.account_id] += hold.amount
    for account_id, change in net.items():
        account = accounts[account_id]
        if account.allow_negative or change >= 0:
            continue
        available = account.posted - account.held + freed[account_id]
        if available + change < 0:
            raise insufficient_funds(account, required=-change, available=available)


def entry_post(*, kind: str, memo: str, lines: Sequence[tuple[int, int]], by: User | None,
               ref: str = "", settle_holds: Sequence[int] = (), reverses: Entry | None = None,
               reason: str = "") -> Entry:
    """Post one balanced entry; optionally resolve open holds with it.

    A line's amount is the signed change to its account's balance, in minor units. The lines
    sum to zero per currency. ``settle_holds`` are closed first (captured up to what the entry
    debits on their account, otherwise released), then the non-negative rule is checked, so
    funds held for a wager can pay that wager.
    """
    if not kind:
        raise ValidationFailed("An entry needs a kind.", code="invalid_kind")
    checked = _check_lines(lines)
    if reverses is not None and not reason.strip():
        raise ValidationFailed("A reversal needs a reason.", code="reason_required")
    hold_ids = sorted(set(settle_holds))
    with transaction.atomic():
        if reverses is not None:
            _lock_unreversed(reverses.pk)
        # A hold's account never changes, so it can be read before anything is locked.
        hold_accounts: dict[int, int] = {}
        if hold_ids:
            hold_accounts = dict(Hold.objects.filter(pk__in=hold_ids)
                                 .values_list("pk", "account_id"))
            missing = [h for h in hold_ids if h not in hold_accounts]
            if missing:
                raise NotFound(f"No such hold: {', '.join(f'#{h}' for h in missing)}.",
                               detail={"hold_ids": missing})
        accounts = account_lock(account_ids=[a for a, _ in checked] + list(hold_accounts.values()))
        _check_balanced(checked, accounts)
        holds = _lock_open_holds(hold_ids) if hold_ids else []
        net: dict[int, int] = defaultdict(int)
        for account_id, amount in checked:
            net[account_id] += amount
        settled = _settlement(holds, net)
        _check_funds(accounts, net, settled)
        return _entry_write(kind=kind, memo=memo, lines=checked, by=by, ref=ref,
                            settled=settled, reverses=reverses, reason=reason.strip())


# Advisory lock class of "reversing entry N" (the key's other half is N, folded to 31 bits:
# a collision only makes two unrelated reversals wait for each other).
_REVERSAL_LOCK = 0x4C52


def _lock_unreversed(entry_id: int) -> None:
    # Not SELECT ... FOR UPDATE on the entry: that needs UPDATE on ledger_entry, which the
    # service's role does not have (entries never change).
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, (%s::bigint %% 2147483648)::int)",
                       [_REVERSAL_LOCK, entry_id])
    reversal = Entry.objects.filter(reverses_id=entry_id).values_list("pk", flat=True).first()
    if reversal is not None:
        raise Conflict(f"Entry #{entry_id} was already reversed by entry #{reversal}.",
                       code="already_reversed",
                       detail={"entry_id": entry_id, "reversed_by": reversal})


def _lock_open_holds(hold_ids: list[int]) -> list[Hold]:
    holds = list(Hold.objects.select_for_update().filter(pk__in=hold_ids).order_by("pk"))
    for hold in holds:
        if hold.status != Hold.Status.OPEN:
            raise Conflict(f"Hold #{hold.pk} is already {hold.status}.", code="hold_resolved",
                           detail={"hold_id": hold.pk, "status": hold.status})
    return holds


# The chain head is created on first use (and again after a TRUNCATE), from the newest entry.
_CHAIN_START = """
    INSERT INTO ledger_chainhead (id, seq, last_entry_id, last_hash, prev_hash)
    SELECT 1, coalesce(e.seq, 0), e.id, coalesce(e.hash, %s), coalesce(e.prev_hash, '')
      FROM (SELECT 1) one LEFT JOIN LATERAL
           (SELECT id, seq, hash, prev_hash FROM ledger_entry ORDER BY seq DESC LIMIT 1) e ON true
    ON CONFLICT (id) DO NOTHING
"""
# The append, in one statement, so no client round trip happens while the chain head is
# locked: lock the head, give the entry the next seq and its hash (the header of
# ledger.chain, then the body the service built), insert the entry and its lines (their
# trigger moves the accounts' posted), move the head.
_ENTRY_APPEND = """
    WITH new AS (SELECT {ident}),
    head AS (
        UPDATE ledger_chainhead h
           SET seq = h.seq + 1, prev_hash = h.last_hash, last_entry_id = new.id,
               last_hash = encode(sha256(convert_to(
                   h.last_hash || E'\\n' || 'id=' || new.id || E'\\nseq=' || (h.seq + 1)
                   || E'\\nat=' || to_char(new.at AT TIME ZONE 'UTC',
                                             'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
                   || E'\\n' || %(body)s, 'UTF8')), 'hex')
          FROM new
         WHERE h.id = 1
        RETURNING new.id, new.at, h.seq, h.prev_hash, h.last_hash
    ),
    entry AS (
        INSERT INTO ledger_entry (id, seq, kind, memo, ref, created_at, created_by_id,
                                  reverses_id, reason, prev_hash, hash)
        SELECT id, seq, %(kind)s, %(memo)s, %(ref)s, at, %(by)s, %(reverses)s, %(reason)s,
               prev_hash, last_hash
          FROM head
    ),
    line AS (
        INSERT INTO ledger_line (entry_id, account_id, amount)
        SELECT head.id, line.account_id, line.amount
          FROM head, (VALUES {lines}) AS line(account_id, amount)
    )
    SELECT id, at, seq, prev_hash, last_hash FROM head
"""
_NEW_ENTRY = "nextval(pg_get_serial_sequence('ledger_entry', 'id')) AS id, clock_timestamp() AS at"
_GIVEN_ENTRY = "%(id)s::bigint AS id, %(at)s::timestamptz AS at"


def _entry_write(*, kind: str, memo: str, lines: list[tuple[int, int]], by: User | None,
                 ref: str, settled: list[tuple[Hold, int]], reverses: Entry | None,
                 reason: str) -> Entry:
    """Resolve the entry's holds, then append it to the chain with its lines.

    The caller holds locked every account of ``lines`` and of ``settled``, and the settled
    holds. The chain head's lock is taken last, inside the appending statement, and kept to
    commit. Holds are resolved first: their trigger lowers ``held`` before the lines' trigger
    raises ``posted``, so the CHECK on a player's available balance sees the held funds
    released before the debit they pay for. A hold names the entry that resolved it and
    carries its time, so the entry's id and time are drawn before it in that case.
    """
    by_id = by.pk if by is not None else None
    reverses_id = reverses.pk if reverses is not None else None
    values: dict[str, int | str | datetime | None] = {
        "kind": kind, "memo": memo, "ref": ref, "by": by_id, "reverses": reverses_id,
        "reason": reason,
        "body": chain.body(kind=kind, memo=memo, ref=ref, created_by_id=by_id,
                           reverses_id=reverses_id, reason=reason, lines=lines),
    }
    for n, (account_id, amount) in enumerate(lines):
        values[f"a{n}"], values[f"m{n}"] = account_id, amount
    statement = _ENTRY_APPEND.format(
        ident=_GIVEN_ENTRY if settled else _NEW_ENTRY,
        lines=", ".join(f"(%(a{n})s::bigint, %(m{n})s::bigint)" for n in range(len(lines))))
    with connection.cursor() as cursor:
        if settled:
            cursor.execute("SELECT nextval(pg_get_serial_sequence('ledger_entry', 'id')),"
                           " clock_timestamp()")
            new_id, new_at = cursor.fetchone()
            values["id"], values["at"] = new_id, new_at
            for hold, captured in settled:
                hold.status = Hold.Status.CAPTURED if captured else Hold.Status.RELEASED
                hold.captured_amount = captured or None
                hold.entry_id = new_id
                hold.resolved_at = new_at
                hold.resolved_by_id = by_id
            # One statement for every hold the entry resolves (a round resolves one per seat).
            update_rows([h for h, _ in settled],
                        ["status", "captured_amount", "entry", "resolved_at", "resolved_by"])
        try:
            cursor.execute(statement, values)
            row = cursor.fetchone()
            if row is None:
                cursor.execute(_CHAIN_START, [chain.GENESIS])
                cursor.execute(statement, values)
                row = cursor.fetchone()
        except IntegrityError as exc:
            # _lock_unreversed makes a second reversal of one entry a Conflict before this
            # point; the unique index on reverses_id is the guard of last resort.
            constraint = getattr(getattr(exc.__cause__, "diag", None), "constraint_name", "")
            if reverses is not None and "reverses" in (constraint or ""):
                raise Conflict(f"Entry #{reverses_id} was already reversed.",
                               code="already_reversed",
                               detail={"entry_id": reverses_id}) from None
            raise
    entry_id, created_at, seq, prev_hash, entry_hash = row
    entry = Entry(pk=entry_id, seq=seq, kind=kind, memo=memo, ref=ref, created_at=created_at,
                  created_by_id=by_id, reverses=reverses, reason=reason, prev_hash=prev_hash,
                  hash=entry_hash)
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
        raise PermissionRefused(f"Reversing an entry needs the {permission} permission.")
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
                  permission: str = "ledger.reverse_entry") -> Entry:
    """A new entry with the original's lines negated, pointing at it; once per entry.

    Holds the original settled stay resolved: a reversal moves money back, it does not
    reopen a wager. An entry of an owned kind (OWNED_KINDS), or the reversal of one, is
    reversed only by its owner's flow, which says so with ``by_owner`` and names the
    permission it requires of ``by``. A reversal is never reversed.
    """
    if by is None or not by.has_perm(permission):
        raise PermissionRefused(f"Reversing an entry needs the {permission} permission.")
    if not reason or not reason.strip():
        raise ValidationFailed("A reversal needs a reason.", code="reason_required")
    if not by_owner:
        # Under dual control a second person approves first, whoever calls; an owner's
        # flow (a round, the cage) asks for its own approval before it gets here.
        approvals.approval_required_check(action="ledger.entry_reverse",
                                          params={"entry_id": entry_id, "reason": reason})
    original = entry_reverse_check(entry_id=entry_id, by=by, by_owner=by_owner,
                                   permission=permission)
    # Lines never change, so they can be read before the locks entry_post takes.
    lines = [(account_id, -amount) for account_id, amount in
             original.lines.order_by("pk").values_list("account_id", "amount")]
    return entry_post(kind=REVERSAL, memo=f"Reversal of entry #{original.pk}", lines=lines,
                      by=by, ref=original.ref, reverses=original, reason=reason)


# --- holds ----------------------------------------------------------------------------------

def hold_place(*, account_id: int, amount: int, by: User | None, ref: str = "",
               memo: str = "") -> Hold:
    """Reserve ``amount`` of an account's available funds until captured or released."""
    _check_amount(amount)
    if amount < 0:
        raise ValidationFailed("A hold's amount must be positive.", code="invalid_amount",
                               detail={"amount": amount})
    with transaction.atomic():
        account = account_lock(account_ids=[account_id])[account_id]
        if not account.allow_negative and account.available < amount:
            raise insufficient_funds(account, required=amount, available=account.available)
        return _hold_write(account=account, amount=amount, by=by, ref=ref, memo=memo)


def _hold_write(*, account: Account, amount: int, by: User | None, ref: str,
                memo: str) -> Hold:
    """Insert the hold; the caller holds the account locked (its trigger raises ``held``)."""
    hold = Hold(account=account, amount=amount, ref=ref, memo=memo, created_at=Now(),
                created_by=by)
    hold.save(force_insert=True)
    hold.refresh_from_db(fields=["created_at"])
    return hold


def hold_release(*, hold_id: int, by: User | None) -> Hold:
    """Release an open hold; a hold resolves exactly once, so a second call is a Conflict."""
    (hold,) = holds_release(hold_ids=[hold_id], by=by)
    return hold


def holds_release(*, hold_ids: Sequence[int], by: User | None) -> list[Hold]:
    """Release open holds together, in a number of queries that does not grow with their
    count (a voided or all-push round releases a hold per seat). All or none: one hold
    already resolved refuses the lot. Locks their accounts, then the holds, in key order."""
    ids = sorted(set(hold_ids))
    if not ids:
        return []
    with transaction.atomic():
        hold_accounts = dict(Hold.objects.filter(pk__in=ids).values_list("pk", "account_id"))
        missing = [h for h in ids if h not in hold_accounts]
        if missing:
            raise NotFound(f"No such hold: {', '.join(f'#{h}' for h in missing)}.",
                           detail={"hold_ids": missing})
        account_lock(account_ids=hold_accounts.values())
        holds = _lock_open_holds(ids)
        Hold.objects.filter(pk__in=ids).update(status=Hold.Status.RELEASED,
                                               resolved_at=Now(), resolved_by=by)
        resolved_at = dict(Hold.objects.filter(pk__in=ids).values_list("pk", "resolved_at"))
        for hold in holds:
            hold.status = Hold.Status.RELEASED
            hold.resolved_by = by
            hold.resolved_at = resolved_at[hold.pk]
        return holds


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
