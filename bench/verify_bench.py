"""ledger_verify from a checkpoint against a full verify, on a long ledger.

Builds a scratch ledger of --entries entries (1,000,000 by default: each a random amount
between one of 1,000 players and one of 10 table bankrolls, written in large statements as
the database's owner, stamped as the posting function stamps them), seals it into blocks,
runs a full verify (``--all``) which records a checkpoint, posts --new entries (1,000)
through ``entry_post`` as the service does, seals them, and verifies again from the
checkpoint. Prints both times, the ratio and the counts; the line (issue 37): the verify
after the new entries takes under a tenth of the full one's time.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/verify_bench.py

The scratch database is created beside DATABASE_URL's and dropped at the end.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402

settings.DEBUG = False
from django.db import connection, transaction  # noqa: E402

from bench._scratch import scratch_database  # noqa: E402

PLAYERS = 1_000
TABLES = 10
BATCH = 100_000  # entries per transaction while building


def _build(entries: int) -> tuple[list[int], list[int]]:
    from ledger.services import account_get_or_create, entry_post

    cage = account_get_or_create(kind="cage", currency="EUR")
    players = [account_get_or_create(kind="player", currency="EUR", ref=f"player:{i}").pk
               for i in range(PLAYERS)]
    tables = [account_get_or_create(kind="table_bankroll", currency="EUR", ref=f"table:{i}").pk
              for i in range(TABLES)]
    for player in players:
        entry_post(kind="deposit", memo="bench", by=None,
                   lines=[(cage.pk, -1_000_000_000), (player, 1_000_000_000)])
    left = entries - PLAYERS
    while left > 0:
        n = min(BATCH, left)
        # One transaction per batch: an entry, then its two lines, in three statements;
        # the guards (stamp, balance at commit, posted caches) judge them as any entry.
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                """
                CREATE TEMP TABLE bench_new ON COMMIT DROP AS
                SELECT nextval('ledger_entry_id_seq') AS id,
                       (%s::bigint[])[1 + floor(random() * %s)::int] AS player,
                       (%s::bigint[])[1 + floor(random() * %s)::int] AS tbl,
                       (1 + floor(random() * 10000))::bigint * (CASE WHEN random() < 0.5
                                                                THEN -1 ELSE 1 END) AS amount
                  FROM generate_series(1, %s)
                """, [players, PLAYERS, tables, TABLES, n])
            cursor.execute(
                "INSERT INTO ledger_entry (id, kind, memo, ref, created_at, reason, txid)"
                " SELECT id, 'wager', 'bench', 'round:' || id, clock_timestamp(), '',"
                " pg_current_xact_id()::text::bigint FROM bench_new ORDER BY id")
            cursor.execute(
                "INSERT INTO ledger_line (entry_id, account_id, amount)"
                " SELECT id, player, amount FROM bench_new"
                " UNION ALL SELECT id, tbl, -amount FROM bench_new")
        left -= n
        print(f"  built {entries - left} entries", file=sys.stderr)
    return players, tables


def _seal() -> tuple[int, float]:
    from ledger.services import entries_seal_all

    started = time.perf_counter()
    sealed = entries_seal_all().entries
    return sealed, time.perf_counter() - started


def _verify(full: bool):
    from ledger.verify import ledger_verify

    started = time.perf_counter()
    report = ledger_verify(full=full, record=True)
    return report, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--new", type=int, default=1_000)
    options = parser.parse_args()

    from ledger.services import entry_post

    scratch = f"verify_bench_{os.getpid()}"
    with scratch_database(scratch):
        print(f"Scratch database {scratch}; a ledger of {options.entries:,} entries, then "
              f"{options.new:,} new ones.")
        started = time.perf_counter()
        players, tables = _build(options.entries)
        print(f"built in {time.perf_counter() - started:.0f} s")
        sealed, took = _seal()
        print(f"sealed {sealed:,} entries in {took:.1f} s ({sealed / took:,.0f} entries/s)")
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE ledger_entry, ledger_line, ledger_block")
        full, full_s = _verify(full=True)
        print(f"ledger_verify --all: {'OK' if full.ok else full.problems[:3]}, "
              f"{full.entries:,} entries in {full.blocks:,} blocks, {full_s:.2f} s; "
              f"checkpoint at block {full.checkpoint}")
        rng = random.Random(37)
        for _ in range(options.new):
            amount = rng.randint(1, 10_000)
            entry_post(kind="wager", memo="bench", by=None,
                       lines=[(rng.choice(players), amount), (rng.choice(tables), -amount)])
        sealed, took = _seal()
        since, since_s = _verify(full=False)
        print(f"ledger_verify after {options.new:,} new entries: "
              f"{'OK' if since.ok else since.problems[:3]}, {since.entries:,} entries in "
              f"{since.blocks} blocks after the checkpoint at block {since.started_after}, "
              f"{since_s:.2f} s")
        ratio = since_s / full_s
        print(f"ratio: {ratio:.3f} of the full verify's time (the line: under 0.1): "
              + ("met" if ratio < 0.1 and full.ok and since.ok else "NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
