"""The house edge from the game's own play (rounds.paigow.edge)."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from rounds.paigow import edge as edge_module
from rounds.paigow.edge import (
    RESULT_SOURCES,
    changed_sources,
    edges_from_counts,
    precomputed_counts,
    simulated_counts,
    sources_digest,
)
from rounds.paigow.evaluate import WHEEL_RULES
from rounds.paigow.houseway import HOUSE_WAYS


def test_a_worked_example_of_the_edges_from_counts() -> None:
    # 30 wins, 40 pushes, 30 losses in 100 hands at 5 %: a win pays 0.95.
    e = edges_from_counts({"hands": 100, "win": 30, "push": 40, "loss": 30}, 0.05)

    assert e.player == pytest.approx(0.3 - 0.3 * 0.95)          # 0.015
    assert e.banker == pytest.approx(0.3 - 0.3 * 0.95)          # the mirror: the same here
    assert e.player_variance == pytest.approx(0.3 * 0.95 ** 2 + 0.3 - 0.015 ** 2)
    assert e.confidence == pytest.approx(1.959963984540054 * math.sqrt(e.player_variance / 100))
    assert not e.exact


def test_the_bank_gains_the_copies_the_player_loses() -> None:
    # Without commission the player's loss is the bank's gain, hand for hand.
    e = edges_from_counts({"hands": 1000, "win": 280, "push": 420, "loss": 300}, 0.0)

    assert e.player == pytest.approx(0.02)
    assert e.banker == pytest.approx(-0.02)


def test_the_committed_default_edge_is_in_the_published_range() -> None:
    # Published figures for a player against a house bank at 5 % commission, both setting
    # the house way: about 1.5 % to 2.9 % (2.7 % or so for the Foxwoods way).
    counts = precomputed_counts("foxwoods", "second_highest")
    assert counts is not None and counts["hands"] >= 1_000_000
    e = edges_from_counts(counts, 0.05)

    assert 0.015 < e.player < 0.029
    assert e.confidence < 0.001
    # Heads-up, a player-banker about breaks even: the copies it wins pay its commission.
    assert -0.01 < e.banker < 0.01


@pytest.mark.parametrize("way", sorted(HOUSE_WAYS))
@pytest.mark.parametrize("wheel", sorted(WHEEL_RULES))
def test_every_way_and_wheel_has_a_committed_run(way: str, wheel: str) -> None:
    counts = precomputed_counts(way, wheel)

    assert counts is not None
    assert counts["win"] + counts["push"] + counts["loss"] == counts["hands"]


def test_a_short_run_agrees_with_the_committed_one_within_its_confidence() -> None:
    short = edges_from_counts(simulated_counts("foxwoods", "second_highest", 20_000,
                                               "edge-test"), 0.05)
    long = precomputed_counts("foxwoods", "second_highest")
    assert long is not None

    assert abs(short.player - edges_from_counts(long, 0.05).player) < 2 * short.confidence


def _imported_here(module: str) -> set[str]:
    """The modules of rounds.paigow that ``module`` imports, directly or through others."""
    package = Path(edge_module.__file__).parent
    found: set[str] = set()
    todo = [module]
    while todo:
        tree = ast.parse((package / todo.pop()).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                name = f"{node.module}.py"
                if name not in found:
                    found.add(name)
                    todo.append(name)
    return found


def test_the_digest_covers_every_module_the_runs_play_by() -> None:
    # A module the simulation comes to import (a house way split out of houseway.py) must
    # join the digest, or a change to it would leave the committed runs stale unnoticed;
    # errors.py holds messages only.
    played_by = _imported_here("simulate.py") - {"errors.py"}

    assert played_by <= set(RESULT_SOURCES)
    # The showdown's rule is played inline by the simulation: its source counts too.
    assert {"simulate.py", "showdown.py"} <= set(RESULT_SOURCES)
    assert set(sources_digest()) == set(RESULT_SOURCES)


def test_a_changed_or_unrecorded_source_is_named() -> None:
    now = sources_digest()

    assert changed_sources(now) == []
    assert changed_sources({**now, "evaluate.py": "0" * 64}) == ["evaluate.py"]
    assert changed_sources({k: v for k, v in now.items() if k != "cards.py"}) == ["cards.py"]
    assert changed_sources(None) == sorted(RESULT_SOURCES)
