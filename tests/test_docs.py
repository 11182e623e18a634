"""The docs say what the code does.

Every function the README and docs/ name exists in the code; the ledger's service list is
the code's signatures; the table settings in docs/rules.md are the Table model's fields
with their defaults and choices; every relative link resolves inside the repository; and
nothing in the repository points at a rules page outside it. Each check has a self-check
on made-up text, so a check that can no longer fail shows up.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.apps import apps
from django.db import models

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
APPS = ("casino", "rounds", "ledger", "reports")
APP = "|".join(APPS)  # for the patterns below
# Top-level folders of the repository whose paths the docs may name in backticks.
TRACKED_DIRS = ("casino", "rounds", "ledger", "reports", "tests", "docs", "docker", "bench",
                ".ci")

# A bare name in backticks counts as a function when it reads <noun>_<verb>: the nouns and
# verbs below, together with those of the code's own service and selector functions.
NOUNS = {"account", "entry", "hold", "holds", "round", "wager", "banker", "hand", "table",
         "seat", "player", "staff", "idempotency"}
VERBS = {"create", "update", "delete", "open", "close", "get", "find", "list", "lock", "post",
         "reverse", "place", "release", "capture", "clear", "rebet", "set", "deal", "settle",
         "void", "take", "leave", "deposit", "withdraw", "rename", "purge", "register",
         "balance", "check", "start", "end", "move", "summary"}


def _page_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _without_fences(text: str) -> str:
    return re.sub(r"```.*?```", "", text, flags=re.S)


# --- what the code defines -----------------------------------------------------------------

@cache
def _project_modules() -> dict[str, ModuleType]:
    found: dict[str, ModuleType] = {}
    for app in APPS:
        package = importlib.import_module(app)
        found[app] = package
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{app}."):
            if ".migrations" in info.name:
                continue
            try:
                found[info.name] = importlib.import_module(info.name)
            except ModuleNotFoundError as exc:
                # An optional third-party extra (the embedded server) may be absent.
                if exc.name and exc.name.split(".")[0] in APPS:
                    raise
    return found


@cache
def _project_functions() -> frozenset[str]:
    names = set()
    for name, module in _project_modules().items():
        for attr, value in vars(module).items():
            if inspect.isfunction(value) and value.__module__ == name:
                names.add(attr)
    return frozenset(names)


@cache
def _service_words() -> tuple[frozenset[str], frozenset[str]]:
    """Nouns and verbs of the public functions in services, selectors and money modules."""
    nouns, verbs = set(NOUNS), set(VERBS)
    for name, module in _project_modules().items():
        if not re.search(r"\.(services|selectors|money)(\.|$)", name):
            continue
        for attr, value in vars(module).items():
            if (inspect.isfunction(value) and value.__module__ == name
                    and not attr.startswith("_") and "_" in attr):
                words = attr.split("_")
                nouns.add(words[0])
                verbs.add(words[-1])
    return frozenset(nouns), frozenset(verbs)


@cache
def _permission_labels() -> frozenset[str]:
    labels: set[str] = set()
    for model in apps.get_models():
        meta = model._meta
        labels.update(f"{meta.app_label}.{codename}" for codename, _ in meta.permissions)
        labels.update(f"{meta.app_label}.{action}_{meta.model_name}"
                      for action in meta.default_permissions)
    return frozenset(labels)


@cache
def _task_names() -> frozenset[str]:
    from casino.celery import app

    _project_modules()  # imports every tasks module, which registers its tasks
    app.finalize()
    return frozenset(app.tasks)


def _resolves(dotted: str) -> bool:
    """A dotted name under an app: a module, an attribute of one, a permission or a task."""
    if dotted in _permission_labels() or dotted in _task_names():
        return True
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(target, attr):
                return False
            target = getattr(target, attr)
        return True
    return False


# --- what the docs name --------------------------------------------------------------------

def _names_in(text: str) -> tuple[set[str], set[str]]:
    """(functions, dotted names under an app) written in backticks outside code blocks."""
    nouns, verbs = _service_words()
    functions, dotted = set(), set()
    for span in re.findall(r"`([^`\n]+)`", _without_fences(text)):
        span = span.strip()
        call = re.match(r"([A-Za-z_][\w.]*)\(", span)
        bare = re.fullmatch(r"[a-z]+(?:_[a-z]+)+", span)
        name = call.group(1) if call else span
        if re.search(r"\.(?:md|py|ya?ml|toml|txt|json|lock)$", name):
            continue  # a file name such as ledger.md
        if re.fullmatch(r"\w+\.[CEWI]\d{3}", name):
            continue  # a system check's id such as casino.W001
        if re.fullmatch(rf"(?:{APP})(?:\.\w+)+", name):
            dotted.add(name)
        elif "." in name:
            continue
        elif (call or bare) and "_" in name:
            words = name.split("_")
            if words[0] in nouns and (call or words[-1] in verbs):
                functions.add(name)
    return functions, dotted


def _missing_names(text: str) -> set[str]:
    functions, dotted = _names_in(text)
    return ({f for f in functions if f not in _project_functions()}
            | {d for d in dotted if not _resolves(d)})


def _paths_in(text: str) -> set[str]:
    spans = re.findall(r"`([^`\n]+)`", _without_fences(text))
    return {s.rstrip("/") for s in spans
            if re.fullmatch(r"[\w.\-]+(?:/[\w.\-]+)+/?", s) and s.split("/")[0] in TRACKED_DIRS}


def _broken_links(text: str, page: Path) -> set[str]:
    broken = set()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        if not path.exists() or not path.is_relative_to(ROOT):
            broken.add(target)
    return broken


def _signature_of(function: Any) -> str:
    parts, star = [], False
    for param in inspect.signature(function).parameters.values():
        if param.kind is param.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        parts.append(param.name if param.default is param.empty
                     else f"{param.name}={param.default!r}")
    returns = inspect.signature(function).return_annotation
    return f"{function.__name__}({', '.join(parts)}) -> {returns}"


def _listed_signatures(text: str) -> dict[str, list[str]]:
    """Module -> the signature lines listed under its `# module` header in python blocks."""
    listed: dict[str, list[str]] = {}
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        module = None
        for line in block.splitlines():
            header = re.fullmatch(rf"#\s*((?:{APP})(?:\.\w+)+)\s*", line)
            if header:
                module = header.group(1)
                listed.setdefault(module, [])
            elif module and re.match(r"\w+\(", line):
                listed[module].append(line.split("  #")[0].strip().replace('"', "'"))
    return listed


def _signature_problems(text: str) -> list[str]:
    problems = []
    for module_name, lines in _listed_signatures(text).items():
        module = importlib.import_module(module_name)
        public = {name: value for name, value in vars(module).items()
                  if inspect.isfunction(value) and value.__module__ == module_name
                  and not name.startswith("_")}
        written = {line.split("(")[0]: line for line in lines}
        for name, line in written.items():
            if name not in public:
                problems.append(f"{module_name}.{name} does not exist")
            elif _signature_of(public[name]) != line:
                problems.append(f"{module_name}: docs say {line}; code has "
                                f"{_signature_of(public[name])}")
        problems += [f"{module_name}.{name} is not listed" for name in public
                     if name not in written]
    return problems


# --- the table settings of docs/rules.md ---------------------------------------------------

def _table_model() -> type[models.Model]:
    (model,) = [m for m in apps.get_models() if m.__name__ == "Table"]
    return model


def _settings_rows(text: str) -> dict[str, tuple[str, set[str]]]:
    """setting -> (default, other values) from the table under '## Table settings'."""
    section = text.split("## Table settings", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.fullmatch(r"`\w+`", cells[0]):
            rows[cells[0].strip("`")] = (cells[1].strip("`"),
                                        set(re.findall(r"`([^`]+)`", cells[2])))
    return rows


def _shown(field: models.Field[Any, Any], value: Any) -> str:
    from casino.shared.money import format_minor

    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:  # an optional setting, off by default
        return "none"
    if field.name == "collection_banker":  # the bank's fee bands, in words
        from rounds.rules import fee_bands_text

        currency = next(f for f in _table_model()._meta.concrete_fields
                        if f.name == "currency").get_default()
        return fee_bands_text(value, currency)
    if isinstance(value, list | tuple):  # a set of choices, written "a, b"
        return ", ".join(str(v) for v in value)
    if isinstance(field, models.BigIntegerField):
        currency = next(f for f in _table_model()._meta.concrete_fields
                        if f.name == "currency").get_default()
        return format_minor(value, currency)
    return str(value)


def _allowed(field: models.Field[Any, Any]) -> set[str] | None:
    base = getattr(field, "base_field", None)  # an ArrayField: its items' choices
    if base is not None and base.choices:
        return {str(value) for value, _ in base.flatchoices}
    if field.choices:
        return {str(value) for value, _ in field.flatchoices}
    if isinstance(field, models.BooleanField):
        return {"true", "false"}
    if field.name == "house_way":
        from rounds.paigow import HOUSE_WAYS

        return set(HOUSE_WAYS)
    return None


def _settings_problems(text: str) -> list[str]:
    model = _table_model()
    fields = {field.name: field for field in model._meta.concrete_fields}
    rows = _settings_rows(text)
    problems = []
    for name, (default, others) in rows.items():
        field = fields.get(name)
        if field is None:
            problems.append(f"{name}: no such field on {model.__name__}")
            continue
        if not field.has_default():
            problems.append(f"{name}: the field has no default")
            continue
        if _shown(field, field.get_default()) != default:
            problems.append(f"{name}: docs say {default}, code has "
                            f"{_shown(field, field.get_default())}")
        allowed = _allowed(field)
        listed = {default, *others}
        if getattr(field, "base_field", None) is not None:
            listed = {*default.split(", "), *others}
        if allowed is not None and listed != allowed:
            problems.append(f"{name}: docs list {sorted({default, *others})}, code allows "
                            f"{sorted(allowed)}")
    problems += [f"{name}: a setting with a default that docs/rules.md does not list"
                 for name, field in fields.items() if field.has_default() and name not in rows]
    return problems


# --- files that point outside the repository ----------------------------------------------

OUTSIDE = re.compile(r"\.\./" + "shared" + r"\b|\bshared/(?:rules|seeds)/")
# Folders that are not the project's (tools, caches, local data) and the local .env.
SKIPPED = {".git", ".venv", ".tools", ".data", "__pycache__", ".mypy_cache", ".ruff_cache",
           ".pytest_cache", ".hypothesis", "node_modules", ".env"}


def _repository_files() -> list[Path]:
    files = []
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [s for s in subfolders if s not in SKIPPED]
        files += [Path(folder) / name for name in names if name not in SKIPPED]
    return files


def _mentions_outside(text: str) -> bool:
    return OUTSIDE.search(text) is not None


# --- the checks ----------------------------------------------------------------------------

@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_function_the_docs_name_exists(page: Path) -> None:
    assert _missing_names(_page_text(page)) == set()


def test_the_docs_name_the_round_steps_and_the_ledger_services() -> None:
    # The scan itself finds what the pages are known to name, so it cannot go blind.
    named = set()
    for page in PAGES:
        named |= _names_in(_page_text(page))[0]

    assert {"round_open", "wager_place", "banker_set", "round_deal", "hand_set",
            "round_settle", "entry_post", "hold_capture", "account_balance"} <= named


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_path_the_docs_name_exists(page: Path) -> None:
    missing = {p for p in _paths_in(_page_text(page)) if not (ROOT / p).exists()}

    assert missing == set()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_points_at_a_file_in_the_repository(page: Path) -> None:
    assert _broken_links(_page_text(page), page) == set()


def test_the_ledger_services_listed_are_the_codes_signatures() -> None:
    text = _page_text(ROOT / "docs" / "ledger.md")

    assert set(_listed_signatures(text)) == {"ledger.services", "ledger.selectors",
                                             "casino.shared.money"}
    assert _signature_problems(text) == []


def test_every_table_setting_is_in_the_rules_page_with_the_codes_default() -> None:
    text = _page_text(ROOT / "docs" / "rules.md")

    assert len(_settings_rows(text)) >= 12
    assert _settings_problems(text) == []


def test_no_file_points_outside_the_repository() -> None:
    files = _repository_files()
    offending = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if _mentions_outside(text):
            offending.append(str(path.relative_to(ROOT)))

    assert any(f.name == "README.md" for f in files)
    assert offending == []


# --- self-checks: each check reports what it should ---------------------------------------

def test_self_check_a_made_up_function_or_module_is_reported() -> None:
    text = ("Call `round_close(*, round_id)`, then `wager_explode`, "
            "`casino.shared.money.to_cents()` and `rounds.nowhere.thing`; `round_settle` and "
            "`casino.shared.money.to_minor` are real, "
            "`hands_not_set` is an error code and `select_for_update()` is Django's.")

    assert _missing_names(text) == {"round_close", "casino.shared.money.to_cents",
                                    "rounds.nowhere.thing"}
    assert "wager_explode" not in _names_in(text)[0]  # "explode" reads as no verb
    assert _missing_names("`wager_explode()`") == {"wager_explode"}


def test_self_check_broken_and_outside_links_are_reported() -> None:
    page = ROOT / "README.md"
    text = ("[ok](docs/rules.md) [gone](docs/nowhere.md) [out](../README.md) "
            "[web](https://example.org/x.md) [anchor](#top)")

    assert _broken_links(text, page) == {"docs/nowhere.md", "../README.md"}


def test_self_check_a_wrong_signature_and_an_unlisted_service_are_reported() -> None:
    text = ("```python\n# casino.shared.money\nto_minor(value, currency) -> int\n"
            "format_minor(amount) -> str\nto_cents(value) -> int\n```\n")

    problems = _signature_problems(text)

    assert any("format_minor" in p and "docs say" in p for p in problems)
    assert any("to_cents does not exist" in p for p in problems)
    assert any("minor_digits is not listed" in p for p in problems)
    assert not any(p.startswith("casino.shared.money: docs say to_minor") for p in problems)


def test_self_check_a_wrong_default_or_a_missing_setting_is_reported() -> None:
    text = ("## Table settings\n\n| setting | default | other values |\n|---|---|---|\n"
            "| `min_bet` | `3.00` | |\n| `wheel` | `second_highest` | |\n"
            "| `dice` | `3` | |\n\n## 1. Cards\n")

    problems = _settings_problems(text)

    assert any(p.startswith("min_bet: docs say 3.00") for p in problems)
    assert any(p.startswith("wheel: docs list") for p in problems)
    assert any(p.startswith("dice: no such field") for p in problems)
    assert any(p.startswith("max_bet: a setting") for p in problems)


def test_self_check_a_mention_of_the_outside_rules_page_is_found() -> None:
    assert _mentions_outside("see " + "../" + "shared" + "/rules/paigow.md")
    assert _mentions_outside("rules in " + "shared/" + "rules/paigow.md")
    assert not _mentions_outside("see docs/rules.md and the shared pieces in casino/")
