"""The ledger's self-audit: recompute what the ledger claims and list every disagreement.

Run by ``manage.py ledger_verify`` (and by tests after they move money). It reads one
consistent snapshot (REPEATABLE READ), so entries posted while it runs cannot show up as
false discrepancies, and it works in batches so a long ledger needs little memory.

**From a checkpoint.** Each verify that finds nothing wrong may record a ``Checkpoint``
(``record=True``, as the command does): the newest sealed block, its hash, and every
account's line total through it, signed with ``LEDGER_CHECKPOINT_KEY``. The next verify
starts after the newest checkpoint whose signature and block still hold: it rehashes only
the blocks sealed since, and checks the entries, holds and account totals of what came
after the checkpoint's block (an account's cached ``posted`` must be its total at the
checkpoint plus its lines since). Its cost grows with new entries, not with history.
``full=True`` (``--all``) walks everything from the genesis: what a change to history before
the newest checkpoint, made with the triggers off, needs to be found.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone

from casino.shared.money import format_minor
from ledger import chain
from ledger.models import Checkpoint

BATCH = 1000  # blocks read at once (a block holds up to ledger_seal's max_entries)


@dataclass(frozen=True)
class Anchor:
    """A block recorded earlier, outside the database: block ``seq`` had ``hash``. An owner
    can rewrite the blocks and their entries together so that they agree; they cannot make
    a block's hash come out as the one written down before. Before blocks, entry ``seq`` n
    was chained alone: it is block n, so an anchor written down then still holds."""

    seq: int
    hash: str


@dataclass(frozen=True)
class Link:
    """A block of the chain: 0 with the genesis hash before the first."""

    seq: int
    hash: str

    def __str__(self) -> str:
        if self.seq == 0:
            return f"the genesis (block 0, hash {self.hash})"
        return f"block {self.seq}, hash {self.hash}"


@dataclass(frozen=True)
class Start:
    """Where a verify starts: after block ``n`` (its hash, and the key of its last entry in
    sealing order), with every account's line total through it when it is a checkpoint."""

    n: int = 0
    hash: str = chain.GENESIS
    txid: int = 0
    entry_id: int = 0
    legacy_seq: int | None = None  # chained entries up to this seq are before the start
    balances: dict[int, int] | None = None
    checkpoint_id: int | None = None

    def new_entries(self, alias: str = "e") -> tuple[str, list[int]]:
        """SQL (and its parameters) for the entries after this start: a fixed condition with
        placeholders, what the queries below put in their WHERE (hence their noqa: S608)."""
        if self.n == 0:
            return "true", []
        if self.legacy_seq is None:
            return f"({alias}.txid IS NOT NULL AND ({alias}.txid, {alias}.id) > (%s, %s))", [
                self.txid, self.entry_id]
        return (f"(({alias}.txid IS NOT NULL AND ({alias}.txid, {alias}.id) > (%s, %s))"
                f" OR ({alias}.txid IS NULL AND {alias}.seq > %s))",
                [self.txid, self.entry_id, self.legacy_seq])


@dataclass
class Report:
    entries: int = 0
    blocks: int = 0
    accounts: int = 0
    holds: int = 0
    unsealed: int = 0
    problems: list[str] = field(default_factory=list)
    # The newest sealed block as stored. An anchor to keep only when ``chain_ok``.
    head_seq: int = 0
    head_hash: str = chain.GENESIS
    # When a block is not sound: the last that is, and what the first that is not is.
    last_good: Link = field(default_factory=lambda: Link(0, chain.GENESIS))
    first_bad: str | None = None
    # Number of each block named by a problem of its own, with it.
    bad_blocks: dict[int, str] = field(default_factory=dict)
    # The chain does not pass through the anchor it was given.
    anchor_broken: str | None = None
    # The checkpoint this verify started from (its block), None from the genesis.
    started_after: int | None = None
    # What record=True stored: the checkpoint's block, or None.
    checkpoint: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def chain_ok(self) -> bool:
        """Every block is linked, hashed and sound."""
        return self.first_bad is None

    def block_problem(self, n: int, problem: str) -> None:
        self.problems.append(problem)
        self.bad_blocks.setdefault(n, problem)


# --- checkpoints ----------------------------------------------------------------------------

def _key() -> bytes:
    key = settings.LEDGER_CHECKPOINT_KEY
    return key.encode()


def checkpoint_signature(*, n: int, hash: str, balances: dict[int, int]) -> str:
    """HMAC-SHA256 over the block and the balances: what the database's owner, who has no
    key, cannot forge, so a checkpoint they wrote is not a starting point."""
    digest = hashlib.sha256(json.dumps({str(k): v for k, v in sorted(balances.items())},
                                       separators=(",", ":")).encode()).hexdigest()
    return hmac.new(_key(), f"{n}:{hash}:{digest}".encode(), hashlib.sha256).hexdigest()


def anchor_signature(*, n: int, hash: str) -> str:
    """HMAC-SHA256 of a head ``N:HASH`` with the checkpoint key: printed beside the head for
    the auditor to keep outside the database, so that an anchor handed back to
    ``--expect`` is known to be one ledger_verify printed, not one written to fit."""
    return hmac.new(_key(), f"anchor:{n}:{hash}".encode(), hashlib.sha256).hexdigest()


def _start(cursor, report: Report) -> Start:
    """After the newest checkpoint that is signed and whose block still has its hash."""
    cursor.execute("SELECT c.id, c.block_n, c.hash, c.balances, c.signature, b.hash,"
                   "       b.last_txid, b.last_entry_id"
                   "  FROM ledger_checkpoint c LEFT JOIN ledger_block b ON b.n = c.block_n"
                   " ORDER BY c.id DESC LIMIT 1")
    row = cursor.fetchone()
    if row is None:
        return Start()
    cp_id, n, cp_hash, raw, signature, block_hash, txid, entry_id = row
    try:
        raw = json.loads(raw) if isinstance(raw, str) else raw
        balances = {int(k): int(v) for k, v in raw.items()}
    except (AttributeError, TypeError, ValueError):
        # The runtime role may append any row: one no verify wrote is named, not a crash.
        balances = None
    # As bytes: compare_digest refuses text that is not ASCII.
    if balances is None or not hmac.compare_digest(
            signature.encode(),
            checkpoint_signature(n=n, hash=cp_hash, balances=balances).encode()):
        report.problems.append(
            f"checkpoint #{cp_id} (block {n}) is not signed with the ledger's checkpoint key "
            "(written around ledger_verify): verified from the genesis instead")
        return Start()
    if block_hash != cp_hash:
        report.block_problem(
            n, f"block {n}: " + ("is missing" if block_hash is None else f"has hash "
                                 f"{block_hash}") + f", but checkpoint #{cp_id} verified it with "
            f"hash {cp_hash} (history was rewritten): verified from the genesis instead")
        return Start()
    if txid is None:
        return Start(n=n, hash=cp_hash, legacy_seq=n, balances=balances, checkpoint_id=cp_id)
    return Start(n=n, hash=cp_hash, txid=txid, entry_id=entry_id, balances=balances,
                 checkpoint_id=cp_id)


# --- the blocks -----------------------------------------------------------------------------

def _chained_entries(cursor, ids: list[int]) -> dict[int, tuple]:
    """The entries chained one at a time before blocks, by id, with their lines."""
    if not ids:
        return {}
    cursor.execute(
        """
        SELECT e.id, e.seq, e.created_at, e.kind, e.memo, e.ref, e.created_by_id,
               e.reverses_id, e.reason, e.prev_hash, e.hash, e.txid,
               coalesce(array_agg(l.account_id ORDER BY l.id)
                        FILTER (WHERE l.id IS NOT NULL), '{}'),
               coalesce(array_agg(l.amount ORDER BY l.id) FILTER (WHERE l.id IS NOT NULL), '{}')
          FROM ledger_entry e LEFT JOIN ledger_line l ON l.entry_id = e.id
         WHERE e.id = ANY (%s) GROUP BY e.id
        """, [ids])
    return {row[0]: row for row in cursor.fetchall()}


def _sealed_entries(cursor, after: tuple[int, int], last: tuple[int, int]) -> list[tuple]:
    """The entries after ``after`` up to ``last`` in sealing order, with their lines."""
    cursor.execute(
        """
        SELECT e.id, e.txid, e.created_at, e.kind, e.memo, e.ref, e.created_by_id,
               e.reverses_id, e.reason,
               coalesce(array_agg(l.account_id ORDER BY l.id)
                        FILTER (WHERE l.id IS NOT NULL), '{}'),
               coalesce(array_agg(l.amount ORDER BY l.id) FILTER (WHERE l.id IS NOT NULL), '{}')
          FROM ledger_entry e LEFT JOIN ledger_line l ON l.entry_id = e.id
         WHERE (e.txid, e.id) > (%s, %s) AND (e.txid, e.id) <= (%s, %s)
         GROUP BY e.id ORDER BY e.txid, e.id
        """, [*after, *last])
    return cursor.fetchall()


def _check_chained(report: Report, n: int, prev_hash: str, stored_hash: str,
                   row: tuple | None, entry_id: int) -> None:
    if row is None:
        report.block_problem(n, f"block {n}: its entry #{entry_id} is missing")
        return
    (_, seq, created_at, kind, memo, ref, by_id, reverses_id, reason, entry_prev, entry_hash,
     txid, account_ids, amounts) = row
    content = chain.canonical(
        entry_id=entry_id, seq=n, created_at=created_at, kind=kind, memo=memo, ref=ref,
        created_by_id=by_id, reverses_id=reverses_id, reason=reason,
        lines=zip(account_ids, amounts, strict=True))
    if (seq != n or txid is not None or entry_prev != prev_hash or entry_hash != stored_hash
            or chain.entry_hash(prev_hash, content) != stored_hash):
        report.block_problem(n, f"block {n}: entry #{entry_id}'s hash does not match its "
                                "content (altered after posting)")
    report.entries += 1


def _check_sealed(cursor, report: Report, n: int, after: tuple[int, int],
                  last: tuple[int, int], stored_prev: str, stored_hash: str,
                  stored_entries: int) -> None:
    digests = [chain.entry_digest(
        entry_id=entry_id, txid=txid, created_at=created_at, kind=kind, memo=memo, ref=ref,
        created_by_id=by_id, reverses_id=reverses_id, reason=reason,
        lines=zip(account_ids, amounts, strict=True))
        for (entry_id, txid, created_at, kind, memo, ref, by_id, reverses_id, reason,
             account_ids, amounts) in _sealed_entries(cursor, after, last)]
    report.entries += len(digests)
    if len(digests) != stored_entries:
        report.block_problem(n, f"block {n}: holds {len(digests)} entries, sealed with "
                                f"{stored_entries} (entries were removed or inserted)")
    elif chain.block_hash(stored_prev, n, digests) != stored_hash:
        report.block_problem(n, f"block {n}: its hash does not match its entries (an entry "
                                "was altered after sealing, or the block was)")


def _check_blocks(cursor, report: Report, start: Start,
                  progress: Callable[[str], None] | None, anchor: Anchor | None) -> None:
    prev_n, prev_hash = start.n, start.hash
    after = (start.txid, start.entry_id)
    anchored_hash = start.hash if anchor is not None and anchor.seq == start.n else None
    if anchor is not None and anchor.seq < start.n:
        # Before the checkpoint: the block as stored (the checkpoint vouches for the blocks
        # up to it; --all rehashes them).
        cursor.execute("SELECT hash FROM ledger_block WHERE n = %s", [anchor.seq])
        found = cursor.fetchone()
        anchored_hash = found[0] if found else (chain.GENESIS if anchor.seq == 0 else None)
    cursor.execute("SELECT count(*) FROM ledger_block WHERE n > %s", [prev_n])
    total = cursor.fetchone()[0]
    while True:
        cursor.execute("SELECT n, last_txid, last_entry_id, entries, prev_hash, hash"
                       "  FROM ledger_block WHERE n > %s ORDER BY n LIMIT %s", [prev_n, BATCH])
        blocks = cursor.fetchall()
        if not blocks:
            break
        chained = _chained_entries(cursor, [b[2] for b in blocks if b[1] is None])
        for n, last_txid, last_entry_id, entries, stored_prev, stored_hash in blocks:
            if n != prev_n + 1:
                report.block_problem(n, f"block {n}: follows block {prev_n} (blocks "
                                        f"{prev_n + 1} to {n - 1} are missing)")
            if stored_prev != prev_hash:
                report.block_problem(n, f"block {n}: prev_hash is not the hash of block "
                                        f"{prev_n} (a block was removed, inserted, reordered "
                                        "or rewritten)")
            if last_txid is None:
                if after != (0, 0):
                    report.block_problem(n, f"block {n}: a block of one chained entry after "
                                            "sealed blocks (written around the sealer)")
                _check_chained(report, n, stored_prev, stored_hash, chained.get(last_entry_id),
                               last_entry_id)
            else:
                last = (last_txid, last_entry_id)
                if last <= after:
                    report.block_problem(n, f"block {n}: ends before block {prev_n} does "
                                            "(blocks reordered)")
                else:
                    _check_sealed(cursor, report, n, after, last, stored_prev, stored_hash,
                                  entries)
                after = last
            if anchor is not None and n == anchor.seq:
                anchored_hash = stored_hash
            prev_n, prev_hash = n, stored_hash
            report.blocks += 1
        if progress and total > BATCH:
            progress(f"blocks: {report.blocks}/{total}")
    report.head_seq, report.head_hash = prev_n, prev_hash
    _check_unsealed(cursor, report, after, start)
    if anchor is None:
        return
    if anchored_hash is None:
        report.anchor_broken = (
            f"the chain no longer reaches the anchored block {anchor.seq}: it ends at "
            f"block {prev_n} (blocks were removed)")
    elif anchored_hash != anchor.hash:
        report.anchor_broken = (
            f"block {anchor.seq} has hash {anchored_hash}, not the anchored {anchor.hash}: "
            "the chain was rewritten at or before that block")
    if report.anchor_broken is not None:
        report.problems.append(report.anchor_broken)


def _check_unsealed(cursor, report: Report, after: tuple[int, int], start: Start) -> None:
    """Entries after the newest block wait for the sealer, for a while only; and every entry
    chained before blocks is one of those blocks."""
    limit = timedelta(seconds=settings.LEDGER_SEAL_WITHIN_SECONDS)
    # Counted in the database, and only the first few overdue read: a stopped sealer may
    # leave millions waiting.
    cursor.execute(
        "SELECT count(*), count(*) FILTER (WHERE now() - e.created_at > %s) FROM ledger_entry e"
        " WHERE e.txid IS NOT NULL AND (e.txid, e.id) > (%s, %s)", [limit, *after])
    report.unsealed, overdue = cursor.fetchone()
    if overdue:
        cursor.execute(
            "SELECT e.id, e.created_at FROM ledger_entry e WHERE e.txid IS NOT NULL"
            " AND (e.txid, e.id) > (%s, %s) AND now() - e.created_at > %s"
            " ORDER BY e.txid, e.id LIMIT 10", [*after, limit])
        for entry_id, created_at in cursor.fetchall():
            report.problems.append(
                f"entry #{entry_id}, posted at {created_at.isoformat()}, is not sealed after "
                f"{settings.LEDGER_SEAL_WITHIN_SECONDS} s (is the sealer running? "
                "manage.py ledger_seal)")
    if overdue > 10:
        report.problems.append(f"... and {overdue - 10} more entries left unsealed")
    # An entry without a txid is one chained before blocks, and so a block of its own.
    where, params = ("", [])
    if start.checkpoint_id is not None:
        # Since the checkpoint only: one written with an older time is --all's to find.
        where, params = (" AND e.created_at >= (SELECT verified_at FROM ledger_checkpoint"
                         " WHERE id = %s) - interval '1 day'", [start.checkpoint_id])
    cursor.execute(
        "SELECT e.id FROM ledger_entry e WHERE e.txid IS NULL" + where +  # noqa: S608
        " AND NOT EXISTS (SELECT 1 FROM ledger_block b WHERE b.n = e.seq"
        "                   AND b.last_txid IS NULL AND b.last_entry_id = e.id)"
        " ORDER BY e.id LIMIT 10", params)
    for (entry_id,) in cursor.fetchall():
        report.problems.append(f"entry #{entry_id}: has no transaction and is in no block "
                               "(written beside the chain)")


# --- entries, accounts, holds ---------------------------------------------------------------

def _check_entries_balanced(cursor, report: Report, start: Start) -> None:
    new, params = start.new_entries()
    cursor.execute(
        f"""
        SELECT e.id, count(l.id) FROM ledger_entry e
          LEFT JOIN ledger_line l ON l.entry_id = e.id
         WHERE {new} GROUP BY e.id HAVING count(l.id) < 2 ORDER BY e.id
        """, params)  # noqa: S608
    for entry_id, lines in cursor.fetchall():
        report.problems.append(f"entry #{entry_id}: has {lines} line(s), needs at least two")
    cursor.execute(
        f"""
        SELECT l.entry_id, a.currency, sum(l.amount)::bigint
          FROM ledger_line l JOIN ledger_account a ON a.id = l.account_id
          JOIN ledger_entry e ON e.id = l.entry_id
         WHERE {new}
         GROUP BY l.entry_id, a.currency HAVING sum(l.amount) <> 0 ORDER BY l.entry_id
        """, params)  # noqa: S608
    for entry_id, currency, total in cursor.fetchall():
        report.problems.append(
            f"entry #{entry_id}: {currency} lines sum to {format_minor(total, currency)}, not 0")


def _check_reversals(cursor, report: Report, start: Start) -> None:
    """A reversal is its original's lines negated, no more, no less, and reverses no
    reversal: what ledger_entry_post checks (0015), for an entry written around it."""
    new, params = start.new_entries()
    cursor.execute(
        f"""
        SELECT e.id, e.reverses_id, o.reverses_id,
               (SELECT array_agg(ARRAY[l.account_id, l.amount] ORDER BY l.account_id, l.amount)
                  FROM ledger_line l WHERE l.entry_id = e.id)
               IS DISTINCT FROM
               (SELECT array_agg(ARRAY[l.account_id, -l.amount]
                                 ORDER BY l.account_id, -l.amount)
                  FROM ledger_line l WHERE l.entry_id = e.reverses_id)
          FROM ledger_entry e JOIN ledger_entry o ON o.id = e.reverses_id
         WHERE {new} ORDER BY e.id
        """, params)  # noqa: S608
    for entry_id, original, original_reverses, not_negation in cursor.fetchall():
        if not_negation:
            report.problems.append(
                f"entry #{entry_id}: reverses entry #{original} but its lines are not exactly "
                f"#{original}'s negated (not a correction of it)")
        if original_reverses is not None:
            report.problems.append(
                f"entry #{entry_id}: reverses entry #{original}, itself the reversal of entry "
                f"#{original_reverses} (a reversal is never reversed)")


def _line_totals(cursor, start: Start) -> dict[int, int]:
    """Each account's lines of the entries after ``start`` (all of them from the genesis)."""
    if start.balances is None:
        cursor.execute("SELECT account_id, sum(amount)::bigint FROM ledger_line"
                       " GROUP BY account_id")
        return dict(cursor.fetchall())
    new, params = start.new_entries()
    cursor.execute(
        f"SELECT l.account_id, sum(l.amount)::bigint FROM ledger_entry e"  # noqa: S608
        f"  JOIN ledger_line l ON l.entry_id = e.id WHERE {new} GROUP BY l.account_id", params)
    totals = dict(start.balances)
    for account_id, amount in cursor.fetchall():
        totals[account_id] = totals.get(account_id, 0) + amount
    return totals


def _check_accounts(cursor, report: Report, start: Start) -> None:
    lines = _line_totals(cursor, start)
    cursor.execute(
        """
        SELECT a.id, a.kind, a.ref, a.currency, a.allow_negative, a.posted, a.held,
               coalesce(h.total, 0)
          FROM ledger_account a
          LEFT JOIN (SELECT account_id, sum(amount)::bigint AS total FROM ledger_hold
                      WHERE status = 'open' GROUP BY account_id) h ON h.account_id = a.id
         ORDER BY a.id
        """
    )
    currency_totals: dict[str, int] = {}
    for (account_id, kind, ref, cur, allow_negative, posted, held,
         open_holds) in cursor.fetchall():
        report.accounts += 1
        total = lines.pop(account_id, 0)
        currency_totals[cur] = currency_totals.get(cur, 0) + total
        name = f"account #{account_id} ({kind} {ref or '-'} {cur})"
        if posted != total:
            report.problems.append(
                f"{name}: cached posted {format_minor(posted, cur)} but its lines sum to "
                f"{format_minor(total, cur)}")
        if held != open_holds:
            report.problems.append(
                f"{name}: cached held {format_minor(held, cur)} but its open holds sum to "
                f"{format_minor(open_holds, cur)}")
        if not allow_negative and total - open_holds < 0:
            report.problems.append(
                f"{name}: available {format_minor(total - open_holds, cur)} is below zero")
    for account_id, total in lines.items():
        if total:
            report.problems.append(f"lines of {total} minor units name account #{account_id}, "
                                   "which does not exist")
    for cur, total in sorted(currency_totals.items()):
        if total:
            report.problems.append(
                f"the {cur} accounts sum to {format_minor(total, cur)}, not 0 (money appeared "
                "or vanished)")


def _check_holds(cursor, report: Report, start: Start) -> None:
    new, params = start.new_entries()
    where = "" if start.balances is None else (
        f" WHERE h.status = 'open' OR h.entry_id IN (SELECT e.id FROM ledger_entry e"  # noqa: S608
        f" WHERE {new})")
    cursor.execute(
        f"""
        SELECT h.id, h.status, h.captured_amount, h.entry_id,
               (SELECT -sum(l.amount)::bigint FROM ledger_line l
                 WHERE l.entry_id = h.entry_id AND l.account_id = h.account_id)
          FROM ledger_hold h{where} ORDER BY h.id
        """, params if where else [])  # noqa: S608
    for hold_id, status, captured, entry_id, debit in cursor.fetchall():
        report.holds += 1
        if status == "captured" and (debit is None or captured > debit):
            report.problems.append(
                f"hold #{hold_id}: captured {captured} but entry #{entry_id} debits only "
                f"{debit or 0} on its account")


def _locate_first_bad(cursor, report: Report) -> None:
    """The first block, in chain order, that something is wrong with, and the one before
    it: what to anchor instead of a head that may have been written beside the chain."""
    if report.anchor_broken is not None:
        # Rewritten somewhere up to the anchor, or cut short: no block after the genesis
        # can be vouched for.
        report.last_good = Link(0, chain.GENESIS)
        report.first_bad = report.anchor_broken
        return
    if not report.bad_blocks:
        return
    n = min(report.bad_blocks)
    cursor.execute("SELECT n, hash FROM ledger_block WHERE n < %s ORDER BY n DESC LIMIT 1", [n])
    row = cursor.fetchone()
    report.last_good = Link(row[0], row[1]) if row is not None else Link(0, chain.GENESIS)
    report.first_bad = f"block {n}: {report.bad_blocks[n]}"


def _balances_through_head(cursor, start: Start, report: Report) -> dict[int, int]:
    """Every account's line total through the newest block: a checkpoint's figures."""
    cursor.execute("SELECT last_txid, last_entry_id FROM ledger_block WHERE n = %s",
                   [report.head_seq])
    row = cursor.fetchone()
    head = (Start(n=report.head_seq, legacy_seq=report.head_seq) if row is None or row[0] is None
            else Start(n=report.head_seq, txid=row[0], entry_id=row[1]))
    after_head, params = head.new_entries()
    if start.balances is None:
        cursor.execute(
            f"SELECT l.account_id, sum(l.amount)::bigint FROM ledger_entry e"  # noqa: S608
            f"  JOIN ledger_line l ON l.entry_id = e.id WHERE NOT {after_head}"
            f" GROUP BY l.account_id", params)
        return {a: t for a, t in cursor.fetchall() if t}
    after_start, start_params = start.new_entries()
    cursor.execute(
        f"SELECT l.account_id, sum(l.amount)::bigint FROM ledger_entry e"  # noqa: S608
        f"  JOIN ledger_line l ON l.entry_id = e.id WHERE {after_start} AND NOT {after_head}"
        f" GROUP BY l.account_id", [*start_params, *params])
    totals = dict(start.balances)
    for account_id, amount in cursor.fetchall():
        totals[account_id] = totals.get(account_id, 0) + amount
    return {a: t for a, t in totals.items() if t}


def ledger_verify(*, progress: Callable[[str], None] | None = None,
                  anchor: Anchor | None = None, full: bool = False,
                  record: bool = False, using: str = DEFAULT_DB_ALIAS) -> Report:
    """Recheck the blocks, every entry's balance, every account's caches and the holds,
    after the newest checkpoint (from the genesis with ``full``); with an ``anchor``, also
    that the chain still passes through that earlier block. ``record``: when nothing is
    wrong, store a signed checkpoint at the newest block (on the default database).
    ``using``: the database to read, a report's replica inside its snapshot."""
    report = Report()
    # On its own it reads one REPEATABLE READ snapshot; inside a caller's transaction (a
    # test's, a report's snapshot) it reads what that transaction sees.
    conn = connections[using]
    own_snapshot = not conn.in_atomic_block
    with transaction.atomic(using=using), conn.cursor() as cursor:
        if own_snapshot:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        start = Start() if full else _start(cursor, report)
        report.started_after = start.n if start.checkpoint_id is not None else None
        _check_blocks(cursor, report, start, progress, anchor)
        _check_entries_balanced(cursor, report, start)
        _check_reversals(cursor, report, start)
        _check_accounts(cursor, report, start)
        _check_holds(cursor, report, start)
        _locate_first_bad(cursor, report)
        balances = (_balances_through_head(cursor, start, report)
                    if record and report.ok and report.head_seq > start.n else None)
    if balances is not None and not Checkpoint.objects.filter(
            block_n__gte=report.head_seq).exists():
        Checkpoint.objects.create(
            block_n=report.head_seq, hash=report.head_hash, balances=balances,
            verified_at=timezone.now(),
            signature=checkpoint_signature(n=report.head_seq, hash=report.head_hash,
                                           balances=balances))
        report.checkpoint = report.head_seq
    return report
