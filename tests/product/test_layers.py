"""The package's imports flow one way: no module imports one of a higher layer, and no modules
import each other round in a circle (docs/architecture.md draws the layers).

Every import counts, at the top of a module or inside a function: a deferred import is still a
dependency, and only hides a circle from Python.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support import ROOT

PACKAGE = ROOT / "symdyn"

# Lowest first. A module may import from its own layer and those below; peers in one layer
# (robot and program, derive and emit) know nothing of each other.
LAYERS = (
    ("errors", "version", "resources", "spatial"),
    ("robot", "program"),
    ("derive", "emit"),
    ("report", "api"),
    ("identify",),
    ("reference", "check"),
    ("cli", "__init__", "__main__"),
)
PEERS_APART = {("robot", "program"), ("program", "robot"), ("derive", "emit"),
               ("emit", "derive"), ("report", "api"), ("api", "report")}


def modules() -> dict[str, Path]:
    """symdyn.x.y -> its file, for every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(name: str, path: Path, known) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] \
                if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            # `from . import cache` names a module; `from .x import f` names something in x
            targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module
                       for alias in node.names]
        else:
            continue
        out |= {t for t in targets if t in known and t != name}
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def layer_of(name: str) -> tuple[int, str]:
    parts = name.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    for rank, layer in enumerate(LAYERS):
        if key in layer:
            return rank, key
    raise AssertionError(f"{name} is in no layer: add it to LAYERS in {__file__}")


def upward(edges) -> list[str]:
    wrong = []
    for name, targets in edges.items():
        rank, key = layer_of(name)
        for target in targets:
            other_rank, other = layer_of(target)
            if other_rank > rank or (key, other) in PEERS_APART:
                wrong.append(f"{name} imports {target}")
    return sorted(wrong)


def circles(edges) -> list[list[str]]:
    """Each strongly connected set of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_every_module_is_in_a_layer():
    for name in modules():
        layer_of(name)


def test_no_module_imports_upward_or_across_to_a_peer():
    assert upward(graph()) == []


def test_no_import_circle():
    assert circles(graph()) == []


@pytest.mark.parametrize("edges, expected", [
    ({"symdyn.robot.a": {"symdyn.derive.b"}, "symdyn.derive.b": set()},
     ["symdyn.robot.a imports symdyn.derive.b"]),
    ({"symdyn.emit.a": {"symdyn.derive.b"}, "symdyn.derive.b": set()},
     ["symdyn.emit.a imports symdyn.derive.b"]),
    ({"symdyn.derive.a": {"symdyn.robot.b"}, "symdyn.robot.b": set()}, []),
])
def test_the_layer_check_sees_an_upward_import(edges, expected):
    assert upward(edges) == expected


def test_the_circle_check_sees_a_circle():
    edges = {"symdyn.report.a": {"symdyn.report.b"}, "symdyn.report.b": {"symdyn.report.c"},
             "symdyn.report.c": {"symdyn.report.a"}, "symdyn.report.d": {"symdyn.report.a"}}
    assert circles(edges) == [["symdyn.report.a", "symdyn.report.b", "symdyn.report.c"]]
