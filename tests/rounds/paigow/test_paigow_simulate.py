"""The Monte Carlo simulation: deterministic with a seed whatever the number of workers."""

import pytest

from rounds.paigow import PaiGowError
from rounds.paigow.simulate import merge_counts, plan_chunks, simulate, simulate_chunk


def test_a_chunk_is_a_pure_function_of_its_arguments() -> None:
    first = simulate_chunk(2_000, 42, "foxwoods", "second_highest")
    assert first == simulate_chunk(2_000, 42, "foxwoods", "second_highest")
    assert first["win"] + first["push"] + first["loss"] == first["hands"] == 2_000
    assert first != simulate_chunk(2_000, 43, "foxwoods", "second_highest")


def test_chunks_merge_by_adding_counts() -> None:
    parts = [{"hands": 3, "win": 1, "push": 1, "loss": 1}, {"hands": 2, "win": 0, "push": 0,
                                                             "loss": 2}]
    assert merge_counts(parts) == {"hands": 5, "win": 1, "push": 1, "loss": 3}


def test_the_plan_depends_on_hands_and_seed_only() -> None:
    plan = plan_chunks(45_000, 9)
    assert [n for n, _ in plan] == [20_000, 20_000, 5_000]
    assert plan == plan_chunks(45_000, 9)
    assert len({s for _, s in plan}) == 3


def test_a_seeded_run_gives_the_same_counts_on_one_or_two_workers() -> None:
    one = simulate(25_000, seed=5, workers=1)
    two = simulate(25_000, seed=5, workers=2)
    assert (one.win, one.push, one.loss) == (two.win, two.push, two.loss)
    assert one.win + one.push + one.loss == 25_000


def test_results_have_confidence_intervals_and_plausible_figures() -> None:
    seen = []
    result = simulate(40_000, seed=1, workers=1, progress=lambda done, total: seen.append(done))
    assert seen[-1] == 40_000
    for estimate in (result.p_win, result.p_push, result.p_loss, result.ev):
        assert estimate.low < estimate.value < estimate.high
    # House way against house way, copies to the dealer: the player loses slightly more
    # than wins, pushes about four times in ten, and pays commission (figures well known).
    assert 0.35 < result.p_push.value < 0.45
    assert result.p_win.value < result.p_loss.value
    assert -0.06 < result.ev.value < 0.0
    assert result.hands_per_second > 0


def test_unknown_options_fail_before_any_work() -> None:
    with pytest.raises(PaiGowError, match="unknown house way"):
        simulate(10, way="nope")
    with pytest.raises(PaiGowError, match="unknown wheel rule"):
        simulate(10, wheel="nope")


def test_a_run_keeps_each_chunks_counts_in_the_order_of_its_plan() -> None:
    # The committed runs record their first chunk from here (rounds.paigow.edge): with
    # two workers the chunks finish in any order (the second, of one hand, first of all),
    # the kept ones are in the plan's.
    run = simulate(20_001, seed=7, workers=2)

    planned = [simulate_chunk(n, s) for n, s in plan_chunks(20_001, 7)]
    assert [c["hands"] for c in planned] == [20_000, 1]
    assert list(run.chunks) == planned
    assert merge_counts(run.chunks)["win"] == run.win
