"""Where a settle request's time goes: `python bench/profile_settle.py [--rounds N]`.

Deals rounds at a full table (six seated, funded players, house- and player-banked in turn,
every hand set by the house way) in a scratch database, then sends each round's
``POST /api/v1/rounds/<id>/settle`` through Django's test client, the whole request stack
included (middleware, authentication, DRF, the service, the ledger), with pyinstrument
sampling only those requests. Prints pyinstrument's text profile of them all, combined.

Not a benchmark (its name does not end in _bench.py, so `make bench` leaves it out): the
profiler slows what it watches. Its top lines go in docs/benchmarks.md, "Where the time goes".
The server is the one the project uses (DATABASE_URL, or the embedded one); the scratch
database is created for the run and dropped after it.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
# As round_bench's server runs: no DEBUG (no query log), plain HTTP, quiet logs.
os.environ["DJANGO_DEBUG"] = "false"
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
os.environ["DATABASE_POOL"] = "false"
os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "false"
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.test import Client  # noqa: E402
from pyinstrument import Profiler  # noqa: E402

from bench import _rounds_setup as floor  # noqa: E402

WARMUP_ROUNDS = 2  # first requests import and cache what later ones reuse: not profiled


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="settle requests profiled")
    options = parser.parse_args()
    if options.rounds < 1:
        parser.error("--rounds must be at least 1")

    scratch = f"profile_settle_{os.getpid()}"
    with floor.scratch_database(scratch):
        by = floor.pit_boss()
        table = floor.full_table(name="Profile", by=by, funds=floor.FUNDS)
        client = Client(headers={"Authorization": f"Token {floor.dealer_token('profiler')}"})
        rng = random.Random(2024)
        profiler = Profiler(interval=0.0005)
        for number in range(WARMUP_ROUNDS + options.rounds):
            round_id = floor.deal_round(table.pk, number, by, rng)
            profiled = number >= WARMUP_ROUNDS
            if profiled:
                profiler.start()
            response = client.post(f"/api/v1/rounds/{round_id}/settle", {},
                                   content_type="application/json")
            if profiled:
                profiler.stop()
            if response.status_code != 200 or response.json()["state"] != "settled":
                raise SystemExit(f"settle of round {round_id} -> {response.status_code}: "
                                 f"{response.content[:500]!r}")
    print(f"{options.rounds} settle requests at a full table, house- and player-banked in "
          f"turn, through Django's test client; {scratch} dropped.")
    print(profiler.output_text(unicode=True, color=False, short_mode=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
