"""Whole rounds per second, and settle's latency: `python bench/round_bench.py`.

Plays complete rounds at a full table (six seated, funded players): open, wagers, banker,
electronic deal, every hand set by the house way, settle. House- and player-banked rounds
alternate (a player-banker stakes against the house too), so both settlement paths are in
the figures. Two measurements, each printed with a reference taken in the same run so the
figures mean something on any machine:

1. Through rounds.services in this process: rounds per second, p50/p99 of round_settle and
   the number of queries one round_settle issues at a full table (house- and player-banked,
   counted with Django's CaptureQueriesContext on rounds outside the timed ones);
   reference: one ledger entry_post and one bare ``SELECT 1`` through Django's connection.
2. Through the HTTP API under gunicorn (2 sync workers) with K concurrent clients, one table
   each (a table plays one round at a time by design): rounds per second overall and p50/p99
   of the settle request, at --clients (default 4) and again at --load-clients (default 16);
   reference: ``GET /api/v1/health`` (one query through the whole stack), timed alone before
   the load.

Everything runs in a scratch database created for the run and dropped after it, on the
server the project uses (DATABASE_URL, or the embedded one). Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import http.client
import json
import math
import os
import random
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
# Production-like: no DEBUG (which would record every query), one plain connection here.
os.environ["DJANGO_DEBUG"] = "false"
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
os.environ["DATABASE_POOL"] = "false"

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from bench import _rounds_setup as floor  # noqa: E402
from bench._rounds_setup import FUNDS, HOUSE_STAKE, WAGERS, banker_for, deal_round  # noqa: E402
from ledger.models import Hold  # noqa: E402
from ledger.services import account_get_or_create, entry_post  # noqa: E402
from rounds import services  # noqa: E402
from rounds.models import Round  # noqa: E402
from tests.round_trips import round_trips  # noqa: E402

WARMUP_ROUNDS = 2
MAX_HTTP_ROUNDS_PER_CLIENT = 10_000  # a bound on the loop whatever --seconds says
TIMES = "\N{MULTIPLICATION SIGN}"


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0-100)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def amount_text(minor: int) -> str:
    return f"{minor // 100}.{minor % 100:02d}"


# --- 1. through the services ------------------------------------------------------------------

def play_round(table_id: int, number: int, by: Any,
               rng: random.Random) -> tuple[float, float, float]:
    """One complete round; returns round_settle's wall time and this process's CPU time in
    it, then the wall time of a ``SELECT 1`` sent straight after, in seconds."""
    round_id = deal_round(table_id, number, by, rng)
    cpu = time.process_time()
    started = time.perf_counter()
    settled = services.round_settle(round_id=round_id, by=by)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu
    assert settled.state == Round.State.SETTLED
    started = time.perf_counter()
    select_one()
    return elapsed, cpu, time.perf_counter() - started


def settle_queries(table_id: int, number: int, by: Any, rng: random.Random) -> tuple[int, int]:
    """One complete round; returns the statements its round_settle issued (Django's count)
    and the round trips they took (libpq's trace: statements sent together share one). Not
    a timed round: capturing forces Django's debug cursor, which costs time of its own."""
    round_id = deal_round(table_id, number, by, rng)
    with CaptureQueriesContext(connection) as captured, round_trips() as trips:
        settled = services.round_settle(round_id=round_id, by=by)
    assert settled.state == Round.State.SETTLED
    return len(captured.captured_queries), trips.count


def timed(repeat: int, run: Callable[[], object]) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        out.append(time.perf_counter() - started)
    return out


def select_one() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def bench_services(rounds: int, by: Any) -> int:
    """Prints the figures; returns the rounds played besides `rounds` and the warm-up."""
    table = floor.full_table(name="Bench services", by=by, funds=FUNDS)
    rng = random.Random(2024)
    for number in range(WARMUP_ROUNDS):
        play_round(table.pk, number, by, rng)
    settle_times, settle_cpu, select_after = [], [], []
    started = time.perf_counter()
    for number in range(WARMUP_ROUNDS, WARMUP_ROUNDS + rounds):
        elapsed, cpu, select_elapsed = play_round(table.pk, number, by, rng)
        settle_times.append(elapsed)
        settle_cpu.append(cpu)
        select_after.append(select_elapsed)
    wall = time.perf_counter() - started
    # One house-banked and one player-banked round (banker_for: even, odd), after the timed
    # ones; the larger count is the figure, the settle of a full table at its dearest.
    next_number = WARMUP_ROUNDS + rounds + (WARMUP_ROUNDS + rounds) % 2
    house_banked = settle_queries(table.pk, next_number, by, rng)
    player_banked = settle_queries(table.pk, next_number + 1, by, rng)

    a = account_get_or_create(kind="table_bankroll", currency="EUR", ref="bench:a")
    b = account_get_or_create(kind="table_bankroll", currency="EUR", ref="bench:b")
    select_p50 = percentile(timed(500, select_one), 50)
    post_p50 = percentile(timed(300, lambda: entry_post(
        kind="bench", memo="reference", lines=[(a.pk, -100), (b.pk, 100)], by=None)), 50)

    settle_p50, settle_p99 = percentile(settle_times, 50), percentile(settle_times, 99)
    print(f"\n1. Through rounds.services, one process: {rounds} rounds at one full table "
          "(house- and player-banked alternating)")
    print(f"   rounds per second             {rounds / wall:8.1f}   ({wall:.1f} s)")
    print(f"   round_settle latency          p50 {ms(settle_p50)}   p99 {ms(settle_p99)}")
    print(f"   reference, same run           ledger entry_post p50 {ms(post_p50)};  "
          f"SELECT 1 p50 {ms(select_p50)}")
    print(f"   settle p50 = {settle_p50 / post_p50:.1f} {TIMES} a ledger entry_post "
          f"= {settle_p50 / select_p50:.0f} {TIMES} a SELECT 1 round trip")
    # Where the settle's time goes, beside the aim's figure, not instead of it: this
    # process's CPU (Python, Django, psycopg) and the rest, spent waiting for the database
    # server and the wire. The rest alone, divided by the SELECT 1, is the ratio a settle
    # would have if this process cost nothing. A SELECT 1 sent straight after each settle
    # is timed too: a round trip after other work costs more than one in a tight loop.
    cpu_p50 = percentile(settle_cpu, 50)
    waited = [w - c for w, c in zip(settle_times, settle_cpu, strict=True)]
    print(f"   of the settle, p50            this process's CPU {ms(cpu_p50)};  "
          f"waiting on the server {ms(percentile(waited, 50))} "
          f"= {percentile(waited, 50) / select_p50:.0f} {TIMES} a SELECT 1")
    print(f"   SELECT 1 after each settle    p50 {ms(percentile(select_after, 50))}   "
          f"(the reference above: {ms(select_p50)}, 500 in a row)")
    print(f"   settle queries: {max(house_banked[0], player_banked[0])}   (one round_settle at a "
          f"full table: house-banked {house_banked[0]}, player-banked {player_banked[0]}; "
          f"round trips {house_banked[1]} and {player_banked[1]})")
    return 2


# --- 2. through the HTTP API under gunicorn -------------------------------------------------

class Api:
    """One client's connection to the local server (http.client reconnects when a sync
    worker closes the connection after each response)."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Token {token}"

    def call(self, method: str, path: str, body: Any = None, expect: int = 200) -> Any:
        payload = None if body is None else json.dumps(body).encode()
        self.conn.request(method, path, body=payload, headers=self.headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.status != expect:
            raise RuntimeError(f"{method} {path} -> {response.status}: {data[:500]!r}")
        return json.loads(data) if data else None

    def close(self) -> None:
        self.conn.close()


def play_round_http(api: Api, table_id: int, number: int, rng: random.Random,
                    steps: list[float]) -> float:
    """One complete round through the API; each request's wall time is added to ``steps``;
    returns the settle request's."""

    def step(method: str, path: str, body: Any, expect: int = 200) -> Any:
        started = time.perf_counter()
        answer = api.call(method, path, body, expect=expect)
        steps.append(time.perf_counter() - started)
        return answer

    banker = banker_for(number)
    round_id = step("POST", f"/api/v1/tables/{table_id}/rounds", {}, expect=201)["id"]
    base = f"/api/v1/rounds/{round_id}"
    for seat in range(1, 7):
        if seat != banker:
            step("POST", f"{base}/wagers",
                 {"seat": seat, "amount": amount_text(rng.choice(WAGERS))}, expect=201)
    if banker is None:
        step("POST", f"{base}/banker", {"house": True})
    else:
        step("POST", f"{base}/banker", {"seat": banker, "house_stake": amount_text(HOUSE_STAKE)})
    dealt = step("POST", f"{base}/deal", {})
    bank = dealt["banker"]["position"]  # its hand is set last (rules §4.1)
    for hand in sorted(dealt["hands"], key=lambda h: h["position"] == bank):
        if hand["position"] != "dealer":
            step("POST", f"{base}/hands", {"position": hand["position"], "house_way": True})
    settled = step("POST", f"{base}/settle", {})
    if settled["state"] != "settled":
        raise RuntimeError(f"round {round_id} is {settled['state']} after settle")
    return steps[-1]


@dataclass
class ClientResult:
    settle_times: list[float] = field(default_factory=list)
    step_times: list[float] = field(default_factory=list)   # every request of its rounds
    error: BaseException | None = None


def http_client(port: int, token: str, table_id: int, seed: int, start: float,
                deadline: float, result: ClientResult) -> None:
    api = Api(port, token)
    rng = random.Random(seed)
    try:
        while time.perf_counter() < start:
            time.sleep(0.001)
        number = 0
        while time.perf_counter() < deadline and number < MAX_HTTP_ROUNDS_PER_CLIENT:
            result.settle_times.append(play_round_http(api, table_id, number, rng,
                                                       result.step_times))
            number += 1
    except BaseException as exc:  # reported by the main thread
        result.error = exc
    finally:
        api.close()


def health_prober(port: int, start: float, deadline: float, times: list[float]) -> None:
    """A health request every 50 ms while the clients play: what the same load does to a
    request that is one query through the whole stack."""
    api = Api(port)
    try:
        while time.perf_counter() < start:
            time.sleep(0.001)
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            api.call("GET", "/api/v1/health")
            times.append(time.perf_counter() - started)
            time.sleep(0.05)
    finally:
        api.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def gunicorn_command(port: int, workers: int) -> list[str]:
    script = Path(sys.executable).with_name("gunicorn")
    start = [str(script)] if script.exists() else [sys.executable, "-m", "gunicorn"]
    return [*start, "casino.wsgi:application", "-w", str(workers), "-b", f"127.0.0.1:{port}"]


def wait_until_up(server: subprocess.Popen, port: int, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {server.returncode}:\n{log.read_text()}")
        try:
            Api(port).call("GET", "/api/v1/health")
            return
        except (OSError, RuntimeError, http.client.HTTPException):
            time.sleep(0.2)
    raise RuntimeError(f"gunicorn did not answer within {timeout:.0f} s:\n{log.read_text()}")


@functools.cache
def collected_static() -> str:
    """A STATIC_ROOT collectstatic has filled: gunicorn with DEBUG off refuses to start
    without one (casino/wsgi.py). Removed when the bench ends."""
    root = tempfile.mkdtemp(prefix="round_bench_static_")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    env = {**os.environ, "DJANGO_DEBUG": "false", "DJANGO_STATIC_ROOT": root}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity",
                    "0"], cwd=ROOT, env=env, check=True)
    return root


def bench_http(clients: int, seconds: float, workers: int, by: Any) -> tuple[float, float]:
    """Prints the figures at `clients` concurrent clients; returns the settle request's p50
    and p99 in seconds."""
    tables = [floor.full_table(name=f"Bench HTTP {clients}c {n + 1}", by=by, funds=FUNDS)
              for n in range(clients)]
    tokens = [floor.dealer_token(f"bench-dealer-{clients}c-{n + 1}") for n in range(clients)]
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": floor.database_url(),
        "DATABASE_POOL": "true",  # as in production: one pool per worker
        "DJANGO_DEBUG": "false",
        "DJANGO_STATIC_ROOT": collected_static(),  # as a production start needs
        "DJANGO_SECRET_KEY": os.environ["DJANGO_SECRET_KEY"],
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "false",  # plain HTTP on the loopback
        "LOG_LEVEL": "WARNING",
    }
    with tempfile.NamedTemporaryFile("w+", prefix="round_bench_gunicorn_", suffix=".log",
                                     delete=False) as log_file:
        log = Path(log_file.name)
        server = subprocess.Popen(gunicorn_command(port, workers), cwd=ROOT, env=env,
                                  stdout=log_file, stderr=subprocess.STDOUT)
    try:
        wait_until_up(server, port, log)
        probe = Api(port)
        for _ in range(20):  # warm both workers' imports and pools
            probe.call("GET", "/api/v1/health")
        health_p50 = percentile(timed(200, lambda: probe.call("GET", "/api/v1/health")), 50)
        probe.close()

        results = [ClientResult() for _ in range(clients)]
        start = time.perf_counter() + 0.5
        deadline = start + seconds
        threads = [threading.Thread(target=http_client, daemon=True,
                                    args=(port, tokens[n], tables[n].pk, 100 + n, start,
                                          deadline, results[n]))
                   for n in range(clients)]
        health_under_load: list[float] = []
        prober = threading.Thread(target=health_prober, daemon=True,
                                  args=(port, start, deadline, health_under_load))
        for thread in [*threads, prober]:
            thread.start()
        for thread in [*threads, prober]:
            thread.join(timeout=seconds + 120)
        wall = time.perf_counter() - start
        errors = [r.error for r in results if r.error is not None]
        if errors or any(t.is_alive() for t in threads):
            raise RuntimeError(f"a client failed: {errors[0] if errors else 'timed out'}; "
                               f"the server's log is {log}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    log.unlink()  # kept when the run failed, for its tracebacks

    settle_times = [t for r in results for t in r.settle_times]
    step_times = [t for r in results for t in r.step_times]
    played = len(settle_times)
    settle_p50, settle_p99 = percentile(settle_times, 50), percentile(settle_times, 99)
    print(f"\n2. Through the HTTP API: gunicorn -w {workers} on 127.0.0.1:{port}, "
          f"{clients} concurrent clients, one table each, {seconds:g} s")
    print(f"   rounds per second, overall    {played / wall:8.1f}   ({played} rounds, "
          f"{', '.join(str(len(r.settle_times)) for r in results)} per client)")
    print(f"   settle request latency        p50 {ms(settle_p50)}   p99 {ms(settle_p99)}")
    print(f"   any step's latency            p50 {ms(percentile(step_times, 50))}   "
          f"p99 {ms(percentile(step_times, 99))}   ({len(step_times)} requests)")
    print(f"   reference, same run           GET /api/v1/health p50 {ms(health_p50)} "
          "(alone, before the load)")
    if health_under_load:
        print(f"   reference, under the load     GET /api/v1/health "
              f"p50 {ms(percentile(health_under_load, 50))}   "
              f"p99 {ms(percentile(health_under_load, 99))}   "
              f"({len(health_under_load)} requests, one every 50 ms)")
    print(f"   settle request p50 = {settle_p50 / health_p50:.1f} {TIMES} a health request")
    return settle_p50, settle_p99


def check_books(expected_rounds: int) -> None:
    settled = Round.objects.filter(state=Round.State.SETTLED).count()
    open_holds = Hold.objects.filter(status=Hold.Status.OPEN).count()
    print(f"\nChecks: {settled} rounds settled (expected {expected_rounds}), "
          f"{open_holds} holds left open (expected 0)")
    if settled != expected_rounds or open_holds:
        raise SystemExit("the books do not add up")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100,
                        help="rounds through the services (default 100)")
    parser.add_argument("--clients", type=int, default=4,
                        help="concurrent HTTP clients, one table each (default 4)")
    parser.add_argument("--seconds", type=float, default=15.0,
                        help="length of the HTTP measurement (default 15)")
    parser.add_argument("--load-clients", type=int, default=16,
                        help="the HTTP measurement again at this many clients (default 16; "
                             "0 to skip)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    options = parser.parse_args()
    if options.rounds < 1 or options.clients < 1 or options.seconds <= 0 \
            or options.load_clients < 0:
        parser.error("--rounds and --clients must be at least 1, --seconds positive")

    began = time.perf_counter()
    scratch = f"bench_rounds_{os.getpid()}"
    with floor.scratch_database(scratch):
        db = connection.settings_dict
        print(f"Scratch database {scratch} on {db['HOST'] or 'localhost'}"
              f"{':' + str(db['PORT']) if db.get('PORT') else ''} (dropped at the end); "
              f"{os.cpu_count()} CPUs.")
        by = floor.pit_boss()
        counted_rounds = bench_services(options.rounds, by)
        p50, p99 = bench_http(options.clients, options.seconds, options.workers, by)
        if options.load_clients:
            if options.load_clients != options.clients:
                p50, p99 = bench_http(options.load_clients, options.seconds, options.workers,
                                      by)
            print(f"\n   settle request at {options.load_clients} clients: p50 {ms(p50)}   "
                  f"p99 {ms(p99)}")
        http_rounds = Round.objects.filter(table__name__startswith="Bench HTTP").count()
        check_books(WARMUP_ROUNDS + options.rounds + counted_rounds + http_rounds)
    print(f"Done in {time.perf_counter() - began:.0f} s; {scratch} dropped.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
