"""The layers hold: no import cycle in `course_lib` or `course_grade`, and no import against their order.

Every import is read with `ast`, at the top of a module or deferred inside a function, relative or absolute.
The order is the data below (DESIGN.md and the README's architecture picture describe it): `course_lib`
never imports `course_grade`; its infrastructure never reaches a key (the learners' edition leaves keys
out); and `course_grade`'s sub-packages follow a submission, each importing only the layers it names.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from course_grade.release.keys import KEYS

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("course_lib", "course_grade")

LAYERS: dict[str, tuple[str, ...]] = {
    "base": (
        "course_grade",
        "course_grade.cells",
        "course_grade.course",
        "course_grade.cputime",
        "course_grade.notebooks",
        "course_grade.notes",
        "course_grade.progress",
        "course_grade.untrusted",
    ),
    "release": ("course_grade.release",),
    "intake": ("course_grade.intake",),
    "score": ("course_grade.score",),
    "run": ("course_grade.run",),
    "report": ("course_grade.report",),
    "selftest": ("course_grade.selftest",),
    "entry": ("course_grade.__main__", "course_grade.cli", "course_grade.pipeline", "course_grade.hub"),
}
"""course_grade's layers: a module belongs to the layer of the longest prefix of its name listed here (the
package `course_grade` itself names only its `__init__`: a module placed nowhere fails a test)."""

MAY_IMPORT: dict[str, frozenset[str]] = {
    "base": frozenset(),
    "release": frozenset({"base"}),
    "intake": frozenset({"base"}),
    "score": frozenset({"base", "intake"}),
    "run": frozenset({"base", "release", "intake", "score"}),
    "report": frozenset({"base", "score"}),
    "selftest": frozenset({"base", "release"}),
    "entry": frozenset(LAYERS),
}
"""layer -> the other layers its modules may import: intake never imports score or report, score never
report (nor run: the worker calls the scoring, not the other way round), report never run."""

INFRASTRUCTURE = (
    "course_lib.errors",
    "course_lib.checks",
    "course_lib.fixtures",
    "course_lib.wire",
    "course_lib.standin",
    "course_lib.scripted",
    "course_lib.loopback",
    "course_lib.toolbox",
    "course_lib.model_api",
)
"""course_lib's infrastructure (and everything under these names): it reaches no key, even through another
module, so the learners' edition keeps it whatever it leaves out."""

KEY_MODULES = frozenset(module for modules in KEYS.values() for module in modules)


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it is written."""

    source: str
    target: str
    path: Path
    line: int

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def module_files() -> dict[str, Path]:
    """Every module of both packages: dotted name -> file."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = module_files()


def imports_of(name: str, path: Path) -> Iterator[Import]:
    """The imports of one module, wherever they are written (deferred ones in functions too)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(name, alias.name, path, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            for alias in node.names:
                inner = f"{origin}.{alias.name}"
                if inner in MODULES and origin in MODULES:
                    # `from package import sub` reads `package`'s namespace first (running its __init__), then
                    # imports `sub`: the module depends on both, so a package whose __init__ imports it back
                    # forms a cycle through the package.
                    yield Import(name, origin, path, node.lineno)
                yield Import(name, inner if inner in MODULES else origin, path, node.lineno)


def graph() -> list[Import]:
    """Every import of both packages whose target is one of their modules."""
    return [
        found
        for name, path in MODULES.items()
        for found in imports_of(name, path)
        if found.target in MODULES and found.target != found.source
    ]


EDGES = graph()


def layer_of(module: str) -> str | None:
    """The layer of a course_grade module: that of the longest listed prefix of its name."""
    best, layer = -1, None
    for name, prefixes in LAYERS.items():
        for prefix in prefixes:
            inside = module.startswith(prefix + ".") and prefix not in PACKAGES  # a package's root is its own
            if (module == prefix or inside) and len(prefix) > best:
                best, layer = len(prefix), name
    return layer


def cycles(edges: list[Import]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    after: dict[str, set[str]] = {}
    for edge in edges:
        after.setdefault(edge.source, set()).add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(after.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(MODULES):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_another_that_imports_it_back() -> None:
    """No import cycle, counting deferred imports: a circle is one module in two places."""
    problems = []
    for component in cycles(EDGES):
        members = set(component)
        inside = dict.fromkeys(
            f"{e.where()} {e.source} imports {e.target}"
            for e in EDGES
            if e.source in members and e.target in members
        )
        problems.append("import cycle: " + "; ".join(inside))
    assert not problems, "\n".join(problems)


def test_every_module_of_course_grade_has_a_layer() -> None:
    missing = [name for name in MODULES if name.startswith("course_grade") and layer_of(name) is None]
    assert not missing, f"modules in no layer of tests/test_layers.py LAYERS: {missing}"


def test_course_grade_imports_follow_the_layers() -> None:
    problems: list[str] = []
    for edge in EDGES:
        if not (edge.source.startswith("course_grade") and edge.target.startswith("course_grade")):
            continue
        source, target = layer_of(edge.source), layer_of(edge.target)
        if source is None or target is None or source == target or target in MAY_IMPORT[source]:
            continue
        allowed = ", ".join(sorted(MAY_IMPORT[source])) or "no other layer"
        problem = f"{edge.where()}: {edge.source} ({source}) imports {edge.target} ({target}); "
        problem += f"{source} may import {allowed}"
        if problem not in problems:
            problems.append(problem)
    assert not problems, "\n".join(problems)


def test_course_lib_never_imports_course_grade() -> None:
    """The learners' library stands alone: the grader builds on it, never the other way round."""
    problems = [
        f"{e.where()}: {e.source} imports {e.target}"
        for e in EDGES
        if e.source.startswith("course_lib") and e.target.startswith("course_grade")
    ]
    assert not problems, "\n".join(problems)


def _infrastructure(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in INFRASTRUCTURE)


def test_infrastructure_reaches_no_key() -> None:
    """Not directly, nor through another module: the learners' edition leaves keys out, and keeps these."""
    after: dict[str, list[Import]] = {}
    for edge in EDGES:
        after.setdefault(edge.source, []).append(edge)
    problems = []
    for module in sorted(name for name in MODULES if _infrastructure(name)):
        assert module not in KEY_MODULES, f"{module} is listed as infrastructure and declared a key"
        seen, todo = {module}, [(module, [])]
        while todo:
            node, path = todo.pop()
            for edge in after.get(node, []):
                if edge.target in KEY_MODULES:
                    chain = " -> ".join(f"{e.target} ({e.where()})" for e in [*path, edge])
                    problems.append(f"{module} reaches the key {edge.target}: {module} -> {chain}")
                elif edge.target not in seen:
                    seen.add(edge.target)
                    todo.append((edge.target, [*path, edge]))
    assert not problems, "\n".join(problems)


def _top_level_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _exists(dotted: str) -> bool:
    """A module of the packages, or a name defined at the top of one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        if module in MODULES:
            rest = parts[cut:]
            return not rest or rest[0].startswith("__") or rest[0] in _top_level_names(MODULES[module])
    return False


@pytest.mark.parametrize("document", ["README.md"])
def test_every_module_the_documentation_names_exists(document: str) -> None:
    text = (ROOT / document).read_text(encoding="utf-8")
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        for found in re.findall(r"(?<![\w./])((?:course_grade|course_lib)(?:/[\w.]+)+/?)", line):
            if not (ROOT / found).exists():
                problems.append(f"{document}:{number}: {found} does not exist")
        for found in re.findall(r"(?<![\w./])((?:course_grade|course_lib)(?:\.[A-Za-z_]\w*)+)", line):
            if not _exists(found):
                problems.append(f"{document}:{number}: {found} names no module (or name in one)")
    assert not problems, "\n".join(problems)


def test_from_a_package_import_a_submodule_depends_on_the_package(tmp_path: Path) -> None:
    """`from pkg import sub` runs pkg's __init__ first: a package whose __init__ imports the module back is a cycle."""
    module = tmp_path / "check.py"
    module.write_text("from course_lib.quiz import n01_envelope\n", encoding="utf-8")
    targets = {found.target for found in imports_of("course_lib.quiz.check", module)}
    assert targets == {"course_lib.quiz", "course_lib.quiz.n01_envelope"}


def test_no_two_modules_of_course_grade_share_a_name() -> None:
    """A step of the grader is found by its file name: two `grades.py` leave a reader asking which holds what."""
    seen: dict[str, list[str]] = {}
    for name in MODULES:
        if name.startswith("course_grade.") and MODULES[name].name not in ("__init__.py", "__main__.py"):
            seen.setdefault(MODULES[name].name, []).append(name)
    shared = {file: names for file, names in seen.items() if len(names) > 1}
    assert not shared, f"modules of course_grade sharing a file name: {shared}"
