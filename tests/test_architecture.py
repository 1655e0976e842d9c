"""The structure the package promises (docs/architecture.md), read from the code itself.

Every import of every module under ``rankeval/`` is resolved (at module level and inside
functions alike) and checked against the levels of ``LAYERS``, from the top down:

    __main__ > cli > rankeval (the face) > page > evaluation > engines, sampled, plot, unbiased
    > metrics, views > split, groups, ope, rank > io, stats, segments > data
    > conventions, exceptions, _version, datasets, _html, _progress

An import may run down to a lower level or stay within its own package; packages on one
level sit side by side and never import each other. The diagram of docs/architecture.md
draws the imports between packages as they are (each arrow one that no path of other
arrows implies), and is checked against them. The module graph has no circle; no module
takes another module's private (``_name``) name; at most 10% of the imports between
packages reach into a private module; no function has more than 80 lines of code (its
docstring not counted) and no module more than 600 lines; no comment or docstring points at
a document outside the repository.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "rankeval"

#: the levels, from the top down: an import runs to a lower level or stays in its own package;
#: the packages of one level sit side by side (none imports another). docs/architecture.md
#: draws them; a new package or top-level module goes here and into its diagram.
LAYERS: list[set[str]] = [
    {"rankeval.__main__"},
    {"rankeval.cli"},
    {"rankeval"},
    {"rankeval.page"},
    {"rankeval.evaluation"},
    {"rankeval.engines", "rankeval.sampled", "rankeval.plot", "rankeval.unbiased"},
    {"rankeval.metrics", "rankeval.views"},
    {"rankeval.split", "rankeval.groups", "rankeval.ope", "rankeval.rank"},
    {"rankeval.io", "rankeval.stats", "rankeval.segments"},
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


def _unit(module: str) -> str:
    """The entry of ``LAYERS`` that holds ``module`` (a package, or a top-level module)."""
    for names in LAYERS:
        for name in names:
            if name != "rankeval" and (module == name or module.startswith(name + ".")):
                return name
    if module == "rankeval":
        return module
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and to docs/architecture.md")


def _layer(module: str) -> int:
    unit = _unit(module)
    return next(depth for depth, names in enumerate(LAYERS) if unit in names)


def test_every_module_has_a_layer():
    for module in MODULES:
        _layer(module)


def test_imports_run_one_way_down():
    upward = []
    for module, path in MODULES.items():
        for target, _, line in _imports(module, path):
            if _unit(target) != _unit(module) and _layer(target) <= _layer(module):
                side = "across its level" if _layer(target) == _layer(module) else "up a level"
                upward.append(f"{path.relative_to(ROOT.parent)}:{line} imports {target} ({side})")
    assert not upward, "imports that do not run down a level:\n" + "\n".join(upward)


def _node(unit: str) -> str:
    """The diagram's name for a unit: the top-level ground modules are one node."""
    if unit in LAYERS[-1]:
        return "ground"
    return {"rankeval": "face", "rankeval.__main__": "main"}.get(unit, unit.rpartition(".")[2])


def drawn_arrows() -> set[tuple[str, str]]:
    """The arrows the imports draw: package to package, each one no path of others implies."""
    graph: dict[str, set[str]] = {_node(_unit(m)): set() for m in MODULES}
    for module, path in MODULES.items():
        for target, _, _ in _imports(module, path):
            if _node(_unit(module)) != _node(_unit(target)):
                graph[_node(_unit(module))].add(_node(_unit(target)))

    def below(node: str) -> set[str]:
        return set().union(*({n} | below(n) for n in graph[node]))

    return {(a, b) for a, targets in graph.items() for b in targets
            if not any(b in below(c) for c in targets - {b})}


DOC = ROOT.parent / "docs" / "architecture.md"
ARROW = re.compile(r"^\s*(\w+)(?:\[[^\]]*\])?\s*-->\s*(\w+)(?:\[[^\]]*\])?\s*$")


def test_the_diagram_draws_the_imports_as_they_are():
    text = DOC.read_text(encoding="utf-8")
    diagram = text.split("```mermaid", 1)[1].split("```", 1)[0]
    drawn = {(m[1], m[2]) for line in diagram.splitlines() if (m := ARROW.match(line))}
    nodes = set(re.findall(r"(\w+)\[", diagram))
    assert nodes == {_node(_unit(m)) for m in MODULES}, f"nodes: drawn {sorted(nodes)}"
    real = drawn_arrows()
    assert drawn == real, ("docs/architecture.md's diagram is not the imports; its arrows should be:\n"
                           + "\n".join(f"    {a} --> {b}" for a, b in sorted(real)))


def test_the_drawn_arrows_leave_out_what_a_path_implies():
    # a hand-worked case of the reduction drawn_arrows() makes: io imports data, so an import
    # of data by split (which imports io) is not drawn, and every arrow is a real import
    arrows = drawn_arrows()
    assert ("split", "io") in arrows and ("io", "data") in arrows and ("split", "data") not in arrows
    assert ("data", "ground") in arrows and not any(a == "ground" for a, _ in arrows)


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


#: the share of imports between packages that may reach into a package's private module
MAX_PRIVATE_SHARE = 0.10


def _package(module: str) -> str:
    """``rankeval.X`` (a subpackage, or a top-level module), or ``rankeval`` for the face itself."""
    return ".".join(module.split(".")[:2])


def _is_private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split(".")[1:])


def cross_package_imports() -> tuple[list[str], list[str]]:
    """Every (importing module, imported module) pair between two packages, and the private ones.

    A pair is private when a component of the imported module's path below ``rankeval``
    starts with ``_`` (``rankeval.data._keys``; ``rankeval._progress``): the importer reaches
    past the package's faces (its ``__init__`` and its ``internal`` module).
    """
    pairs, private = [], []
    for module, path in MODULES.items():
        for target in sorted({t for t, _, _ in _imports(module, path)}):
            if target == "rankeval" or _package(target) == _package(module):
                continue
            pairs.append(f"{module} -> {target}")
            if _is_private(target):
                private.append(pairs[-1])
    return pairs, private


def test_packages_talk_through_their_faces():
    pairs, private = cross_package_imports()
    assert len(pairs) > 100  # the count reads the real imports
    assert len(private) <= MAX_PRIVATE_SHARE * len(pairs), (
        f"{len(private)} of {len(pairs)} imports between packages reach a private module (at most "
        f"{MAX_PRIVATE_SHARE:.0%}); take the name from the package or its internal face:\n" + "\n".join(private))


def test_the_private_import_count_sees_private_modules():
    # hand-worked cases of the rule: a package's faces are public, its modules private
    assert [_is_private(m) for m in ("rankeval.data.internal", "rankeval.data._keys", "rankeval.metrics.beyond._x",
                                     "rankeval._progress", "rankeval.data", "rankeval")] == [
        False, True, True, True, False, False]
    assert _package("rankeval.metrics.beyond._x") == _package("rankeval.metrics") != _package("rankeval.data")
    pairs, private = cross_package_imports()
    assert "rankeval.cli._parser -> rankeval._version" in private  # a top-level private module has no face
    assert "rankeval.engines._spark_buckets -> rankeval.data.internal" in pairs
    assert not any(p.endswith(" -> rankeval.data._validation") for p in pairs)  # the checks' one home is the face


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


#: documents a reader of the repository does not have: the design and style notes, the seed
#: scripts and the issues the project grew from
OUTSIDE = re.compile(r"DESIGN\.md|STYLE\.md|\bseeds?/|\bseed \d{3}\b|\bissue #?\d+", re.IGNORECASE)
OUTSIDE_NAMES = re.compile(r"\bDESIGN\b|\bSTYLE\b|\bSeed \d")
#: the code, its tests and its benchmarks
READ_BY_ANYONE = [ROOT, ROOT.parent / "tests", ROOT.parent / "benchmarks"]


def test_comments_stand_alone():
    found = []
    for folder in READ_BY_ANYONE:
        for path in sorted(folder.rglob("*")):
            if path.suffix not in (".py", ".j2", ".js", ".css") or path == Path(__file__).resolve():
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if OUTSIDE.search(line) or OUTSIDE_NAMES.search(line):
                    found.append(f"{path.relative_to(ROOT.parent)}:{number}: {line.strip()}")
    assert not found, "references to documents outside the repository:\n" + "\n".join(found)


def test_the_outside_pattern_finds_what_it_names():
    said = ["as DESIGN.md section 1 says", "toy (STYLE.md)", "see ../shared/seeds/000.py", "seed 004",
            "(issue 18)", "Issue #40", "DESIGN's worked example", "Seed 3 prints"]
    fine = ["seed 42 of the bucket hash", "always seed 0", "the sampling design", "score styles",
            "docs/decisions.md"]
    assert [bool(OUTSIDE.search(t) or OUTSIDE_NAMES.search(t)) for t in said + fine] == [True] * 8 + [False] * 5


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
