"""CPU time of each API request of a whole round, and the cycle collector's share:
`python bench/round_cpu.py [--rounds 60] [--alternate-freeze]`.

Plays rounds at a full table through the WSGI application in this process, as
bench/round_trips.py does (a dealer's token, no Idempotency-Key): open, a wager per seat,
the house as banker, the electronic deal, every hand by the house way, settle, then one
health request. For each kind of request it prints the CPU time this process spent on it
(time.process_time: the server's own time is not in it), median over the rounds after the
first three, then the mean CPU time of a whole round and the time the cycle collector took
in it (gc.callbacks).

As a server starts (casino/wsgi.py), the URL configuration is loaded first and everything
loaded is then frozen out of the collector's way (gc.freeze). With --alternate-freeze the
rounds alternate between frozen and not (gc.unfreeze), in the one process, so that the
machine's drift falls on both alike; both sets of figures are printed.

A time, not a count: run it on a quiet machine, and compare figures from one run only.
Runs in a scratch database created for the run and dropped after it (bench._scratch).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# As under gunicorn in production: the pool on.
from bench._django import setup_production_like  # noqa: E402

setup_production_like(pool=True)

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.db import connection  # noqa: E402
from django.urls import resolve  # noqa: E402

from bench import _rounds_setup as floor  # noqa: E402
from bench.profile_settle import wsgi_call  # noqa: E402

WARM_ROUNDS = 3


class Collector:
    """The cycle collector's time, from its callbacks, while counting."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.counting = False
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif self.counting:
            self.seconds += time.perf_counter() - self._started


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def play_round(app: WSGIHandler, token: str, table_id: int) -> list[tuple[str, float]]:
    """One whole round and a health request; each request's CPU time, in order."""
    spent: list[tuple[str, float]] = []

    def call(label: str, method: str, path: str, body: Any) -> Any:
        started = time.process_time()
        status, content = wsgi_call(app, method, path, token=token, body=body)
        spent.append((label, time.process_time() - started))
        if status not in (200, 201):
            raise SystemExit(f"{label}: {status} {content[:300]!r}")
        return json.loads(content)

    floor.play_round(call, table_id)
    call("health", "GET", "/api/v1/health", None)
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--alternate-freeze", action="store_true",
                        help="alternate frozen and unfrozen rounds; print both")
    args = parser.parse_args()
    app = WSGIHandler()
    resolve("/api/v1/health")  # as casino/wsgi.py does
    gc.collect()
    gc.freeze()
    collector = Collector()
    modes = ["frozen", "not frozen"] if args.alternate_freeze else ["frozen"]
    cpu: dict[str, dict[str, list[float]]] = {m: defaultdict(list) for m in modes}
    per_round: dict[str, list[float]] = {m: [] for m in modes}
    collected: dict[str, float] = dict.fromkeys(modes, 0.0)
    with floor.scratch_database(f"round_cpu_{os.getpid()}"):
        by = floor.pit_boss()
        table = floor.full_table(name="Round CPU", by=by, funds=100_000_000)
        token = floor.dealer_token("round-cpu-dealer")
        for n in range(WARM_ROUNDS + args.rounds):
            mode = modes[n % len(modes)]
            if args.alternate_freeze:
                # frozen: what is loaded and kept (the boot's objects, the pool's
                # connections) is set aside again; not frozen: all of it back in the old
                # generation, as without casino/wsgi.py's freeze
                if mode == "frozen":
                    gc.freeze()
                else:
                    gc.unfreeze()
            collector.seconds = 0.0
            collector.counting = n >= WARM_ROUNDS
            spent = play_round(app, token, table.pk)
            if collector.counting:
                for label, seconds in spent:
                    cpu[mode][label].append(seconds)
                per_round[mode].append(sum(s for label, s in spent if label != "health"))
                collected[mode] += collector.seconds
        connection.close()
    labels = ["open", "wager", "banker", "deal", "hand", "settle", "health"]
    print(f"CPU time of this process per request, median, ms ({args.rounds} rounds)")
    print(f"{'request':8s} " + " ".join(f"{m:>11s}" for m in modes))
    for label in labels:
        print(f"{label:8s} " + " ".join(f"{median(cpu[m][label]) * 1000:11.2f}" for m in modes))
    for mode in modes:
        rounds = len(per_round[mode])
        print(f"{mode}: a round {sum(per_round[mode]) * 1000 / rounds:.1f} ms of CPU on average, "
              f"of which the cycle collector {collected[mode] * 1000 / rounds:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
