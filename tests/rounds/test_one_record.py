"""One record, read everywhere (docs/architecture.md): the round's locks live in one module,
each step returns what it changed, and every door renders the one reader's answer.

Read from the source, so a new module is checked whether or not a test imports it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("casino", "ledger", "rounds", "reports")


def _sources(*apps: str) -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text() for app in apps
            for p in sorted((ROOT / app).rglob("*.py")) if "migrations" not in p.parts}


def test_play_locks_rows_only_in_rounds_locks():
    lockers = {path for path, text in _sources("rounds").items()
               if re.search(r"\.select_for_update\(", text)}

    assert lockers == {"rounds/locks.py"}


def test_no_step_answers_for_a_caller_and_no_reader_guesses_what_it_holds():
    found = {path: word for path, text in _sources(*APPS).items()
             for word in ("for_answer", "hasattr(held", "wager_rows", "hand_rows",
                          "event_rows", "opened_by_username") if word in text}

    assert found == {}


def test_nothing_writes_rows_by_hand_or_drives_the_connections_pipeline():
    found = {path: word for path, text in _sources(*APPS).items()
             for word in ("INSERT INTO", "UPDATE \"", ".pipeline(", "write_rows",
                          "insert_row", "update_rows") if word in text}

    assert found == {}


def test_game_protection_is_applied_in_the_one_reader_only():
    # The words of the rule (which cards hide) appear where the rule is: the reader, and
    # the physical deal's draft, which is not yet a round's record.
    rule = {path for path, text in _sources(*APPS).items()
            if re.search(r"_DEALT_CARDS|hidden_positions|round_is_protected", text)}

    assert rule <= {"rounds/round_view.py", "rounds/services/deal_draft.py",
                    "rounds/screens/deal_picker.py", "rounds/api/deal_draft.py"}
