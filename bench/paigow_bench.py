"""Speed of the Pai Gow engine on one core: `python bench/paigow_bench.py [--quick]`.

Prints five-card evaluations, house-way settings and simulated hands per second, and two
ratios measured in the same run on the same hands:

* against the independent reference evaluator of the tests (tests/rounds/paigow/
  paigow_reference.py), plain Python that ranks a hand the way one would by hand: how much the
  lookup tables buy;
* against a baseline loop that only sorts each hand's five card ranks: the engine's cost per
  evaluation in "sorts of five ints", which stays comparable between machines.

Targets (the project's): >= 300,000 evaluations/s and >= 20,000 house-way settings/s.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "rounds" / "paigow"))

from paigow_reference import reference_rank  # noqa: E402

from rounds.paigow import DECK, evaluate_high, house_way  # noqa: E402
from rounds.paigow.evaluate import high_value, tables_for  # noqa: E402
from rounds.paigow.simulate import simulate_chunk  # noqa: E402


def rate(count: int, run: Callable[[], object], repeat: int = 3) -> float:
    """Items per second, best of `repeat` runs (the least disturbed by the machine)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return count / best


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import rounds.paigow; " \
           "print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    return float(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples")
    args = parser.parse_args()
    n_eval, n_ref, n_way, n_sim = (50_000, 1_000, 5_000, 5_000) if args.quick else \
        (300_000, 5_000, 50_000, 40_000)
    rng = random.Random(2024)
    fives = [tuple(rng.sample(DECK, 5)) for _ in range(n_eval)]
    sevens = [tuple(rng.sample(DECK, 7)) for _ in range(n_way)]
    plain, suited = tables_for("second_highest")

    print(f"Python {sys.version.split()[0]}, one core")
    print(f"import rounds.paigow        {import_seconds():10.2f} s (tables built at import)")

    evals = rate(n_eval, lambda: [evaluate_high(h) for h in fives])
    inner = rate(n_eval, lambda: [high_value(h, plain, suited) for h in fives])
    print(f"five-card evaluations       {evals:10,.0f} /s  (evaluate_high, checks included)")
    print(f"  inner lookup              {inner:10,.0f} /s  (high_value, as house way uses it)")

    codes = [[c.code for c in h] for h in fives[:n_ref]]
    reference = rate(n_ref, lambda: [reference_rank(h) for h in codes], repeat=1)
    ranks = [tuple(c.rank for c in h) for h in fives]
    baseline = rate(n_eval, lambda: [sorted(r) for r in ranks])
    print(f"  reference evaluator       {reference:10,.0f} /s  -> engine is "
          f"{evals / reference:,.0f}x faster")
    print(f"  baseline sort of 5 ranks  {baseline:10,.0f} /s  -> one evaluation costs "
          f"{baseline / evals:.1f} sorts")

    ways = rate(n_way, lambda: [house_way(h) for h in sevens])
    print(f"house-way settings          {ways:10,.0f} /s  (house_way, foxwoods)")

    sims = rate(n_sim, lambda: simulate_chunk(n_sim, 1), repeat=1)
    print(f"simulated hands             {sims:10,.0f} /s  (deal + two house ways + showdown)")

    ok = evals >= 300_000 and ways >= 20_000
    print("targets (300,000 evals/s, 20,000 settings/s):", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
