"""Dependencies point one way (docs/architecture.md).

- the ledger uses only the pieces every app shares (``casino.shared``), so it could serve
  any table game: nothing of players, staff, tables, rounds or the game;
- ``casino.shared`` uses nothing of the project outside itself: not players and staff
  (the rest of ``casino``), not the ledger, not rounds;
- nothing reads the reports (``reports``), which read play, the ledger and the cage: not
  play (``rounds``), whose floor screen says in its own words (rounds.variance) which of
  today's tables lie outside their band, and of ``casino`` only the project's URLconfs,
  which wire in every app's routes;
- the game (``rounds.paigow``) is pure Python: nothing of the project outside itself, and
  no Django.

Read from the source with ``ast`` (imports inside functions and ``TYPE_CHECKING`` blocks
count too), so a module that is never imported by a test is checked all the same.
Migrations are Django's record of the schema and name other apps' tables: left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ("casino", "ledger", "rounds", "reports")
DJANGO = ("django", "rest_framework", "drf_spectacular", "knox", "axes", "celery")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, *, is_package: bool = False) -> Iterator[str]:
    """Every module ``source`` (the text of ``module``) imports, relative imports resolved."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            yield name
            # `from casino import services` imports the module casino.services.
            yield from (f"{name}.{alias.name}" for alias in node.names if alias.name != "*")


def _files(package: str) -> Iterator[Path]:
    for path in sorted((ROOT / package.replace(".", "/")).rglob("*.py")):
        if "migrations" not in path.parts:
            yield path


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def violations(package: str, allowed: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    """``file: import`` for each import of ``forbidden`` packages outside ``allowed`` ones."""
    files = list(_files(package))
    assert files, f"{package} has no module: a check of nothing cannot fail"
    found = []
    for path in files:
        module = _module_name(path)
        names = set(imports_of(path.read_text(encoding="utf-8"), module,
                               is_package=path.name == "__init__.py"))
        for name in sorted(names):
            if any(_within(name, f) for f in forbidden) and not any(
                    _within(name, a) for a in allowed):
                found.append(f"{path.relative_to(ROOT)}: {name}")
    return found


def test_the_ledger_uses_only_the_shared_pieces() -> None:
    assert violations("ledger", allowed=("ledger", "casino.shared"), forbidden=PROJECT) == []


def test_the_shared_pieces_use_nothing_of_players_staff_ledger_or_rounds() -> None:
    assert violations("casino.shared", allowed=("casino.shared",), forbidden=PROJECT) == []


def test_play_does_not_read_the_reports() -> None:
    assert violations("rounds", allowed=("rounds",), forbidden=("reports",)) == []


# The modules of casino that name the reports, and why (module docstring).
PROJECT_URLCONFS = ("casino/urls.py", "casino/api/urls.py")


def test_the_cage_players_and_staff_do_not_read_the_reports_but_the_urlconfs() -> None:
    found = violations("casino", allowed=("casino",), forbidden=("reports",))
    assert found, "the URLconfs include the reports' routes: a check that finds nothing is broken"
    assert [f for f in found if not f.startswith(PROJECT_URLCONFS)] == []


def test_the_game_uses_nothing_of_the_project_nor_django() -> None:
    assert violations("rounds.paigow", allowed=("rounds.paigow",),
                      forbidden=(*PROJECT, *DJANGO)) == []


# --- the checks can fail ---------------------------------------------------------------------

@pytest.mark.parametrize(("source", "module", "expected"), [
    ("import casino.models", "ledger.x", {"casino.models"}),
    ("from casino import services", "ledger.x", {"casino", "casino.services"}),
    ("from ..models import Player", "casino.shared.api.x", {"casino.shared.models",
                                                            "casino.shared.models.Player"}),
    ("from . import errors", "casino.shared", {"casino.shared", "casino.shared.errors"}),
    ("def f():\n    from rounds.models import Round\n", "ledger.x",
     {"rounds.models", "rounds.models.Round"}),
])
def test_imports_are_read_with_relative_and_nested_ones(source: str, module: str,
                                                       expected: set[str]) -> None:
    is_package = module == "casino.shared"
    assert set(imports_of(source, module, is_package=is_package)) == expected


def test_a_forbidden_import_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # given a made-up tree where the game imports Django and the ledger imports players
    (tmp_path / "rounds" / "paigow").mkdir(parents=True)
    (tmp_path / "rounds" / "paigow" / "cards.py").write_text("from django.db import models\n")
    (tmp_path / "ledger" / "migrations").mkdir(parents=True)
    (tmp_path / "ledger" / "views.py").write_text(
        "from casino.shared.errors import NotFound\nfrom casino.models import Player\n")
    (tmp_path / "ledger" / "migrations" / "0001.py").write_text("import casino.models\n")
    # and play's floor screen reads a report, inside a function
    (tmp_path / "rounds" / "screens").mkdir(parents=True)
    (tmp_path / "rounds" / "screens" / "views.py").write_text(
        "from rounds import services\n\ndef floor():\n    from reports.play import day\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT", tmp_path)
    # then
    assert violations("rounds.paigow", ("rounds.paigow",), DJANGO) == [
        "rounds/paigow/cards.py: django.db", "rounds/paigow/cards.py: django.db.models"]
    assert violations("ledger", ("ledger", "casino.shared"), PROJECT) == [
        "ledger/views.py: casino.models", "ledger/views.py: casino.models.Player"]
    assert violations("rounds", ("rounds",), ("reports",)) == [
        "rounds/screens/views.py: reports.play", "rounds/screens/views.py: reports.play.day"]
