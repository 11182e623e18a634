"""The ledger's self-audit: recompute what the ledger claims and list every disagreement.

Run by ``manage.py ledger_verify`` (and by tests after they move money). It reads one
consistent snapshot (REPEATABLE READ), so entries posted while it runs cannot show up as
false discrepancies, and it works in batches so a long ledger needs little memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import connection, transaction

from casino.shared.money import format_minor
from ledger import chain

BATCH = 5000


@dataclass(frozen=True)
class Anchor:
    """A chain head recorded earlier, outside the database: the entry at ``seq`` had
    ``hash``. An owner can rewrite the chain and its head together so that they agree;
    they cannot make an entry's hash come out as the one written down before."""

    seq: int
    hash: str


@dataclass(frozen=True)
class Link:
    """An entry's place in the chain: seq 0 with no entry is the genesis."""

    seq: int
    entry_id: int | None
    hash: str

    def __str__(self) -> str:
        if self.entry_id is None:
            return f"the genesis (seq 0, hash {self.hash})"
        return f"entry #{self.entry_id} at seq {self.seq}, hash {self.hash}"


@dataclass
class Report:
    entries: int = 0
    accounts: int = 0
    holds: int = 0
    problems: list[str] = field(default_factory=list)
    # Where the chain ends as stored. An anchor to keep only when ``chain_ok``: otherwise
    # it may be an entry written beside the chain.
    head_seq: int = 0
    head_hash: str = chain.GENESIS
    # When a link is not sound: the last that is, and what the first that is not is.
    last_good: Link = field(default_factory=lambda: Link(0, None, chain.GENESIS))
    first_bad: str | None = None
    # Seq of each entry named by a problem of its own (links, lines, reversals), with it.
    bad_entries: dict[int, str] = field(default_factory=dict)
    # The chain does not pass through the anchor it was given.
    anchor_broken: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def chain_ok(self) -> bool:
        """Every entry is linked, hashed and sound, and the head row names the last one."""
        return self.first_bad is None

    def entry_problem(self, seq: int, problem: str) -> None:
        self.problems.append(problem)
        self.bad_entries.setdefault(seq, problem)


def _entries(cursor, after: int) -> list[tuple]:
    cursor.execute(
        """
        SELECT e.seq, e.id, e.created_at, e.kind, e.memo, e.ref, e.created_by_id,
               e.reverses_id, e.reason, e.prev_hash, e.hash,
               coalesce(array_agg(l.account_id ORDER BY l.id)
                        FILTER (WHERE l.id IS NOT NULL), '{}'),
               coalesce(array_agg(l.amount ORDER BY l.id) FILTER (WHERE l.id IS NOT NULL), '{}')
          FROM ledger_entry e LEFT JOIN ledger_line l ON l.entry_id = e.id
         WHERE e.seq > %s
         GROUP BY e.id ORDER BY e.seq LIMIT %s
        """,
        [after, BATCH],
    )
    return cursor.fetchall()


def _check_chain(cursor, report: Report, progress: Callable[[str], None] | None,
                 anchor: Anchor | None) -> None:
    cursor.execute("SELECT count(*) FROM ledger_entry")
    total = cursor.fetchone()[0]
    # Read first, from the same snapshot, so the walk can tell what lies beyond it.
    cursor.execute("SELECT last_entry_id, last_hash, seq FROM ledger_chainhead WHERE id = 1")
    head = cursor.fetchone()
    head_passed = False
    beyond_head: tuple[int, int] | None = None  # (seq, id) of the first entry after it
    prev_id, prev_hash, prev_seq = None, chain.GENESIS, 0
    anchored_hash = chain.GENESIS if anchor is not None and anchor.seq == 0 else None
    while rows := _entries(cursor, prev_seq):
        for (seq, entry_id, created_at, kind, memo, ref, by_id, reverses_id, reason,
             stored_prev, stored_hash, account_ids, amounts) in rows:
            if seq != prev_seq + 1:
                report.entry_problem(
                    seq, f"entry #{entry_id}: chain position {seq} follows "
                    f"{prev_seq} (entries are missing from the chain)")
            if stored_prev != prev_hash:
                where = f"entry #{prev_id}" if prev_id else "the start of the chain"
                report.entry_problem(
                    seq, f"entry #{entry_id}: prev_hash does not match the hash "
                    f"of {where} (an entry was removed, inserted or rewritten)")
            content = chain.canonical(
                entry_id=entry_id, seq=seq, created_at=created_at, kind=kind, memo=memo,
                ref=ref, created_by_id=by_id, reverses_id=reverses_id, reason=reason,
                lines=zip(account_ids, amounts, strict=True))
            if chain.entry_hash(stored_prev, content) != stored_hash:
                report.entry_problem(
                    seq, f"entry #{entry_id}: hash does not match its content "
                    "(altered after posting)")
            if anchor is not None and seq == anchor.seq:
                anchored_hash = stored_hash
            if head_passed and beyond_head is None:
                beyond_head = (seq, entry_id)
            if head is not None and head == (entry_id, stored_hash, seq):
                head_passed = True
            prev_id, prev_hash, prev_seq = entry_id, stored_hash, seq
            report.entries += 1
        if progress and total > BATCH:
            progress(f"chain: {report.entries}/{total} entries")
    report.head_seq, report.head_hash = prev_seq, prev_hash
    head_problem = None
    if head is None:
        # Made on first use: missing is only right while there is nothing to chain.
        if report.entries:
            head_problem = (f"the chain head row is missing, but the chain has "
                            f"{report.entries} entries (deleted or truncated)")
    elif head != (prev_id, prev_hash, prev_seq):
        head_problem = f"chain head names entry #{head[0]} but the chain ends at entry #{prev_id}"
    if head_problem is not None:
        report.problems.append(head_problem)
        if beyond_head is not None:
            # The head row names an entry of the chain: those after it were written beside
            # the chain (the posting function moves the head with every entry it chains).
            seq, entry_id = beyond_head
            report.bad_entries.setdefault(
                seq, f"entry #{entry_id}: comes after the entry the chain head names, #{head[0]}"
                     " (written beside the chain)")
        else:
            # Nothing in the chain is at fault but the head row: the chain's end is its
            # last good link.
            report.last_good = Link(prev_seq, prev_id, prev_hash)
            report.first_bad = head_problem
    if anchor is None:
        return
    if anchored_hash is None:
        report.anchor_broken = (
            f"the chain no longer reaches the anchored head at seq {anchor.seq}: it ends at "
            f"seq {prev_seq} (entries were removed)")
    elif anchored_hash != anchor.hash:
        report.anchor_broken = (
            f"the entry at seq {anchor.seq} has hash {anchored_hash}, not the anchored "
            f"{anchor.hash}: the chain was rewritten at or before that entry")
    if report.anchor_broken is not None:
        report.problems.append(report.anchor_broken)


def _check_entries_balanced(cursor, report: Report) -> None:
    cursor.execute(
        """
        SELECT e.seq, e.id, count(l.id) FROM ledger_entry e
          LEFT JOIN ledger_line l ON l.entry_id = e.id
         GROUP BY e.id HAVING count(l.id) < 2 ORDER BY e.id
        """
    )
    for seq, entry_id, lines in cursor.fetchall():
        report.entry_problem(seq,
                             f"entry #{entry_id}: has {lines} line(s), needs at least two")
    cursor.execute(
        """
        SELECT e.seq, l.entry_id, a.currency, sum(l.amount)::bigint
          FROM ledger_line l JOIN ledger_account a ON a.id = l.account_id
          JOIN ledger_entry e ON e.id = l.entry_id
         GROUP BY e.seq, l.entry_id, a.currency HAVING sum(l.amount) <> 0 ORDER BY l.entry_id
        """
    )
    for seq, entry_id, currency, total in cursor.fetchall():
        report.entry_problem(
            seq,
            f"entry #{entry_id}: {currency} lines sum to {format_minor(total, currency)}, not 0")


def _check_reversals(cursor, report: Report) -> None:
    """A reversal is its original's lines negated, no more, no less, and reverses no
    reversal: what ledger_entry_post checks (0015), for an entry written around it."""
    cursor.execute(
        """
        SELECT e.seq, e.id, e.reverses_id, o.reverses_id,
               (SELECT array_agg(ARRAY[l.account_id, l.amount] ORDER BY l.account_id, l.amount)
                  FROM ledger_line l WHERE l.entry_id = e.id)
               IS DISTINCT FROM
               (SELECT array_agg(ARRAY[l.account_id, -l.amount]
                                 ORDER BY l.account_id, -l.amount)
                  FROM ledger_line l WHERE l.entry_id = e.reverses_id)
          FROM ledger_entry e JOIN ledger_entry o ON o.id = e.reverses_id
         ORDER BY e.id
        """
    )
    for seq, entry_id, original, original_reverses, not_negation in cursor.fetchall():
        if not_negation:
            report.entry_problem(
                seq,
                f"entry #{entry_id}: reverses entry #{original} but its lines are not exactly "
                f"#{original}'s negated (not a correction of it)")
        if original_reverses is not None:
            report.entry_problem(
                seq,
                f"entry #{entry_id}: reverses entry #{original}, itself the reversal of entry "
                f"#{original_reverses} (a reversal is never reversed)")


def _locate_first_bad(cursor, report: Report) -> None:
    """The first entry, in chain order, that something is wrong with, and the link before
    it: what to anchor instead of a head that may have been written beside the chain."""
    if report.anchor_broken is not None:
        # Rewritten somewhere up to the anchor, or cut short: no link after the genesis
        # can be vouched for.
        report.last_good = Link(0, None, chain.GENESIS)
        report.first_bad = report.anchor_broken
        return
    if not report.bad_entries:
        return
    seq = min(report.bad_entries)
    cursor.execute("SELECT id, seq, hash FROM ledger_entry WHERE seq < %s"
                   " ORDER BY seq DESC LIMIT 1", [seq])
    row = cursor.fetchone()
    report.last_good = (Link(row[1], row[0], row[2]) if row is not None
                        else Link(0, None, chain.GENESIS))
    report.first_bad = f"seq {seq}, {report.bad_entries[seq]}"


def _check_accounts(cursor, report: Report) -> None:
    cursor.execute(
        """
        SELECT a.id, a.kind, a.ref, a.currency, a.allow_negative, a.posted, a.held,
               coalesce(l.total, 0), coalesce(h.total, 0)
          FROM ledger_account a
          LEFT JOIN (SELECT account_id, sum(amount)::bigint AS total FROM ledger_line
                      GROUP BY account_id) l ON l.account_id = a.id
          LEFT JOIN (SELECT account_id, sum(amount)::bigint AS total FROM ledger_hold
                      WHERE status = 'open' GROUP BY account_id) h ON h.account_id = a.id
         ORDER BY a.id
        """
    )
    for (account_id, kind, ref, cur, allow_negative, posted, held, lines,
         open_holds) in cursor.fetchall():
        report.accounts += 1
        name = f"account #{account_id} ({kind} {ref or '-'} {cur})"
        if posted != lines:
            report.problems.append(
                f"{name}: cached posted {format_minor(posted, cur)} but its lines sum to "
                f"{format_minor(lines, cur)}")
        if held != open_holds:
            report.problems.append(
                f"{name}: cached held {format_minor(held, cur)} but its open holds sum to "
                f"{format_minor(open_holds, cur)}")
        if not allow_negative and lines - open_holds < 0:
            report.problems.append(
                f"{name}: available {format_minor(lines - open_holds, cur)} is below zero")
    cursor.execute(
        """
        SELECT a.currency, sum(l.amount)::bigint FROM ledger_line l
          JOIN ledger_account a ON a.id = l.account_id
         GROUP BY a.currency HAVING sum(l.amount) <> 0
        """
    )
    for cur, total in cursor.fetchall():
        report.problems.append(
            f"the {cur} accounts sum to {format_minor(total, cur)}, not 0 (money appeared or "
            "vanished)")


def _check_holds(cursor, report: Report) -> None:
    cursor.execute(
        """
        SELECT h.id, h.status, h.captured_amount, h.entry_id,
               (SELECT -sum(l.amount)::bigint FROM ledger_line l
                 WHERE l.entry_id = h.entry_id AND l.account_id = h.account_id)
          FROM ledger_hold h ORDER BY h.id
        """
    )
    for hold_id, status, captured, entry_id, debit in cursor.fetchall():
        report.holds += 1
        if status == "captured" and (debit is None or captured > debit):
            report.problems.append(
                f"hold #{hold_id}: captured {captured} but entry #{entry_id} debits only "
                f"{debit or 0} on its account")


def ledger_verify(*, progress: Callable[[str], None] | None = None,
                  anchor: Anchor | None = None) -> Report:
    """Recheck the chain, every entry's balance, every account's caches and the holds;
    with an ``anchor``, also that the chain still passes through that earlier head."""
    report = Report()
    # On its own it reads one REPEATABLE READ snapshot; inside a caller's transaction (a
    # test's) it reads what that transaction sees.
    own_snapshot = not connection.in_atomic_block
    with transaction.atomic(), connection.cursor() as cursor:
        if own_snapshot:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        _check_chain(cursor, report, progress, anchor)
        _check_entries_balanced(cursor, report)
        _check_reversals(cursor, report)
        _check_accounts(cursor, report)
        _check_holds(cursor, report)
        _locate_first_bad(cursor, report)
    return report
