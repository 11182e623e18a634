"""The service stands on the libraries' public, documented API only (STYLE: supported ground).

A private name of Django, DRF, knox, psycopg or psycopg_pool (``_name``) may change or vanish in
any release, and a security fix to a copied method never reaches the copy. This test reads the
app code and the benches and fails on: a ``_name`` read or written on an object that our code
did not define (an attribute of ``self`` or ``cls``, a module's, a function's or class's of
ours); a ``_name`` imported from a library; ``getattr``/``setattr``/``hasattr`` with such a
name; and a class of ours (in the apps) that overrides a library class's ``_name`` method.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APPS = ("casino", "rounds", "ledger", "reports")
# The benches drive the same libraries (a scratch database, the connection, gunicorn): their
# text is read as well, but not imported (importing one sets Django up and may start work).
READ_ONLY = ("bench",)
LIBRARIES = ("django", "rest_framework", "knox", "psycopg", "psycopg_pool", "drf_spectacular",
             "axes", "celery")
# Underscored names the libraries document as public.
DOCUMENTED = {
    "_meta",            # Django's Model _meta API (docs: ref/models/meta)
    "_state",           # Model._state.adding / .db (docs: ref/models/instances)
    "_default_manager",  # Model._default_manager (docs: topics/db/managers)
    "_base_manager",    # Model._base_manager (docs: topics/db/managers)
    "_replace",         # namedtuple's own API
    "_asdict",
    "_fields",
}


def app_files(dirs: tuple[str, ...] = APPS) -> list[Path]:
    return sorted(p for app in dirs for p in (ROOT / app).rglob("*.py"))


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def our_names(trees: list[ast.Module]) -> set[str]:
    """The underscored attributes our code defines: its functions and classes, the names a
    module or a class body assigns, and attributes set on ``self`` or ``cls``. (Not local
    variables or arguments: a local ``_db`` must not excuse a library's ``qs._db``.)"""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            if isinstance(node, ast.Module | ast.ClassDef):
                for item in node.body:
                    targets = (item.targets if isinstance(item, ast.Assign)
                               else [item.target] if isinstance(item, ast.AnnAssign) else [])
                    names |= {t.id for t in targets if isinstance(t, ast.Name)}
            elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                  and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                names.add(node.attr)
    return {n for n in names if private(n)}


def findings() -> list[str]:
    files = app_files(APPS + READ_ONLY)
    trees = [ast.parse(p.read_text(), str(p)) for p in files]
    ours = our_names(trees)
    found = []
    for path, tree in zip(files, trees, strict=True):
        where = path.relative_to(ROOT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and private(node.attr):
                # An attribute we define ourselves is ours (self._x, module._x, ...), unless
                # it is written on someone else's object under a library's name.
                if node.attr not in ours and node.attr not in DOCUMENTED:
                    found.append(f"{where}:{node.lineno}: .{node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.module:
                top = node.module.split(".")[0]
                if top in LIBRARIES:
                    if any(private(part) for part in node.module.split(".")):
                        found.append(f"{where}:{node.lineno}: from {node.module}")
                    for alias in node.names:
                        if private(alias.name):
                            found.append(f"{where}:{node.lineno}: import {alias.name}")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
                  and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                  and isinstance(node.args[1].value, str) and private(node.args[1].value)
                  and node.args[1].value not in ours | DOCUMENTED):
                found.append(f"{where}:{node.lineno}: {node.func.id}(..., "
                             f"{node.args[1].value!r})")
    return found


def body_names(node: ast.ClassDef) -> set[str]:
    """The methods and class attributes a class's own body defines."""
    names = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            names |= {t.id for t in item.targets if isinstance(t, ast.Name)}
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
    return names


def overridden_private_methods() -> list[str]:
    """Classes of ours whose body defines a ``_name`` that a library base class has: an
    override of a library's internals."""
    found = []
    for path in app_files():
        # (casino/wsgi.py starts a server: it refuses without collected static files)
        if "migrations" in path.parts or path.name in ("wsgi.py", "asgi.py"):
            continue
        defined = {node.name: body_names(node)
                   for node in ast.walk(ast.parse(path.read_text()))
                   if isinstance(node, ast.ClassDef)}
        module = importlib.import_module(
            ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"))
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or cls.__name__ not in defined:
                continue
            library_bases = [b for b in cls.__mro__[1:]
                             if b.__module__.split(".")[0] in LIBRARIES]
            for name in defined[cls.__name__]:
                if private(name) and name not in DOCUMENTED and any(
                        hasattr(b, name) for b in library_bases):
                    found.append(f"{module.__name__}.{cls.__name__}.{name}")
    return found


def test_the_app_code_uses_no_private_name_of_a_library():
    assert findings() == []


def test_no_class_of_ours_overrides_a_library_classs_private_method():
    assert overridden_private_methods() == []


@pytest.mark.parametrize("code, expected", [
    ("qs._result_cache = rows", ".{}"),
    ("user._perm_cache = {'a'}", ".{}"),
    ("from django.db.models.query import _x", "import _x"),
    ("getattr(conn, '_pool', None)", "getattr(..., '_pool')"),
    # a local variable of ours by the same name does not excuse a library's attribute
    ("def f(qs):\n    _db = 1\n    return qs._db", ".{}"),
])
def test_the_scanner_finds_each_kind_of_private_use(tmp_path, monkeypatch, code, expected):
    # given an app file with one private use of a library
    app = tmp_path / "casino"
    app.mkdir()
    (app / "bad.py").write_text(code + "\n")
    monkeypatch.setattr("tests.test_supported_api.ROOT", tmp_path)
    # then the scanner names it
    name = code.split("._")[1].split(" ")[0] if "._" in code else ""
    assert any(expected.format("_" + name) in f for f in findings()), findings()
