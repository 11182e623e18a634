"""Speed of the Pai Gow engine on one core: `python bench/paigow_bench.py [--quick]`.

Prints five-card evaluations, house-way settings and simulated hands per second, and three
ratios measured in the same run on the same hands:

* against treys (the peer: a pure-Python Cactus Kev evaluator, on PyPI), on joker-free hands
  since treys has no joker, each hand converted to treys' cards with ``Card.new("As")``: our
  public call, checks included, against treys' public call ``Evaluator.evaluate``, which
  checks nothing. The two are timed in alternation, so both see the same machine;
* against the independent reference evaluator of the tests (tests/rounds/paigow/
  paigow_reference.py), plain Python that ranks a hand the way one would by hand: how much the
  lookup tables buy;
* against a baseline loop that only sorts each hand's five card ranks: the engine's cost per
  evaluation in "sorts of five ints", which stays comparable between machines.

Targets (the project's): >= 300,000 evaluations/s, >= 20,000 house-way settings/s, and
evaluate_high >= 1.5 x treys (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import itertools
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
from treys import Card as TreysCard  # noqa: E402
from treys import Evaluator  # noqa: E402

from rounds.paigow import DECK, JOKER, evaluate_high, house_way  # noqa: E402
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


def rates_alternating(runs: dict[str, Callable[[int], int]], chunks: int,
                      repeat: int) -> dict[str, float]:
    """Items per second of each run, best over `repeat` passes of `chunks` rounds; a round
    times every run once, in turn, on the same chunk of items (`run(i)` evaluates chunk i
    and returns its size). Short, alternated samples: on a busy machine a slow spell then
    hits each side alike, and the best sample of each is its least disturbed one."""
    best = dict.fromkeys(runs, float("inf"))
    size = dict.fromkeys(runs, 0)
    for _ in range(repeat):
        for chunk in range(chunks):
            for name, run in runs.items():
                started = time.perf_counter()
                size[name] = run(chunk)
                best[name] = min(best[name], (time.perf_counter() - started) / size[name])
    return {name: 1 / seconds for name, seconds in best.items()}


def treys_card(code: str) -> int:
    """Our notation ("AS", "TD") in treys' ("As", "Td"): rank character, then suit in lower case."""
    return TreysCard.new(code[0] + code[1].lower())


def treys_agrees(fives: list[tuple], treys_ranks: list[int]) -> bool:
    """Both evaluators order these hands alike. treys plays the wheel as the lowest straight
    and ranks best first, so we compare with that wheel rule and the order reversed."""
    pairs = sorted(zip(treys_ranks, (evaluate_high(h, "lowest").value for h in fives),
                       strict=True))
    values = [value for _, value in pairs]
    distinct = {treys: value for treys, value in pairs}
    return all(a >= b for a, b in itertools.pairwise(values)) \
        and len(set(distinct.values())) == len(distinct)


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

    # The peer, on the same joker-free hands, timed in alternation with our public call.
    naturals = [tuple(rng.sample(DECK[:52], 5)) for _ in range(n_eval)]
    assert all(JOKER not in h for h in naturals)
    # treys' own usage: a two-card hand and a three-card board, as lists of its ints.
    treys_hands = [([treys_card(c.code) for c in h[:2]], [treys_card(c.code) for c in h[2:]])
                   for h in naturals]
    treys_evaluate = Evaluator().evaluate
    chunk = 10_000
    ours_chunks = [naturals[i:i + chunk] for i in range(0, n_eval, chunk)]
    treys_chunks = [treys_hands[i:i + chunk] for i in range(0, n_eval, chunk)]
    peer = rates_alternating({
        "ours": lambda i: len([evaluate_high(h) for h in ours_chunks[i]]),
        "treys": lambda i: len([treys_evaluate(hand, board) for hand, board in treys_chunks[i]]),
    }, chunks=len(ours_chunks), repeat=5)
    agrees = treys_agrees(naturals[:20_000], [treys_evaluate(hand, board)
                                              for hand, board in treys_hands[:20_000]])
    print(f"  treys, joker-free hands   {peer['treys']:10,.0f} /s  (Evaluator.evaluate, no checks; "
          f"orders 20,000 hands as we do: {'yes' if agrees else 'NO'})")
    print(f"  evaluate_high, same hands {peer['ours']:10,.0f} /s  (checks included, timed in "
          "alternation with treys)")
    ratio = peer["ours"] / peer["treys"]
    print(f"ratio evaluate_high/treys: {ratio:.2f}")

    ways = rate(n_way, lambda: [house_way(h) for h in sevens])
    print(f"house-way settings          {ways:10,.0f} /s  (house_way, foxwoods)")

    sims = rate(n_sim, lambda: simulate_chunk(n_sim, 1), repeat=1)
    print(f"simulated hands             {sims:10,.0f} /s  (deal + two house ways + showdown)")

    ok = evals >= 300_000 and ways >= 20_000 and ratio >= 1.5 and agrees
    print("targets (300,000 evals/s, 20,000 settings/s, 1.5 x treys):",
          "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
