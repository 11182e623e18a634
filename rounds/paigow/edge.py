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
rule, committed so no request waits for them (``manage.py paigow edges`` remakes it). With
each run it keeps the run's seed and the counts of its first chunk, and for the whole file a
digest of the sources that decide a hand's result (``RESULT_SOURCES``), so that
``manage.py paigow edges --verify`` can tell a file the game no longer gives (``verify_run``,
``changed_sources``).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from .simulate import CHUNK_SIZE, Z95, Counts, plan_chunks, simulate, simulate_chunk

COUNTS_FILE: Final = Path(__file__).with_name("edge_counts.json")
OUTCOMES: Final = ("hands", "win", "push", "loss")

# The modules of this package whose code decides the outcome of the hands the runs play, so
# that a change to any of them may change the counts:
# - cards.py: the deck the hands are drawn from, in the order the seeded draw picks from,
#   and the cards' canonical order;
# - evaluate.py: the ranking of five- and two-card hands and the wheel rules;
# - setting.py and houseway.py: how both hands are set (houseway builds on setting's splits);
# - showdown.py: the rule of section 5 (copies to the banker); simulate.py plays it inline
#   for speed, so a change there means the inline copy and the runs must be looked at again;
# - simulate.py: the draw, the chunks and their seeds, and the inline showdown.
# Left out, as they change no hand's result: deal.py (which stack a position receives: the
# runs draw each pair of hands straight from the deck, and a fair shuffle gives the same
# chances), rotation.py (who banks), errors.py (messages) and this module (it turns counts
# into edges when they are read, so a change here is live at once and never stale).
RESULT_SOURCES: Final = ("cards.py", "evaluate.py", "setting.py", "houseway.py",
                         "showdown.py", "simulate.py")


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
def _runs(path: Path, modified: int) -> dict[str, dict[str, Any]]:
    # Read once per version of the file (``modified``: its mtime in ns), not per request.
    return dict(read_counts_file(path)["runs"])


def read_counts_file(path: Path = COUNTS_FILE) -> dict[str, Any]:
    """The file as written by ``write_runs``: ``runs`` by ``counts_key``, and ``sources``,
    the digest of each of RESULT_SOURCES when the runs were made."""
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
    return {k: int(found[k]) for k in OUTCOMES}


def simulated_counts(way: str, wheel: str, hands: int, seed: str) -> Counts:
    """A fresh run of ``hands`` hands in this process (seeded: the same seed gives the
    same counts, so a figure computed twice is the same figure)."""
    result = simulate(hands, way=way, wheel=wheel, seed=seed, workers=1)
    return {"hands": result.hands, "win": result.win, "push": result.push,
            "loss": result.loss}


def long_runs(hands: dict[tuple[str, str], int], workers: int | None = None
              ) -> dict[str, dict[str, Any]]:
    """Seeded runs of ``hands[(way, wheel)]`` hands each, as COUNTS_FILE holds them; the
    seed names the way and wheel, so the same plan gives the same file on any machine.
    Each run keeps its first chunk's counts, which ``verify_run`` plays again."""
    out: dict[str, dict[str, Any]] = {}
    for (way, wheel), n in sorted(hands.items()):
        seed = f"edge:{way}:{wheel}"
        r = simulate(n, way=way, wheel=wheel, seed=seed, workers=workers)
        out[counts_key(way, wheel)] = {"way": way, "wheel": wheel, "hands": r.hands,
                                       "win": r.win, "push": r.push, "loss": r.loss,
                                       "seed": seed, "chunk_size": CHUNK_SIZE,
                                       "first_chunk": r.chunks[0]}
    return out


def write_runs(runs: dict[str, dict[str, Any]], path: Path = COUNTS_FILE) -> None:
    data = {"runs": runs, "sources": sources_digest()}
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def sources_digest() -> dict[str, str]:
    """The SHA-256 of each of RESULT_SOURCES as it is now."""
    here = Path(__file__).parent
    return {name: hashlib.sha256((here / name).read_bytes()).hexdigest()
            for name in RESULT_SOURCES}


def changed_sources(recorded: dict[str, str] | None) -> list[str]:
    """The sources deciding a hand's result whose digest is not the one ``recorded`` when
    the runs were made (a source added to or left out of RESULT_SOURCES since counts as
    changed); every one of them when nothing was recorded."""
    now = sources_digest()
    recorded = recorded or {}
    return sorted(name for name in now.keys() | recorded.keys()
                  if now.get(name) != recorded.get(name))


def verify_run(run: dict[str, Any]) -> list[str]:
    """What is wrong with a committed run, in words (nothing when it holds): its first
    chunk, played again from the run's seed by the sources as they are now, must give
    exactly the counts the run recorded for it."""
    missing = [k for k in (*OUTCOMES, "way", "wheel", "seed", "chunk_size", "first_chunk")
               if k not in run]
    if missing:
        return [f"the run records no {', '.join(missing)}: remake the file "
                "(manage.py paigow edges)"]
    problems = []
    if sum(int(run[k]) for k in ("win", "push", "loss")) != int(run["hands"]):
        problems.append(f"its wins, pushes and losses do not add up to its {run['hands']:,} "
                        "hands")
    hands, seed = plan_chunks(int(run["hands"]), run["seed"], int(run["chunk_size"]))[0]
    recorded = {k: int(run["first_chunk"][k]) for k in OUTCOMES}
    played = simulate_chunk(hands, seed, run["way"], run["wheel"])
    if played != recorded:
        problems.append(f"its first chunk recorded {_counts(recorded)}; played again it "
                        f"gives {_counts(played)}")
    return problems


def _counts(c: Counts) -> str:
    return f"{c['hands']:,} hands, {c['win']:,} won, {c['push']:,} pushed, {c['loss']:,} lost"
