"""Faults as a test of the suite: rounds over HTTP under gunicorn while workers are killed
and database backends terminated, every request retried with its Idempotency-Key.

The service must come through with books that add up: every round settled exactly once,
no hold left open, every currency summing to zero, and ``ledger_verify`` clean. Bounded in
rounds and in time; traffic goes to 127.0.0.1 only. gunicorn serves the test database
(pytest-django's, on the same server as DATABASE_URL or the embedded one), so the test
needs ``transaction=True`` for the server to see its floor.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.db import connection, connections
from django.db.models import Count, Sum

from casino import roles
from casino.services import player_deposit, staff_create
from ledger.models import Account, Entry, Hold, Line
from ledger.verify import ledger_verify
from rounds import services
from rounds.models import Round, RoundEvent, Table
from tests.players import make_player

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent
APPLICATION_NAME = "casino-chaos-test"  # marks gunicorn's backends, the only ones terminated
TABLES = 2
ROUNDS_PER_TABLE = 12       # house- and player-banked in turn
SEATS = 5
HOUSE_STAKE = "20.00"
RUN_SECONDS = 120           # the whole run fails past this; it normally takes well under
MAX_KILLS, MAX_TERMINATIONS = 8, 12


def database_url() -> str:
    """The test database, for gunicorn: host, port and user of the test's own connection;
    a Unix socket directory (the embedded server) percent-encoded as libpq's host."""
    db = connection.settings_dict
    user = quote(db.get("USER") or "postgres", safe="")
    password = f":{quote(db['PASSWORD'], safe='')}" if db.get("PASSWORD") else ""
    host = quote(db.get("HOST") or "localhost", safe="")
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return (f"postgres://{user}{password}@{host}{port}/{quote(db['NAME'], safe='')}"
            f"?application_name={APPLICATION_NAME}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def workers(self) -> list[int]:
        """The master's live worker processes (it forks a new one for each killed)."""
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                # pid (comm) state ppid ...; comm may hold spaces, so split after it
                ppid = int(stat.read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue  # gone meanwhile
            if ppid == self.process.pid:
                children.append(int(stat.parent.name))
        return children


@pytest.fixture
def server(collected_static: str) -> Iterator[Server]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "CELERY_BROKER_URL"}
    env.update({
        "DATABASE_URL": database_url(),
        "DATABASE_POOL": "true",  # as in production: a pool per worker
        "DJANGO_DEBUG": "false",
        "DJANGO_STATIC_ROOT": collected_static,  # collected, as a production start needs
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "false",  # plain HTTP on the loopback
        "LOG_LEVEL": "ERROR",
    })
    script = Path(sys.executable).with_name("gunicorn")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "gunicorn"]
    command += ["casino.wsgi:application", "-w", "2", "-b", f"127.0.0.1:{port}",
                "--timeout", "30", "--graceful-timeout", "5"]
    with tempfile.NamedTemporaryFile("w+", prefix="chaos_gunicorn_", suffix=".log",
                                     delete=False) as log_file:
        log = Path(log_file.name)
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log_file,
                                   stderr=subprocess.STDOUT)
    up = Server(process, port, log)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, f"gunicorn exited:\n{log.read_text()}"
            try:
                if request(port, "GET", "/api/v1/health", None, None)[0] == 200:
                    break
            except (OSError, http.client.HTTPException):
                pass
            assert time.monotonic() < deadline, f"gunicorn did not start:\n{log.read_text()}"
            time.sleep(0.2)
        yield up
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    log.unlink()  # kept when the test failed, for its tracebacks


def request(port: int, method: str, path: str, body: Any, headers: dict[str, str] | None,
            ) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        payload = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=payload, headers={
            "Content-Type": "application/json", **(headers or {})})
        response = conn.getresponse()
        data = response.read()
        return response.status, (json.loads(data) if data else None)
    finally:
        conn.close()


@dataclass
class Client:
    """A dealer's client that retries each request, with the same Idempotency-Key, on a
    dropped connection or a 5xx, as the API guide tells clients to."""

    port: int
    token: str
    deadline: float
    retries: int = 0
    server_errors: int = 0

    def call(self, method: str, path: str, body: Any = None, expect: int = 200) -> Any:
        headers = {"Authorization": f"Token {self.token}"}
        if method == "POST":
            headers["Idempotency-Key"] = str(uuid.uuid4())
        attempt = 0
        while True:
            try:
                status, data = request(self.port, method, path, body, headers)
            except (OSError, http.client.HTTPException):
                status, data = 0, None
            if status == expect:
                return data
            if status and status < 500:
                raise AssertionError(f"{method} {path} {body} -> {status}: {data}")
            self.server_errors += status >= 500
            attempt += 1
            self.retries += 1
            assert time.monotonic() < self.deadline, f"{method} {path}: no answer in time"
            time.sleep(min(0.05 * attempt, 0.5))


@dataclass
class Played:
    rounds: list[int] = field(default_factory=list)
    wagers: dict[int, int] = field(default_factory=dict)
    error: BaseException | None = None


def play(client: Client, table_id: int, seed: int, played: Played) -> None:
    rng = random.Random(seed)
    try:
        for number in range(ROUNDS_PER_TABLE):
            banker = None if number % 2 == 0 else (number // 2) % SEATS + 1
            round_id = client.call("POST", f"/api/v1/tables/{table_id}/rounds", {}, 201)["id"]
            played.rounds.append(round_id)
            base = f"/api/v1/rounds/{round_id}"
            seats = [s for s in range(1, SEATS + 1) if s != banker]
            for seat in seats:
                client.call("POST", f"{base}/wagers",
                            {"seat": seat, "amount": f"{rng.randint(2, 60)}.00"}, 201)
            played.wagers[round_id] = len(seats)
            if banker is None:
                client.call("POST", f"{base}/banker", {"house": True})
            else:
                client.call("POST", f"{base}/banker",
                            {"seat": banker, "house_stake": HOUSE_STAKE})
            dealt = client.call("POST", f"{base}/deal", {})
            bank = dealt["banker"]["position"]  # its hand is set last (rules §4.1)
            for hand in sorted(dealt["hands"], key=lambda h: h["position"] == bank):
                if hand["position"] != "dealer":
                    client.call("POST", f"{base}/hands",
                                {"position": hand["position"], "house_way": True})
            settled = client.call("POST", f"{base}/settle", {})
            assert settled["state"] == "settled", settled
    except BaseException as exc:  # reported by the test
        played.error = exc


@dataclass
class Faults:
    kills: int = 0
    terminations: int = 0   # times the server's backends were terminated
    terminated: int = 0     # backends terminated in all


def make_faults(server: Server, stop: threading.Event, faults: Faults, seed: int) -> None:
    """At random moments: SIGKILL a gunicorn worker, or terminate the server's backends."""
    rng = random.Random(seed)
    try:
        while not stop.wait(rng.uniform(0.3, 1.2)):
            if rng.random() < 0.5 and faults.kills < MAX_KILLS:
                workers = server.workers()
                if workers:
                    try:
                        os.kill(rng.choice(workers), signal.SIGKILL)
                        faults.kills += 1
                    except ProcessLookupError:
                        pass
            elif faults.terminations < MAX_TERMINATIONS:
                with connection.cursor() as cursor:
                    cursor.execute(
                        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))"
                        "  FROM pg_stat_activity"
                        " WHERE datname = current_database() AND application_name = %s",
                        [APPLICATION_NAME])
                    faults.terminated += cursor.fetchone()[0]
                faults.terminations += 1
    finally:
        connections.close_all()


def floor() -> tuple[list[Table], list[str]]:
    """Tables with seated, funded players where any seat may bank, and a dealer each."""
    boss, _ = staff_create(username="chaos-pit", role=roles.PIT_BOSS)
    tables, tokens = [], []
    for n in range(TABLES):
        table = services.table_create(by=boss, name=f"Chaos {n + 1}", bank_rotation="open",
                                      banker_must_have_played=False,
                                      house_stake_cap="table_max")
        for seat in range(1, SEATS + 1):
            player = make_player(name=f"Chaos {n + 1}.{seat}", currency="EUR", by=boss)
            # At the cage's cap (10,000.00): far more than 24 rounds at 100.00 a wager need.
            player_deposit(player_id=player.pk, amount=1_000_000, by=boss)
            services.seat_take(table_id=table.pk, number=seat, player_id=player.pk, by=boss)
        tables.append(table)
        tokens.append(staff_create(username=f"chaos-dealer-{n + 1}", role=roles.DEALER)[1])
    return tables, tokens


def test_rounds_come_through_killed_workers_and_terminated_backends_intact(server):
    # given tables with seated players, served by gunicorn
    tables, tokens = floor()
    deadline = time.monotonic() + RUN_SECONDS
    clients = [Client(server.port, token, deadline) for token in tokens]
    played = [Played() for _ in tables]

    # when dealers play rounds at every table while workers die and backends are cut
    stop, faults = threading.Event(), Faults()
    chaos = threading.Thread(target=make_faults, args=(server, stop, faults, 8), daemon=True)
    players = [threading.Thread(target=play, args=(c, t.pk, 100 + n, p), daemon=True)
               for n, (c, t, p) in enumerate(zip(clients, tables, played, strict=True))]
    chaos.start()
    for thread in players:
        thread.start()
    for thread in players:
        thread.join(timeout=max(1.0, deadline - time.monotonic()))
    stop.set()
    chaos.join(timeout=30)
    assert not any(t.is_alive() for t in players), f"rounds still playing; {server.log}"
    assert [p.error for p in played] == [None] * TABLES, server.log
    print(f"\nchaos: {faults.kills} workers killed, {faults.terminated} backends terminated, "
          f"{sum(c.retries for c in clients)} retries "
          f"({sum(c.server_errors for c in clients)} after a 5xx)")
    assert faults.kills >= 2 and faults.terminated >= 1, "the faults did not happen"
    server.process.terminate()  # no request in flight while the books are read
    server.process.wait(timeout=15)

    # then every round was played once and settled exactly once
    round_ids = [r for p in played for r in p.rounds]
    assert len(set(round_ids)) == TABLES * ROUNDS_PER_TABLE
    rounds = Round.objects.filter(table__in=tables)
    assert sorted(rounds.values_list("pk", flat=True)) == sorted(round_ids)
    assert set(rounds.values_list("state", flat=True)) == {"settled"}
    wagers = dict(rounds.annotate(n=Count("wagers")).values_list("pk", "n"))
    assert wagers == {r: n for p in played for r, n in p.wagers.items()}
    settled_events = RoundEvent.objects.filter(round__in=rounds, kind="settled")
    assert settled_events.count() == len(round_ids)
    per_round = Entry.objects.filter(kind="round_settlement").values("ref").annotate(
        n=Count("id"))
    assert all(row["n"] == 1 for row in per_round)
    for round_ in rounds:
        refs = list(Entry.objects.filter(ref=f"round:{round_.pk}",
                                         kind="round_settlement").values_list("pk", flat=True))
        assert refs == ([round_.entry_id] if round_.entry_id else []), round_.pk
    # and the books add up
    assert not Hold.objects.filter(status="open").exists()
    sums = Line.objects.values("account__currency").annotate(total=Sum("amount"))
    assert [row["total"] for row in sums] == [0] * len(sums)
    assert Account.objects.aggregate(total=Sum("posted"))["total"] == 0
    report = ledger_verify()
    assert report.ok, report.problems
