"""The structure the package promises (docs/architecture.md), read from the code itself.

Every import of every module under ``rankeval/`` is resolved (at module level and inside
functions alike) and checked against the layers, from the top down:

    __main__ > cli > rankeval (the face) > page > evaluation > views, plot > engines > metrics, sampled
    > split, rank > groups > stats > io, segments > data > conventions, exceptions, _version, datasets, _html,
    _progress

An import may run down or stay within its own package; never up. The module graph has no
circle; no module takes another module's private (``_name``) name; no function has more
than 80 lines of code (its docstring not counted) and no module more than 600 lines; no
comment or docstring points at a document outside the repository.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "rankeval"

#: from the top down; an import may only reach its own layer or one below
LAYERS: list[set[str]] = [
    {"rankeval.__main__"},
    {"rankeval.cli"},
    {"rankeval"},
    {"rankeval.page"},
    {"rankeval.evaluation"},
    {"rankeval.views", "rankeval.plot"},
    {"rankeval.engines"},
    {"rankeval.metrics", "rankeval.sampled"},
    {"rankeval.split", "rankeval.rank"},
    {"rankeval.groups"},
    {"rankeval.stats"},
    {"rankeval.io", "rankeval.segments"},
    {"rankeval.data"},
    {"rankeval.conventions", "rankeval.exceptions", "rankeval._version", "rankeval.datasets", "rankeval._html",
     "rankeval._progress"},
]
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 600


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _imports(name: str, path: Path) -> list[tuple[str, str, int]]:
    """(imported module, imported name or "", line) of every rankeval import in ``path``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "rankeval":
                continue
            for alias in node.names:
                full = f"{target}.{alias.name}"
                out.append((full, "", node.lineno) if full in MODULES else (target, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name, "", node.lineno) for a in node.names if a.name.split(".")[0] == "rankeval"]
    return out


def _layer(module: str) -> int:
    for depth, names in enumerate(LAYERS):
        if any(module == n or module.startswith(n + ".") for n in names if n != "rankeval"):
            return depth
    if module == "rankeval":
        return 2
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and to docs/architecture.md")


def test_every_module_has_a_layer():
    for module in MODULES:
        _layer(module)


def test_imports_run_one_way_down():
    upward = []
    for module, path in MODULES.items():
        for target, _, line in _imports(module, path):
            if _layer(target) < _layer(module):
                upward.append(f"{path.relative_to(ROOT.parent)}:{line} imports {target}")
    assert not upward, "imports that run up a layer:\n" + "\n".join(upward)


def test_no_import_circle():
    graph = {m: {t for t, _, _ in _imports(m, p) if t in MODULES and t != m} for m, p in MODULES.items()}
    state: dict[str, int] = {}
    circles = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                circles.append(" -> ".join(trail[trail.index(nxt):] + [node, nxt]) if nxt in trail
                               else f"{node} -> {nxt}")
            elif nxt not in state:
                visit(nxt, trail + [node])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_no_module_takes_another_modules_private_name():
    taken = []
    for module, path in MODULES.items():
        for target, name, line in _imports(module, path):
            if name.startswith("_") and not name.startswith("__") and target != module:
                taken.append(f"{path.relative_to(ROOT.parent)}:{line} takes {target}.{name}")
    assert not taken, "private names used across modules (give them a public name):\n" + "\n".join(taken)


def _code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    total = (node.end_lineno or node.lineno) - node.lineno + 1
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        total -= (first.end_lineno or first.lineno) - first.lineno + 1
    return total


def test_functions_and_modules_are_of_a_size():
    too_long = []
    for path in MODULES.values():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            too_long.append(f"{path.relative_to(ROOT.parent)}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _code_lines(node) > MAX_FUNCTION_LINES:
                too_long.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name}: "
                                f"{_code_lines(node)} lines of code")
    assert not too_long, "\n".join(too_long)


#: documents a reader of the code does not have: the design notes and seeds the project grew from
OUTSIDE = re.compile(r"DESIGN\.md|STYLE\.md|\bseeds?/|\bSeed \d|\bissue #?\d+", re.IGNORECASE)


def test_comments_stand_alone():
    found = []
    for path in sorted(ROOT.rglob("*")):
        if path.suffix not in (".py", ".j2", ".js", ".css"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT.parent)}:{number}: {line.strip()}")
    assert not found, "references to documents outside the repository:\n" + "\n".join(found)


def test_one_all_built_from_the_packages():
    import rankeval
    from rankeval import exceptions, metrics

    assert len(rankeval.__all__) == len(set(rankeval.__all__))
    assert set(metrics.__all__) <= set(rankeval.__all__)
    assert set(exceptions.__all__) <= set(rankeval.__all__)
    for name in rankeval.__all__:
        assert getattr(rankeval, name) is not None


@pytest.mark.parametrize("layer", range(len(LAYERS)))
def test_layers_name_real_modules(layer):
    for name in LAYERS[layer]:
        assert name in MODULES, f"{name} is in LAYERS but not in rankeval/"
