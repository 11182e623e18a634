"""Where a settle request's time goes: `python bench/profile_settle.py`.

Plays rounds to the point of settlement at a full table through the services, then sends
each round's ``POST /api/v1/rounds/{id}/settle`` (a dealer's knox token, an Idempotency-Key)
straight into Django's WSGI application, as gunicorn would, with the production middleware,
psycopg pool and DEBUG off. Prints, for the settle requests and for ``GET /api/v1/health``
as the reference: the SQL statements per request (Django's cursor; the pool's own check of
a connection is not among them) and pyinstrument's profile of all the requests together.

Runs in a scratch database created for the run and dropped after it (bench._scratch).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# As under gunicorn in production: the pool on.
from bench._django import setup_production_like  # noqa: E402

setup_production_like(pool=True)

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from pyinstrument import Profiler  # noqa: E402
from pyinstrument.renderers import ConsoleRenderer  # noqa: E402

from bench import _rounds_setup as floor  # noqa: E402
from rounds import services  # noqa: E402
from rounds.models import Hand  # noqa: E402

FUNDS = 10_000_000  # each player's bankroll, minor units (100,000.00)
WAGER = 2_500


def wsgi_call(app: WSGIHandler, method: str, path: str, *, token: str | None = None,
              body: Any = None, key: str | None = None) -> tuple[int, bytes]:
    """One request through the WSGI application, closed as a server closes it (which ends
    the request and hands its connection back to the pool)."""
    payload = b"" if body is None else json.dumps(body).encode()
    environ = {
        "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "127.0.0.1",
        "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(payload)),
        "wsgi.input": io.BytesIO(payload), "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http", "wsgi.version": (1, 0), "wsgi.multithread": False,
        "wsgi.multiprocess": True, "wsgi.run_once": False,
    }
    if token:
        environ["HTTP_AUTHORIZATION"] = f"Token {token}"
    if key:
        environ["HTTP_IDEMPOTENCY_KEY"] = key
    status: list[str] = []

    def start_response(line: str, headers: list[tuple[str, str]],
                       exc_info: Any = None) -> Callable[[bytes], object]:
        status.append(line)
        return lambda _: None

    result = app(environ, start_response)
    try:
        content = b"".join(result)
    finally:
        result.close()  # type: ignore[attr-defined]
    return int(status[0].split()[0]), content


def round_to_settle(table_id: int, by: Any) -> int:
    """A house-banked round, dealt and every hand set: ready for its settle request."""
    round_ = services.round_open(table_id=table_id, by=by)
    for seat in range(1, 7):
        services.wager_place(round_id=round_.pk, seat=seat, amount=WAGER, by=by)
    services.banker_set(round_id=round_.pk, house=True, by=by)
    services.round_deal(round_id=round_.pk, by=by)
    for position in (Hand.objects.filter(round_id=round_.pk).exclude(position="dealer")
                     .values_list("position", flat=True)):
        services.hand_set(round_id=round_.pk, position=position, house_way=True, by=by)
    return round_.pk


Call = Callable[[], tuple[int, bytes]]


def measured(label: str, prepare: Callable[[], Call], repeat: int, expect: int,
             interval: float, show_all: bool, flat: bool) -> None:
    """Statements per request (the first request, uncounted, warms up), the median time of
    ``repeat`` requests, then the profile of ``repeat`` more; ``prepare`` (not measured)
    readies each request."""
    prepare()()
    call = prepare()
    with CaptureQueriesContext(connection) as queries:
        status, content = call()
    if status != expect:
        raise SystemExit(f"{label}: {status} {content[:500]!r}")
    print(f"\n=== {label}: {len(queries.captured_queries)} SQL statements per request ===")
    for query in queries.captured_queries:
        print(f"  {query['sql'][:150]}")
    unprofiled = []
    for _ in range(repeat):
        call = prepare()
        started = time.perf_counter()
        status, content = call()
        unprofiled.append(time.perf_counter() - started)
        if status != expect:
            raise SystemExit(f"{label}: {status} {content[:500]!r}")
    unprofiled.sort()
    print(f"{repeat} requests, wall p50 {unprofiled[repeat // 2] * 1000:.2f} ms "
          f"(profiler off)")
    profiler = Profiler(interval=interval)
    times = []
    for _ in range(repeat):
        call = prepare()
        started = time.perf_counter()
        profiler.start()
        status, content = call()
        profiler.stop()
        times.append(time.perf_counter() - started)
        if status != expect:
            raise SystemExit(f"{label}: {status} {content[:500]!r}")
    times.sort()
    print(f"{len(times)} profiled requests, wall p50 {times[len(times) // 2] * 1000:.2f} ms "
          f"(profiler on)")
    if flat:
        # Where the time is spent, by function (its own time, callees excluded), top first.
        renderer = ConsoleRenderer(unicode=True, flat=True, flat_time="self", show_all=True)
        print("\n".join(profiler.output(renderer).splitlines()[:60]))
    else:
        print(profiler.output_text(unicode=True, color=False, show_all=show_all))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30,
                        help="settle requests profiled (default 30)")
    parser.add_argument("--interval", type=float, default=0.0005,
                        help="pyinstrument's sampling interval in seconds (default 0.0005)")
    parser.add_argument("--all", action="store_true",
                        help="show every frame, the libraries' included")
    parser.add_argument("--flat", action="store_true",
                        help="list functions by their own time instead of the call tree")
    options = parser.parse_args()
    if options.rounds < 1:
        parser.error("--rounds must be at least 1")

    app = WSGIHandler()
    with floor.scratch_database(f"profile_settle_{os.getpid()}"):
        by = floor.pit_boss()
        table = floor.full_table(name="Profile", by=by, funds=FUNDS)
        token = floor.dealer_token("profile-dealer")

        def health() -> Call:
            return lambda: wsgi_call(app, "GET", "/api/v1/health")

        def settle() -> Call:
            # A table plays one round at a time: the next round is opened once this one is
            # settled, outside the measurement.
            round_id = round_to_settle(table.pk, by)
            return lambda: wsgi_call(app, "POST", f"/api/v1/rounds/{round_id}/settle",
                                     token=token, body={}, key=secrets.token_hex(16))

        measured("GET /api/v1/health", health, options.rounds, 200, options.interval,
                 options.all, options.flat)
        measured("POST /api/v1/rounds/{id}/settle", settle, options.rounds, 200,
                 options.interval, options.all, options.flat)
        connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
