"""Counting the round trips a piece of code makes to PostgreSQL, from libpq's own trace.

A statement sent alone costs a round trip: the client sends it and waits for its answer.
libpq's trace (psycopg.pq.PGconn.trace, public) lists every message: the client ends each
batch it waits on with a Sync (extended protocol) or sends a Query (simple protocol: BEGIN,
SAVEPOINT, COMMIT), so those count the round trips.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from django.db import connection
from psycopg import pq

WAITS = ("Sync", "Query")  # the client's messages after which it waits for the server


def client_messages(trace: str) -> list[str]:
    """The kinds of message the client sent (F lines), in a libpq trace's text."""
    return [parts[2].split(" ")[0] for parts in (line.split("\t") for line in trace.splitlines())
            if len(parts) >= 3 and parts[0] == "F"]


def waits(trace: str) -> int:
    """How many times the client waited for the server in a libpq trace's text."""
    return sum(1 for message in client_messages(trace) if message in WAITS)


class RoundTrips:
    def __init__(self) -> None:
        self.messages: list[str] = []

    @property
    def count(self) -> int:
        return sum(1 for m in self.messages if m in WAITS)

    def __repr__(self) -> str:
        return f"RoundTrips({self.count}: {' '.join(self.messages)})"


@contextlib.contextmanager
def round_trips() -> Iterator[RoundTrips]:
    """The client's messages on Django's default connection while the block runs."""
    found = RoundTrips()
    connection.ensure_connection()
    with connection.cursor() as cursor:
        pgconn = cursor.connection.pgconn
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace"
        with path.open("w") as out:
            pgconn.trace(out.fileno())
            pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
            try:
                yield found
            finally:
                pgconn.untrace()
        found.messages.extend(client_messages(path.read_text()))
