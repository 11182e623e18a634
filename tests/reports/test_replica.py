"""Reports on a real streaming replica: the test starts a PostgreSQL primary and a standby
streaming from it (initdb, pg_basebackup -R), runs the service against both in child
processes (DATABASE_URL the primary, DATABASE_REPORTS_URL the standby) and reads a trial
balance over the API: its figures are the primary's, it says it read the replica and how
far behind it was, and the standby refuses a write.

PostgreSQL's binaries are the machine's (/usr/lib/postgresql/*/bin) or the embedded
server's (the pgserver package). initdb and postgres refuse to run as root: as root, the
servers run as the ``pgserver`` system user, as the embedded server does
(casino/embedded_db.py), in a temporary directory that user owns.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

# One worker runs them all (make test's --dist loadgroup): the servers and the migrated
# floor are the module's, made once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("replica")]

ROOT = Path(__file__).resolve().parent.parent.parent
SYSTEM_USER = "pgserver"  # the embedded server's, when running as root
WAIT_SECONDS = 30


def postgres_bin() -> Path:
    """The machine's newest PostgreSQL, else the one the pgserver package carries."""
    machine = sorted(Path("/usr/lib/postgresql").glob("*/bin"),
                     key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    for found in reversed(machine):
        if (found / "pg_basebackup").exists():
            return found
    import pgserver

    return Path(pgserver.__file__).parent / "pginstall" / "bin"


def server_user() -> str | None:
    """Who the servers run as: ``pgserver`` when we are root (made if missing, as the
    pgserver package makes it), else ourselves."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        useradd = shutil.which("useradd")
        assert useradd is not None, "running as root without useradd"
        subprocess.run([useradd, "-s", "/bin/bash", SYSTEM_USER], check=True,
                       capture_output=True)
    return SYSTEM_USER


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def value(conn: psycopg.Connection[Any], sql: str, *params: Any) -> Any:
    """The one value a query returns."""
    row = conn.execute(sql, params).fetchone()
    assert row is not None
    return row[0]


@dataclass
class Pair:
    root: Path
    bin: Path
    user: str | None
    primary_port: int
    standby_port: int

    def run(self, program: str, *args: str) -> str:
        done = subprocess.run([str(self.bin / program), *args], user=self.user, cwd=self.root,
                              capture_output=True, text=True, timeout=WAIT_SECONDS)
        assert done.returncode == 0, f"{program} {args}: {done.stdout}\n{done.stderr}"
        return done.stdout

    def start(self, name: str, port: int) -> None:
        # fsync off: a scratch cluster, thrown away after the test.
        self.run("pg_ctl", "-D", str(self.root / name), "-w", "-l",
                 str(self.root / f"{name}.log"), "-o",
                 f"-p {port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off",
                 "start")

    def url(self, port: int, database: str = "casino") -> str:
        return f"postgres://postgres@127.0.0.1:{port}/{database}"

    def connect(self, port: int) -> psycopg.Connection[Any]:
        return psycopg.connect(self.url(port), autocommit=True)


    def caught_up(self) -> None:
        """Wait until the standby has replayed everything the primary has written."""
        with self.connect(self.primary_port) as primary:
            target = value(primary, "SELECT pg_current_wal_lsn()")
        with self.connect(self.standby_port) as standby:
            deadline = time.monotonic() + WAIT_SECONDS
            while not value(standby, "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn",
                            target):
                assert time.monotonic() < deadline, "the standby did not catch up"
                time.sleep(0.05)

    def stop(self) -> None:
        for name in ("standby", "primary"):
            if (self.root / name / "postmaster.pid").exists():
                subprocess.run([str(self.bin / "pg_ctl"), "-D", str(self.root / name),
                                "-m", "immediate", "-w", "stop"], user=self.user,
                               capture_output=True, timeout=WAIT_SECONDS, check=False)


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    """A primary with a database ``casino``, and a standby streaming from it."""
    user = server_user()
    root = Path(tempfile.mkdtemp(prefix="casino_replica_"))
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(root, entry.pw_uid, entry.pw_gid)
    servers = Pair(root=root, bin=postgres_bin(), user=user, primary_port=free_port(),
                   standby_port=free_port())
    try:
        servers.run("initdb", "-D", str(root / "primary"), "-U", "postgres", "--auth=trust",
                    "--encoding=utf8", "--no-sync")
        servers.start("primary", servers.primary_port)
        servers.run("createdb", "-h", "127.0.0.1", "-p", str(servers.primary_port),
                    "-U", "postgres", "casino")
        # -R writes the standby's primary_conninfo and standby.signal; -X stream copies
        # the WAL made meanwhile, so the standby starts consistent.
        servers.run("pg_basebackup", "-D", str(root / "standby"), "-h", "127.0.0.1",
                    "-p", str(servers.primary_port), "-U", "postgres", "-R",
                    "-X", "stream", "-c", "fast")
        servers.start("standby", servers.standby_port)
        with servers.connect(servers.primary_port) as primary:
            deadline = time.monotonic() + WAIT_SECONDS
            while value(primary, "SELECT count(*) FROM pg_stat_replication"
                                 " WHERE state = 'streaming'") != 1:
                assert time.monotonic() < deadline, "the standby is not streaming"
                time.sleep(0.05)
        yield servers
    finally:
        servers.stop()
        shutil.rmtree(root, ignore_errors=True)


def service(servers: Pair, *args: str) -> str:
    """A command of the service with the primary as DATABASE_URL and the standby as
    DATABASE_REPORTS_URL; its stdout."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "DATABASE_OWNER_URL", "DATABASE_REPORTS_URL",
                        "CELERY_BROKER_URL")}
    env.update({"DATABASE_URL": servers.url(servers.primary_port),
                "DATABASE_REPORTS_URL": servers.url(servers.standby_port),
                "DJANGO_MEDIA_ROOT": str(servers.root / "media"), "LOG_LEVEL": "ERROR"})
    done = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


def step(servers: Pair, name: str) -> dict[str, Any]:
    said: dict[str, Any] = json.loads(
        service(servers, "-m", "tests.reports.replica_steps", name).splitlines()[-1])
    return said


def rows(document: dict[str, Any]) -> list[Any]:
    return [section["rows"] for section in document["sections"]]


@pytest.fixture(scope="module")
def floor(pair: Pair) -> Pair:
    """The service's tables and the demo floor on the primary, replayed on the standby."""
    service(pair, "manage.py", "migrate", "--noinput")
    service(pair, "manage.py", "seed_demo", "--force")
    return pair


def test_a_trial_balance_read_from_a_streaming_standby_is_the_primarys_and_says_so(floor):
    # given a standby that has replayed all the primary wrote
    floor.caught_up()

    # when an auditor reads the trial balance over the API
    made = step(floor, "report")

    # then its figures are the primary's at the same moment, money and all
    record, file, primary = made["record"], made["file"], made["primary"]
    assert record["status"] == "done"
    accounts = file["sections"][0]["rows"]
    assert any(row["posted"] != "0.00" for row in accounts)
    assert rows(file) == rows(primary)
    assert file["chain_head"] == primary["chain_head"]
    # and it says it read the replica, streaming, with all it had received replayed
    # (the standby replays the report's own record as it is written, a few ms behind)
    read = file["read_from"]
    assert read["replica"] and read["standby"] and read["streaming"]
    assert read["behind_seconds"] is not None and 0 <= read["behind_seconds"] <= 2
    assert read["said"].startswith("Read from the replica, replayed up to ")
    assert record["read_from"] == read["said"]
    # and the primary's own read says so
    assert primary["read_from"]["replica"] is False


def test_a_standby_whose_replay_is_paused_is_read_as_behind_and_says_how_far(floor):
    floor.caught_up()
    with floor.connect(floor.standby_port) as standby:
        standby.execute("SELECT pg_wal_replay_pause()")
        try:
            # given a deposit on the primary the paused standby has received, not replayed
            time.sleep(1.5)
            step(floor, "deposit")
            # when the trial balance is read
            made = step(floor, "report")
        finally:
            standby.execute("SELECT pg_wal_replay_resume()")

    # then its figures are the standby's, without the deposit, and it says it was behind
    file, primary = made["file"], made["primary"]
    assert rows(file) != rows(primary)
    assert file["chain_head"]["seq"] < primary["chain_head"]["seq"]
    read = file["read_from"]
    assert read["standby"] and read["behind_seconds"] >= 1
    assert f": {read['behind_seconds']} s behind when read at " in read["said"]


def test_the_standby_refuses_a_write_on_the_reports_connection(pair):
    refused = step(pair, "write-standby")["refused"]
    assert refused is not None and "read-only transaction" in refused
