"""A whole casino's peak through HTTP: `DATABASE_URL=... python bench/floor_bench.py`.

Plays many tables at once against gunicorn started as `make serve` starts it (the runtime
role, DEBUG off, collected static files, `--workers $SERVE_WORKERS`, the access log on), or
against a running server (`--url`, which must serve DATABASE_URL's database). Each table is
a full table (six funded players and the dealer: seven hands a round) driven by a client
thread of its own as its dealer: one round a minute through the API (open, a wager per seat,
the house as banker, the electronic deal, every hand by the house way, settle: 15 requests,
sent one after another), the tables' starts spread evenly over the minute. A health client
asks `GET /api/v1/health` steadily beside them.

The number of tables rises in levels (`--levels`); each level is played for one minute
while its new tables start (the ramp, not measured), then held for `--hold` seconds, in
which every request's latency is recorded by step. The run stops after the first level at
which a step's p99 passes `--limit-ms` (250) or any request failed; "tables served" is the
highest level before it. Any answer but 2xx is an error and is counted and shown, in the
ramp as in the hold. Then the ledger's figures: entries posted in the run, entries per
second, and the time of `ledger_verify` on the whole ledger.

DATABASE_URL is required and is the owner's (migrations run as it): the database it names
is created when missing and migrated; the bench's tables, staff and players stay in it (a
run's names carry its start time). Traffic goes to 127.0.0.1 unless `--url` says otherwise.
"""

from __future__ import annotations

import argparse
import functools
import http.client
import io
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STEPS = ("open", "wager", "banker", "deal", "hand", "settle")
HEALTH = "health"
CODE = ("casino", "rounds", "ledger", "reports", "bench", "manage.py", "pyproject.toml",
        "uv.lock")  # what the figures depend on, for the commit line
RUNTIME_ROLE = os.environ.get("RUNTIME_ROLE", "casino_app")  # the Makefile's default
RUNTIME_PASSWORD = os.environ.get("RUNTIME_PASSWORD") or None


# --- the numbers ---------------------------------------------------------------------------

def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0-100)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


@dataclass
class Level:
    """One level's record. Latencies and rounds count only while ``measuring`` (the hold);
    errors count from the level's start, ramp included."""

    tables: int
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    first_errors: list[str] = field(default_factory=list)
    rounds: int = 0
    measuring: bool = False
    held_from: float = 0.0
    held_to: float = 0.0
    entries: int = 0  # posted while held

    def step_p99s(self) -> dict[str, float]:
        return {step: percentile(self.times[step], 99) for step in STEPS if self.times[step]}

    def held(self, limit: float) -> bool:
        p99s = self.step_p99s()
        return (not self.errors and len(p99s) == len(STEPS)
                and all(p99 < limit for p99 in p99s.values()))


class Recorder:
    """Where every client's requests are written: the current level, under one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.level: Level | None = None

    def request(self, label: str, seconds: float) -> None:
        with self.lock:
            if self.level is not None and self.level.measuring:
                self.level.times[label].append(seconds)

    def error(self, label: str, what: str) -> None:
        with self.lock:
            if self.level is not None:
                self.level.errors[label] += 1
                if len(self.level.first_errors) < 3:
                    self.level.first_errors.append(f"{label}: {what}")

    def round_done(self) -> None:
        with self.lock:
            if self.level is not None and self.level.measuring:
                self.level.rounds += 1


# --- the clients ---------------------------------------------------------------------------

class StepFailed(Exception):
    pass


class Client:
    """One client's connection to the server; each request is timed and recorded under its
    step's name. http.client opens the connection again after a sync worker closes it."""

    def __init__(self, url: str, recorder: Recorder, token: str | None = None) -> None:
        parts = urlsplit(url)
        self.prefix = parts.path.rstrip("/")
        connection_class = (http.client.HTTPSConnection if parts.scheme == "https"
                            else http.client.HTTPConnection)
        self.conn = connection_class(parts.hostname or "127.0.0.1", parts.port, timeout=60)
        self.recorder = recorder
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Token {token}"
        self.round_id: int | None = None

    def call(self, label: str, method: str, path: str, body: Any) -> Any:
        payload = None if body is None else json.dumps(body).encode()
        started = time.perf_counter()
        try:
            self.conn.request(method, self.prefix + path, body=payload, headers=self.headers)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.conn.close()
            self.recorder.error(label, f"{method} {path}: {exc!r}")
            raise StepFailed(label) from exc
        self.recorder.request(label, time.perf_counter() - started)
        if not 200 <= response.status < 300:
            self.recorder.error(label, f"{method} {path} -> {response.status} {data[:200]!r}")
            raise StepFailed(label)
        answer = json.loads(data) if data else None
        if label == "open" and answer is not None:
            self.round_id = answer["id"]
        return answer

    def close(self) -> None:
        self.conn.close()


@dataclass
class Schedule:
    """When each table's rounds start: table ``i`` of ``tables`` at ``i / tables`` of the
    period after ``origin``, every ``period`` seconds (time.monotonic)."""

    origin: float
    tables: int
    period: float

    def next_start(self, index: int, last: float | None) -> float:
        """The table's next start: its slot, at least half a period after its last round
        began (a level's new slots never give a table two rounds at once)."""
        earliest = time.monotonic() if last is None else max(time.monotonic(),
                                                             last + self.period / 2)
        slot = self.origin + index * self.period / self.tables
        return slot + max(0, math.ceil((earliest - slot) / self.period)) * self.period


@dataclass
class Floor:
    url: str
    recorder: Recorder
    boss_token: str
    schedule: Schedule
    stop: threading.Event = field(default_factory=threading.Event)


def table_client(floor_: Floor, index: int, table_id: int, token: str) -> None:
    """A dealer at one table: a round at each of the table's starts until the bench stops.
    A round that fails is voided by the pit boss, so that the table plays on."""
    from bench._rounds_setup import play_round

    client = Client(floor_.url, floor_.recorder, token)
    last: float | None = None
    try:
        while True:
            schedule = floor_.schedule
            start = schedule.next_start(index, last)
            # A new level re-spreads the starts: a table waiting on its old slot takes its
            # new one at once, so the level is at its pace by the end of its ramp.
            while (wait := start - time.monotonic()) > 0 and floor_.schedule is schedule:
                if floor_.stop.wait(min(wait, 0.25)):
                    return
            if floor_.stop.is_set():
                return
            if floor_.schedule is not schedule:
                continue
            last = start
            client.round_id = None
            try:
                play_round(client.call, table_id)
                floor_.recorder.round_done()
            except StepFailed:
                if client.round_id is not None:
                    void(floor_, client.round_id)
            except Exception as exc:  # an answer not shaped as the API says: an error too
                floor_.recorder.error("round", repr(exc))
                if client.round_id is not None:
                    void(floor_, client.round_id)
    finally:
        client.close()


def void(floor_: Floor, round_id: int) -> None:
    boss = Client(floor_.url, floor_.recorder, floor_.boss_token)
    try:
        boss.call("void", "POST", f"/api/v1/rounds/{round_id}/void",
                  {"reason": "floor bench: a step failed"})
    except StepFailed:
        pass
    finally:
        boss.close()


def health_client(floor_: Floor, every: float) -> None:
    client = Client(floor_.url, floor_.recorder)
    try:
        while not floor_.stop.wait(every):
            with suppress(StepFailed):
                client.call(HEALTH, "GET", "/api/v1/health", None)
    finally:
        client.close()


# --- the database, the floor and the server --------------------------------------------------

def database_prepare() -> str:
    """Create DATABASE_URL's database when missing, migrate it, make the runtime role (as
    `make runtime-role` does); returns the runtime role's DATABASE_URL."""
    import psycopg
    from django.core.management import call_command
    from django.db import connection

    name = connection.settings_dict["NAME"]
    with psycopg.connect(os.environ["DATABASE_URL"], dbname="postgres",
                         autocommit=True) as admin:
        if admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() \
                is None:
            admin.execute(f'CREATE DATABASE "{name}"')
    call_command("migrate", verbosity=0)
    out = io.StringIO()
    role_args = [RUNTIME_ROLE] + (["--password", RUNTIME_PASSWORD] if RUNTIME_PASSWORD else [])
    call_command("create_runtime_role", *role_args, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip()


def tables_add(run: str, first: int, count: int, boss: Any) -> list[tuple[int, str]]:
    """``count`` full tables, each with its dealer signed in: (table id, dealer's token)."""
    from bench._rounds_setup import FUNDS, full_table
    from casino import roles
    from casino.services import staff_create
    from rounds.services.dealers import dealer_shift_start

    made = []
    for n in range(first, first + count):
        table = full_table(name=f"Floor {run} {n + 1}", by=boss, funds=FUNDS)
        dealer, token = staff_create(username=f"floor-{run}-dealer-{n + 1}", role=roles.DEALER)
        dealer_shift_start(table_id=table.pk, by=dealer)
        made.append((table.pk, token))
    return made


@functools.cache
def collected_static() -> str:
    """`make static`'s collectstatic, into a directory of the run's (removed at the end):
    gunicorn with DEBUG off refuses to start without the files (casino/wsgi.py)."""
    root = tempfile.mkdtemp(prefix="floor_bench_static_")
    env = {**os.environ, "DJANGO_DEBUG": "false", "DJANGO_STATIC_ROOT": root}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity",
                    "0"], cwd=ROOT, env=env, check=True)
    return root


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def served(workers: int, runtime_url: str) -> Iterator[tuple[str, Path]]:
    """gunicorn as `make serve` starts it (SERVE_ENV without TLS, AS_RUNTIME), on a free
    port, with the ledger's sealer beside it as `make serve` has it; yields its URL and log,
    and stops both on the way out."""
    port = free_port()
    static = collected_static()
    env = {
        **os.environ,
        "DATABASE_OWNER_URL": os.environ.get("DATABASE_OWNER_URL") or os.environ["DATABASE_URL"],
        "DATABASE_URL": runtime_url,
        "DJANGO_DEBUG": "false",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_SSL_REDIRECT": "false", "DJANGO_SESSION_COOKIE_SECURE": "false",
        "DJANGO_CSRF_COOKIE_SECURE": "false", "DJANGO_SECURE_HSTS_PRELOAD": "false",
        "DJANGO_SECURE_HSTS_SECONDS": "0",
        "DJANGO_STATIC_ROOT": static,
    }
    for ours in ("DATABASE_POOL", "LOG_LEVEL"):  # set for this process by setup_production_like
        env.pop(ours, None)
    script = Path(sys.executable).with_name("gunicorn")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "gunicorn"]
    command += ["casino.wsgi:application", "--bind", f"127.0.0.1:{port}",
                "--workers", str(workers), "--access-logfile", "-"]
    with tempfile.NamedTemporaryFile("w+", prefix="floor_bench_gunicorn_", suffix=".log",
                                     delete=False) as log_file:
        log = Path(log_file.name)
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log_file,
                                  stderr=subprocess.STDOUT)
    sealer = subprocess.Popen([sys.executable, "manage.py", "ledger_seal", "--every", "10"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(server, url, log)
        yield url, log
    finally:
        for process in (server, sealer):
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(static, ignore_errors=True)


def wait_until_up(server: subprocess.Popen, url: str, log: Path, timeout: float = 60) -> None:
    parts = urlsplit(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited with {server.returncode}:\n{log.read_text()}")
        try:
            conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=5)
            conn.request("GET", "/api/v1/health")
            if conn.getresponse().status == 200:
                return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.2)
    raise SystemExit(f"gunicorn did not answer within {timeout:.0f} s:\n{log.read_text()}")


# --- the run -------------------------------------------------------------------------------

def cell(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{percentile(values, 50) * 1000:.0f}/{percentile(values, 99) * 1000:.0f}"


def level_header() -> str:
    steps = "".join(f"{name:>10s}" for name in (*STEPS, HEALTH))
    return (f"{'tables':>6s} {'rounds/s':>8s} {'(aim)':>6s}{steps}  errors   "
            "(each step: p50/p99 ms)")


def level_line(level: Level, period: float) -> str:
    seconds = level.held_to - level.held_from
    rate = level.rounds / seconds if seconds > 0 else 0.0
    steps = "".join(f"{cell(level.times[name]):>10s}" for name in (*STEPS, HEALTH))
    errors = sum(level.errors.values())
    line = f"{level.tables:6d} {rate:8.2f} {level.tables / period:6.2f}{steps}  {errors}"
    if errors:
        by_step = ", ".join(f"{label} {n}" for label, n in sorted(level.errors.items()))
        line += f" ({by_step})\n" + "\n".join(f"    {e}" for e in level.first_errors)
    return line


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip()
    changed = git("status", "--porcelain", "--untracked-files=no", "--", *CODE)
    return git("rev-parse", "--short", "HEAD") + (" (with changes to the code)" if changed
                                                  else "")


def play(options: argparse.Namespace, url: str, workers: str) -> int:
    from django.core.management import call_command
    from django.db import connection

    from bench._rounds_setup import pit_boss
    from casino.services import staff_create
    from ledger.models import Entry, Hold
    from rounds.models import Round

    run = time.strftime("%Y%m%d%H%M%S")
    boss = pit_boss(f"floor-{run}-pit")
    _, boss_token = staff_create(username=f"floor-{run}-pit-api", role="pit_boss")
    recorder = Recorder()
    floor_ = Floor(url=url, recorder=recorder, boss_token=boss_token,
                   schedule=Schedule(time.monotonic(), 1, options.period))
    db = connection.settings_dict
    print(f"floor bench: {url}, gunicorn --workers {workers}; database {db['NAME']} on "
          f"{db['HOST']}:{db['PORT']}; commit {commit()}; {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.2f}")
    print(f"a round every {options.period:g} s per table (six players and the dealer, the house "
          f"banks, 16 requests back to back), starts spread over the {options.period:g} s; "
          f"each level: {options.ramp:g} s ramp, {options.hold:g} s held; a health request "
          f"every {options.health_every:g} s; the line: every step's p99 < "
          f"{options.limit_ms:g} ms, no error")
    entries_before = Entry.objects.count()
    holds_before = Hold.objects.filter(status=Hold.Status.OPEN).count()
    threads: list[threading.Thread] = [threading.Thread(
        target=health_client, args=(floor_, options.health_every), daemon=True)]
    threads[0].start()
    tables: list[tuple[int, str]] = []
    served_tables = 0
    levels: list[Level] = []
    try:
        for count in options.levels:
            started = time.monotonic()
            tables += tables_add(run, len(tables), count - len(tables), boss)
            setup = time.monotonic() - started
            level = Level(tables=count)
            with recorder.lock:
                recorder.level = level
            floor_.schedule = Schedule(time.monotonic(), count, options.period)
            for index in range(len(threads) - 1, count):
                thread = threading.Thread(target=table_client, daemon=True,
                                          args=(floor_, index, *tables[index]))
                thread.start()
                threads.append(thread)
            if not levels:
                print(level_header())
            time.sleep(options.ramp)
            entries_held = Entry.objects.count()
            with recorder.lock:
                level.measuring, level.held_from = True, time.monotonic()
            time.sleep(options.hold)
            with recorder.lock:
                level.measuring, level.held_to = False, time.monotonic()
            level.entries = Entry.objects.count() - entries_held
            levels.append(level)
            print(level_line(level, options.period)
                  + f"   (set-up {setup:.0f} s, load {os.getloadavg()[0]:.1f})", flush=True)
            if not level.held(options.limit_ms / 1000):
                break
            served_tables = count
    finally:
        floor_.stop.set()
        for thread in threads:
            thread.join(timeout=90)
    connection.close()

    print(f"tables served: {served_tables} (every step's p99 under {options.limit_ms:g} ms, "
          f"no error)" + ("" if served_tables != options.levels[-1] or not levels else
                          "; the highest level asked for, not the limit"))
    entries = Entry.objects.count() - entries_before
    started = time.perf_counter()
    out = io.StringIO()
    try:
        call_command("ledger_verify", stdout=out, stderr=io.StringIO())
        verified = "OK"
    except Exception as exc:
        verified = f"FAILED: {exc}"
    verify_seconds = time.perf_counter() - started
    total = Entry.objects.count()
    bench_rounds = Round.objects.filter(table__name__startswith=f"Floor {run} ")
    unsettled = bench_rounds.exclude(state__in=["settled", "voided"]).count()
    open_holds = Hold.objects.filter(status=Hold.Status.OPEN).count()
    top = next((level for level in levels if level.tables == served_tables), None)
    rate = (f"{top.entries / (top.held_to - top.held_from):.2f} entries/s while "
            f"{top.tables} tables were held" if top else "no level held")
    print(f"ledger: {entries} entries posted in the run ({len(tables) * 6} the players' "
          f"deposits at set-up), {rate}; ledger_verify {verified} in {verify_seconds:.1f} s "
          f"over the whole ledger ({total} entries); the run's rounds: {bench_rounds.count()}, "
          f"{unsettled} neither settled nor voided; open holds {open_holds} "
          f"({holds_before} before the run)")
    failed = any(level.errors for level in levels) or verified != "OK"
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server (serving DATABASE_URL's database); "
                        "default: start gunicorn as `make serve` does")
    parser.add_argument("--levels", type=int, nargs="+",
                        default=[25, 50, 100, 150, 200, 250, 300, 400],
                        help="numbers of tables, rising (default 25 50 100 150 200 250 300 400)")
    parser.add_argument("--hold", type=float, default=120.0,
                        help="seconds each level is measured after its ramp (default 120)")
    parser.add_argument("--ramp", type=float, default=None,
                        help="seconds of each level before it is measured (default: a period)")
    parser.add_argument("--period", type=float, default=60.0,
                        help="seconds between a table's rounds (default 60: a dealer's pace)")
    parser.add_argument("--health-every", type=float, default=0.2,
                        help="seconds between health requests (default 0.2)")
    parser.add_argument("--limit-ms", type=float, default=250.0,
                        help="a step's p99 past this ends the run (default 250)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 2 then 3 tables, a round every 3 s, 6 s held")
    options = parser.parse_args()
    if options.quick:
        options.levels, options.period, options.hold = [2, 3], 3.0, 6.0
    if options.ramp is None:
        options.ramp = options.period
    if sorted(options.levels) != options.levels or options.levels[0] < 1:
        parser.error("--levels must rise from at least 1")
    if not os.environ.get("DATABASE_URL"):
        parser.error("DATABASE_URL is required, e.g. "
                     "postgres://postgres@127.0.0.1:5432/casino_floor (created when missing)")

    from bench._django import setup_production_like

    setup_production_like(pool=False)
    runtime_url = database_prepare()
    if options.url:
        return play(options, options.url.rstrip("/"), "(the server's)")
    workers = os.environ.get("SERVE_WORKERS", "2")  # the Makefile's default
    with served(int(workers), runtime_url) as (url, log):
        code = play(options, url, workers)
    if code == 0:
        log.unlink()
    else:
        print(f"the server's log: {log}")
    return code


if __name__ == "__main__":
    sys.exit(main())
