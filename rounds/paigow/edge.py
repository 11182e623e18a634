"""The house edge of each position at a table, from the game's own play (rules §5, §6, §7.6).

Both hands are set by the house way, as the dealer sets the house's hand and as a player
who asks for the house way would: the edge is the game's, not a particular player's skill.
What the play gives is the chance of the three outcomes of one hand against the bank
(win, push, loss, from the hand's point of view); the money follows from them and the
commission actually taken on a win, so one run of hands serves every commission rate and
rounding (``edges_from_counts``).

Per unit wagered, with ``c`` the commission taken on a win of one unit:
- the player's result is ``1 - c`` with P(win), ``-1`` with P(loss), 0 on a push;
- the bank's result against that hand is the mirror: ``1 - c`` when the hand loses (the
  player-banker pays commission on the bank's net, which against one hand is that hand's
  wager), ``-1`` when it wins.
An edge is the position's expected LOSS per unit, positive when the position loses on
average: what the house counts as its theoretical win from a player in that position.

The outcome chances are not computed exactly (the two seven-card hands can be dealt in
about 10^16 ways): they are estimated by simulation, and every figure carries the 95 %
half-width of its estimate. ``COUNTS_FILE`` holds long runs for every house way and wheel
rule, committed so no request waits for them (``manage.py paigow edges`` remakes it).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final

from .simulate import Z95, Counts, simulate

COUNTS_FILE: Final = Path(__file__).with_name("edge_counts.json")


@dataclass(frozen=True)
class Edges:
    """A rule set's edges per unit wagered (fractions: 0.027 is 2.7 %)."""

    player: float            # a seat's expected loss per unit wagered against the bank
    banker: float            # the bank's expected loss per unit of action it covers
    player_variance: float   # variance of a seat's result per unit wagered
    banker_variance: float
    confidence: float        # 95 % half-width of the less certain of the two edges
    hands: int               # hands played to estimate them
    exact: bool = False      # True only for a figure worked out, not sampled


def edges_from_counts(counts: Counts, commission: float) -> Edges:
    """The edges of both positions from the outcomes of ``counts['hands']`` hands, with
    ``commission`` the fraction of a won unit the winner pays (0.05 at 5 %)."""
    n = counts["hands"]
    if n < 1:
        raise ValueError("no hands to estimate from")
    if not 0 <= commission < 1:
        raise ValueError(f"a commission is a fraction of a win, not {commission}")
    p_win, p_loss = counts["win"] / n, counts["loss"] / n
    paid = 1 - commission
    player_mean = p_win * paid - p_loss
    banker_mean = p_loss * paid - p_win
    player_var = max(p_win * paid * paid + p_loss - player_mean ** 2, 0.0)
    banker_var = max(p_loss * paid * paid + p_win - banker_mean ** 2, 0.0)
    half = Z95 * math.sqrt(max(player_var, banker_var) / n)
    return Edges(player=-player_mean, banker=-banker_mean, player_variance=player_var,
                 banker_variance=banker_var, confidence=half, hands=n)


def counts_key(way: str, wheel: str) -> str:
    return f"{way}/{wheel}"


@lru_cache(maxsize=4)
def _runs(path: Path, modified: int) -> dict[str, dict[str, int | str]]:
    # Read once per version of the file (``modified``: its mtime in ns), not per request.
    return dict(json.loads(path.read_text()))


def precomputed_counts(way: str, wheel: str) -> Counts | None:
    """The committed long run for a house way and wheel rule, or None if there is none."""
    try:
        data = _runs(COUNTS_FILE, COUNTS_FILE.stat().st_mtime_ns)
    except FileNotFoundError:
        return None
    found = data.get(counts_key(way, wheel))
    if found is None:
        return None
    return {k: int(found[k]) for k in ("hands", "win", "push", "loss")}


def simulated_counts(way: str, wheel: str, hands: int, seed: str) -> Counts:
    """A fresh run of ``hands`` hands in this process (seeded: the same seed gives the
    same counts, so a figure computed twice is the same figure)."""
    result = simulate(hands, way=way, wheel=wheel, seed=seed, workers=1)
    return {"hands": result.hands, "win": result.win, "push": result.push,
            "loss": result.loss}


def long_runs(hands: dict[tuple[str, str], int], workers: int | None = None
              ) -> dict[str, dict[str, int | str]]:
    """Seeded runs of ``hands[(way, wheel)]`` hands each, as COUNTS_FILE holds them; the
    seed names the way and wheel, so the same plan gives the same file on any machine."""
    out: dict[str, dict[str, int | str]] = {}
    for (way, wheel), n in sorted(hands.items()):
        seed = f"edge:{way}:{wheel}"
        r = simulate(n, way=way, wheel=wheel, seed=seed, workers=workers)
        out[counts_key(way, wheel)] = {"way": way, "wheel": wheel, "hands": r.hands,
                                       "win": r.win, "push": r.push, "loss": r.loss,
                                       "seed": seed}
    return out


def write_runs(runs: dict[str, dict[str, int | str]], path: Path = COUNTS_FILE) -> None:
    path.write_text(json.dumps(runs, indent=2, sort_keys=True) + "\n")
