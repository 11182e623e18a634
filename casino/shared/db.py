"""One snapshot for a report's reads, where reports read from, and how far behind that was."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone

T = TypeVar("T")


@contextlib.contextmanager
def read_snapshot(using: str | None = None) -> Iterator[str]:
    """One consistent, read-only view of the database for a report's every query.

    On its own it opens a ``REPEATABLE READ READ ONLY`` transaction, so rows committed
    while a report runs cannot make its figures disagree with one another (a day's total
    with its lines, a trial balance with its chain head). Inside a caller's transaction on
    the default database (a service that stores what it reads, as the gaming day's close;
    a test's) it reads what that transaction sees, on that database: the isolation level
    can only be set by a transaction's first statement, and figures stored beside a write
    must be the writer's own, never a replica's. Yields the database alias the report reads
    from (``reports`` when a replica is configured); ``read_from()`` says how far behind
    it was.
    """
    alias = using or _reads_go_to()
    conn = connections[alias]
    own = not conn.in_atomic_block
    # Inside, every read the ORM routes goes to this alias (casino.shared.db_router), so the
    # selectors the report calls read the same snapshot without naming a database.
    token = REPORT_READS.set(alias)
    measured = None
    try:
        with transaction.atomic(using=alias):
            if own:
                with conn.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                if alias != DEFAULT_DB_ALIAS:
                    # The transaction's first query takes its snapshot: measured by it,
                    # the lag is the snapshot's own.
                    measured = READ_FROM.set(_measure(alias))
            yield alias
    finally:
        if measured is not None:
            READ_FROM.reset(measured)
        REPORT_READS.reset(token)


# The alias a report being read reads from (None: not inside read_snapshot).
REPORT_READS: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "report_reads", default=None)


def report_database() -> str:
    """The alias reports read from: ``reports`` when DATABASE_REPORTS_URL configured one."""
    return "reports" if "reports" in connections.databases else DEFAULT_DB_ALIAS


def _reads_go_to() -> str:
    if connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return DEFAULT_DB_ALIAS
    return report_database()


@dataclass(frozen=True)
class ReadFrom:
    """Where a report's snapshot was read, and how far behind the primary it was.

    ``behind_s`` is 0 when a standby streaming from its primary had replayed every change
    it had received (an idle primary sends none, so a replay time long past is no lag);
    otherwise the seconds between the standby's clock at reading and the commit time (the
    primary's clock) of the last transaction it had replayed; None when the standby had
    replayed none since it started and was not caught up. Skew between the two servers'
    clocks counts in; WAL still on its way (a few milliseconds when streaming) does not.
    """

    replica: bool                       # DATABASE_REPORTS_URL's server, not the primary
    standby: bool = False               # that server was in recovery (replaying a primary)
    streaming: bool = False             # ... with a WAL receiver connected to the primary
    read_at: datetime | None = None     # the reading server's clock at the snapshot
    replayed_to: datetime | None = None  # commit time of the last transaction replayed
    behind_s: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {"replica": self.replica, "standby": self.standby,
                "streaming": self.streaming,
                "read_at": self.read_at.isoformat() if self.read_at else None,
                "replayed_to": self.replayed_to.isoformat() if self.replayed_to else None,
                "behind_seconds": self.behind_s, "said": self.sentence}

    @property
    def sentence(self) -> str:
        """What a report says of it, in words (docs/operations.md, "Reports on a replica")."""
        if not self.replica:
            return "Read from the primary database (no replica configured)."
        if not self.standby:
            return ("Read from the replica's server (DATABASE_REPORTS_URL), which was not in "
                    "recovery: a primary of its own, replaying no other.")
        replayed = ("nothing replayed since it started" if self.replayed_to is None
                    else f"replayed up to {_moment(self.replayed_to)}")
        if self.behind_s is None:
            return f"Read from the replica, {replayed}: how far behind is unknown."
        if self.behind_s == 0:
            return (f"Read from the replica, {replayed}: 0 s behind (it had replayed all it "
                    "had received from the primary).")
        cut_off = "" if self.streaming else ", not connected to the primary"
        return (f"Read from the replica{cut_off}, {replayed}: {self.behind_s} s behind when "
                f"read at {_moment(self.read_at)}.")


PRIMARY = ReadFrom(replica=False)

# What read_snapshot measured of the snapshot being read (None: the primary's, or outside).
READ_FROM: contextvars.ContextVar[ReadFrom | None] = contextvars.ContextVar(
    "read_from", default=None)


def read_from() -> ReadFrom:
    """Where the snapshot being read comes from and how far behind it was: the one reader
    of that figure, for every report that shows it. Call it inside read_snapshot."""
    assert REPORT_READS.get() is not None, "read_from() is asked inside read_snapshot()"
    return READ_FROM.get() or PRIMARY


def read_in_snapshot(read: Callable[[], T]) -> tuple[T, ReadFrom]:
    """What ``read`` returns, read in one snapshot, with where that snapshot came from: for
    a door that shows a selector's answer and how far behind it was."""
    with read_snapshot():
        return read(), read_from()


def _measure(alias: str) -> ReadFrom:
    # pg_stat_wal_receiver shows a role without pg_read_all_stats only its pid: enough to
    # know a receiver is running, which is all this asks.
    with connections[alias].cursor() as cursor:
        cursor.execute(
            "SELECT pg_is_in_recovery(), now(), pg_last_xact_replay_timestamp(),"
            " EXISTS (SELECT 1 FROM pg_stat_wal_receiver),"
            " pg_last_wal_receive_lsn() IS NOT NULL"
            " AND pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()")
        standby, read_at, replayed_to, streaming, caught_up = cursor.fetchone()
    if not standby:
        return ReadFrom(replica=True, read_at=read_at)
    if streaming and caught_up:
        behind: int | None = 0
    elif replayed_to is None:
        behind = None
    else:
        behind = max(0, round((read_at - replayed_to).total_seconds()))
    return ReadFrom(replica=True, standby=True, streaming=streaming, read_at=read_at,
                    replayed_to=replayed_to, behind_s=behind)


def _moment(moment: datetime | None) -> str:
    if moment is None:
        return "an unknown moment"
    return timezone.localtime(moment).isoformat(timespec="seconds")
