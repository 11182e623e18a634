"""Statements and round trips of each API request of a whole round: `python bench/round_trips.py`.

Plays rounds at a full table through the WSGI application (a dealer's token, no
Idempotency-Key, as bench/round_bench.py's clients send them): open, a wager per seat, the
house as banker, the electronic deal, every hand by the house way, settle. For each kind of
request it prints the SQL statements (Django's count) and the round trips to PostgreSQL
they took (libpq's trace of every connection the requests open: each Sync or simple Query
the client sends is one wait for the server), then a whole round's totals beside the line
they are judged by (at most 240 statements). A count, not a time: the same on any
machine, however busy.

Runs in a scratch database created for the run and dropped after it (bench._scratch).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# One plain connection, whose statements and round trips are counted.
from bench._django import setup_production_like  # noqa: E402

setup_production_like(pool=False)

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.backends.signals import connection_created  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from psycopg import pq  # noqa: E402

from bench import _rounds_setup as floor  # noqa: E402
from bench.profile_settle import wsgi_call  # noqa: E402
from tests.round_trips import waits  # noqa: E402

ROUNDS = 4
# A whole round of six seats through the API, as the service counts a step's cost (the
# transaction's BEGIN and COMMIT included): its line.
ROUND_AT_MOST = 240


class Trace:
    """libpq's trace of every connection opened from now on, into one file."""

    def __init__(self) -> None:
        self.file = tempfile.NamedTemporaryFile("w+", suffix=".trace")  # noqa: SIM115
        connection_created.connect(self.start, weak=False)

    def start(self, sender: Any, connection: Any, **kwargs: Any) -> None:
        pgconn = connection.connection.pgconn  # psycopg's Connection.pgconn (public)
        pgconn.trace(self.file.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)

    def mark(self) -> int:
        self.file.flush()
        return os.path.getsize(self.file.name)

    def waits_since(self, mark: int) -> int:
        self.file.flush()
        with open(self.file.name) as read:
            read.seek(mark)
            return waits(read.read())


def main() -> int:
    trace = Trace()
    app = WSGIHandler()
    counts: dict[str, list[tuple[int, int]]] = defaultdict(list)
    with floor.scratch_database(f"round_trips_{os.getpid()}"):
        by = floor.pit_boss()
        table = floor.full_table(name="Round trips", by=by, funds=10_000_000)
        token = floor.dealer_token("round-trips-dealer")

        def call(label: str, method: str, path: str, body: Any) -> Any:
            mark = trace.mark()
            with CaptureQueriesContext(connection) as queries:
                status, content = wsgi_call(app, method, path, token=token, body=body)
            if status not in (200, 201):
                raise SystemExit(f"{label}: {status} {content[:300]!r}")
            counts[label].append((len(queries.captured_queries), trace.waits_since(mark)))
            return json.loads(content)

        for _ in range(ROUNDS):
            floor.play_round(call, table.pk)
        connection.close()
    total_statements = total_trips = 0
    print(f"{'request':8s} {'statements':>10s} {'round trips':>12s}  per round")
    for label, seen in counts.items():
        statements, trips = seen[-1]  # the last round's: the first warms the tables up
        per_round = len(seen) // ROUNDS
        total_statements += statements * per_round
        total_trips += trips * per_round
        print(f"{label:8s} {statements:10d} {trips:12d}  x{per_round}")
    print(f"a round: {total_statements} statements in {total_trips} round trips "
          f"(the line: at most {ROUND_AT_MOST} statements)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
