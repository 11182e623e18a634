"""`manage.py paigow`: a thin shell over the engine."""

import json
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from rounds.paigow.edge import COUNTS_FILE, RESULT_SOURCES, edges_from_counts, read_counts_file


def run(*args: str) -> str:
    out = StringIO()
    call_command("paigow", *args, stdout=out)
    return out.getvalue()


def test_rank_takes_one_quoted_string_or_separate_words() -> None:
    assert "five_aces" in run("rank", "AS AH AD AC JK")
    assert "five_aces" in run("rank", "as", "ah", "ad", "ac", "jk")


def test_rank_of_a_low_hand() -> None:
    assert "one_pair (14)" in run("rank", "JK AS")


def test_rank_with_the_lowest_wheel() -> None:
    assert "straight (6 5 4 3 2)" in run("rank", "JK 2S 3H 4D 5C", "--wheel", "lowest")


def test_houseway_prints_the_setting_and_the_row() -> None:
    out = run("houseway", "AS JD TC 7H 5S 4D 2C")
    assert "high AS 7H 5S 4D 2C  low JD TC" in out
    assert "no pair" in out


def test_houseway_with_the_bands_way() -> None:
    out = run("houseway", "9S", "9D", "4C", "4H", "KS", "8D", "2C", "--way", "bands")
    assert "low KS 8D" in out


def test_showdown_of_the_seed_example() -> None:
    out = run("showdown", "5D 5C JD 8D 3D", "KD QD", "5S 5H TS 4S 2S", "KS QS")
    assert "high win, low copy: player push" in out


def test_showdown_as_fourteen_words() -> None:
    words = ("KC", "JC", "8C", "6C", "3C", "AD", "2D", "5S", "5H", "TS", "4S", "2S", "KS", "QS")
    out = run("showdown", *words)
    assert "player win" in out


def test_simulate_prints_probabilities_with_intervals() -> None:
    out = run("simulate", "--hands", "2000", "--seed", "3", "--workers", "1")
    assert "hands      2,000" in out
    assert "95% CI" in out and "player EV" in out


@pytest.mark.xdist_group("celery")
def test_simulate_on_celery_gives_the_same_counts_as_in_process(celery_worker) -> None:
    local = run("simulate", "--hands", "3000", "--seed", "8", "--workers", "1")
    chord = run("simulate", "--hands", "3000", "--seed", "8", "--celery")
    pick = [line for line in local.splitlines() if line.startswith(("win", "push", "loss"))]
    assert pick == [line for line in chord.splitlines() if line.startswith(("win", "push",
                                                                            "loss"))]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("rank", "AS KD XX"), "cannot read card 'XX'"),
        (("rank", "AS AS KD QD JD"), "same card twice"),
        (("rank", "AS KD QD"), "5 cards .* or 2"),
        (("houseway", "AS KD QD"), "expected 7 cards"),
        (("showdown", "AS 7C 5D 4H 2H", "JD TC", "5S 5H TS 4S 2H", "KS QS"), "same card: 2H"),
        (("showdown", "JS 7C 5D 4H 2H", "AD TC", "5S 5H TS 4S 3S", "KS QS"), "foul"),
    ],
)
def test_bad_input_is_a_command_error_with_a_clear_message(args: tuple, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_edges_remakes_the_runs_of_every_way_and_wheel(tmp_path) -> None:
    out = tmp_path / "runs.json"
    said = run("edges", "--hands", "300", "--default-hands", "500", "--workers", "1",
               "--out", str(out))

    made = json.loads(out.read_text())
    runs = made["runs"]
    assert set(runs) == {"bands/lowest", "bands/second_highest", "foxwoods/lowest",
                         "foxwoods/second_highest"}
    assert runs["foxwoods/second_highest"]["hands"] == 500 and runs["bands/lowest"]["hands"] == 300
    assert "foxwoods/second_highest: 500 hands" in said
    # Seeded by way and wheel: the same plan gives the same counts.
    again = tmp_path / "again.json"
    run("edges", "--hands", "300", "--default-hands", "500", "--workers", "1",
        "--out", str(again))
    assert json.loads(again.read_text()) == made
    assert edges_from_counts(runs["bands/lowest"], 0.05).hands == 300
    # What the verification needs is written with the runs, so a remade file verifies.
    assert runs["bands/lowest"]["first_chunk"]["hands"] == 300
    assert set(made["sources"]) == set(RESULT_SOURCES)
    assert run("edges", "--verify", "--file", str(out)).endswith("OK\n")


# --- edges --verify: the committed runs are what the game gives ----------------------------

def committed_copy(tmp_path: Path, change: Callable[[dict], None]) -> Path:
    """A copy of the committed counts file, with ``change`` made to it."""
    data = read_counts_file(COUNTS_FILE)
    change(data)
    copy = tmp_path / "edge_counts.json"
    copy.write_text(json.dumps(data))
    return copy


def test_edges_verify_plays_a_committed_runs_first_chunk_again() -> None:
    said = run("edges", "--verify", "--runs", "foxwoods/second_highest")

    assert "sources: as when the runs were made" in said
    assert "foxwoods/second_highest: first chunk as recorded, 20,000 hands" in said
    assert said.endswith("OK\n")


def test_edges_verify_fails_naming_the_run_whose_first_chunk_is_not_what_it_recorded(
        tmp_path: Path) -> None:
    def one_win_more(data: dict) -> None:
        first = data["runs"]["bands/lowest"]["first_chunk"]
        first["win"] += 1
        first["loss"] -= 1

    off = committed_copy(tmp_path, one_win_more)
    out = StringIO()

    with pytest.raises(CommandError, match=r"not what the game gives now: bands/lowest$"):
        call_command("paigow", "edges", "--verify", "--runs", "bands/lowest", "--file",
                     str(off), stdout=out)
    assert "bands/lowest: its first chunk recorded 20,000 hands" in out.getvalue()
    assert "played again it gives" in out.getvalue()


def test_edges_verify_fails_naming_a_source_changed_since_the_runs_were_made(
        tmp_path: Path) -> None:
    def houseway_changed(data: dict) -> None:
        data["sources"]["houseway.py"] = "0" * 64

    changed = committed_copy(tmp_path, houseway_changed)
    out = StringIO()

    with pytest.raises(CommandError, match=r"not what the game gives now: the game's sources$"):
        call_command("paigow", "edges", "--verify", "--runs", "foxwoods/lowest", "--file",
                     str(changed), stdout=out)
    assert "sources: changed since the runs were made: houseway.py" in out.getvalue()
    # the run itself still plays as recorded: only the digest fails
    assert "foxwoods/lowest: first chunk as recorded" in out.getvalue()


def test_edges_verify_fails_on_a_file_without_the_seed_first_chunk_or_digest(
        tmp_path: Path) -> None:
    def as_files_were(data: dict) -> None:
        del data["sources"]
        for kept in data["runs"].values():
            del kept["first_chunk"], kept["chunk_size"]

    old = committed_copy(tmp_path, as_files_were)
    out = StringIO()

    with pytest.raises(CommandError, match=r"the game's sources, foxwoods/lowest$"):
        call_command("paigow", "edges", "--verify", "--runs", "foxwoods/lowest", "--file",
                     str(old), stdout=out)
    assert "the run records no chunk_size, first_chunk" in out.getvalue()


def test_edges_verify_of_an_unknown_run_says_which_there_are() -> None:
    with pytest.raises(CommandError, match=r"no run bands/highest .* it has bands/lowest"):
        run("edges", "--verify", "--runs", "bands/highest")


def test_edges_verify_of_a_file_of_the_older_shape_asks_for_it_to_be_remade(
        tmp_path: Path) -> None:
    # runs by key at the top, with no first chunk and no digest: as files were before
    older = tmp_path / "edge_counts.json"
    older.write_text(json.dumps({"foxwoods/second_highest": {
        "hands": 10_000_000, "win": 2_910_300, "push": 4_051_240, "loss": 3_038_460,
        "seed": "edge:foxwoods:second_highest", "way": "foxwoods",
        "wheel": "second_highest"}}))

    with pytest.raises(CommandError, match=r"holds no runs .* remake it"):
        run("edges", "--verify", "--file", str(older))
