"""The evaluator against treys in machine instructions, not seconds:
`valgrind --tool=cachegrind --cache-sim=no python bench/paigow_count.py {ours,treys,none}`.

On a shared or throttled machine the timed ratio of paigow_bench.py moves by a tenth or
more between runs (docs/benchmarks.md). An instruction count does not: run this script
under cachegrind once per evaluator and once with ``none`` (the same set-up, nothing
evaluated); ``(I refs of ours - I refs of none) / hands`` is evaluate_high's cost per call,
the same for treys on the same joker-free hands (each converted once, beforehand, with
``Card.new``), and the ratio of the two is the instructions' answer to ``ratio
evaluate_high/treys``. It ignores what instructions do not show (cache misses, branches
mispredicted), so it complements the timed ratio rather than replacing it.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from treys import Card as TreysCard  # noqa: E402
from treys import Evaluator  # noqa: E402

from rounds.paigow import DECK, evaluate_high  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("evaluator", choices=["ours", "treys", "none"])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(7)
    hands = [tuple(rng.sample(DECK[:52], 5)) for _ in range(args.hands)]
    # Built whatever the evaluator, so that every run's set-up is the same.
    treys_hands = [([TreysCard.new(c.code[0] + c.code[1].lower()) for c in h[:2]],
                    [TreysCard.new(c.code[0] + c.code[1].lower()) for c in h[2:]])
                   for h in hands]
    treys_evaluate = Evaluator().evaluate
    for _ in range(args.passes):
        if args.evaluator == "ours":
            [evaluate_high(h) for h in hands]
        elif args.evaluator == "treys":
            [treys_evaluate(hand, board) for hand, board in treys_hands]
    print(f"{args.evaluator}: {args.hands * args.passes if args.evaluator != 'none' else 0} "
          "evaluations")


if __name__ == "__main__":
    main()
