"""What a module of the library, or a notebook, needs of the library: read from its imports with `ast`."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "course_lib"


@dataclass(frozen=True)
class Need:
    """One import of the library: the module it loads, and the statement as written."""

    module: str
    statement: str


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package at `root` (the `course_lib` folder): dotted name -> file."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = (PACKAGE, *path.relative_to(root).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def needs(code: str, known: Iterable[str], package: str = "") -> list[Need]:
    """The library modules `code` imports, in order (`package`: the package a module's relative imports start from)."""
    names = set(known)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Need(alias.name, ast.unparse(node)) for alias in node.names if _ours(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            if not _ours(base):
                continue
            found.append(Need(base, ast.unparse(node)))
            found += [
                Need(f"{base}.{alias.name}", ast.unparse(node)) for alias in node.names
                if f"{base}.{alias.name}" in names
            ]  # fmt: skip
    return found


def _ours(module: str) -> bool:
    """True for the library and its modules."""
    return module == PACKAGE or module.startswith(PACKAGE + ".")


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module a `from ... import` statement reads from, relative imports resolved."""
    if not node.level:
        return node.module or ""
    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join([*parts, *([node.module] if node.module else [])])


def graph(files: Mapping[str, Path]) -> dict[str, set[str]]:
    """module -> the library modules importing it runs first: its imports and its parent packages."""
    known = frozenset(files)
    edges = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        stat = path.stat()
        direct = set(_imported(path, stat.st_mtime_ns, stat.st_size, known, package))
        direct |= {".".join(name.split(".")[:end]) for end in range(1, len(name.split(".")))}
        edges[name] = {module for module in direct if module in files and module != name}
    return edges


@functools.lru_cache(maxsize=1024)
def _imported(path: Path, mtime: int, size: int, known: frozenset[str], package: str) -> frozenset[str]:
    """The library modules one file imports, parsed once per version of the file (`mtime`, `size`): an
    edition is planned for every assignment of a run, and each plan reads the same library."""
    return frozenset(need.module for need in needs(path.read_text(encoding="utf-8"), known, package))


def closure(module: str, edges: Mapping[str, set[str]]) -> set[str]:
    """`module` and every library module importing it loads (parents of a dotted name included)."""
    parents = {".".join(module.split(".")[:end]) for end in range(1, len(module.split(".")) + 1)}
    found: set[str] = set()
    todo = [name for name in parents if name in edges]
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(edges.get(name, ()))
    return found


def notebook_code(notebook: Mapping[str, object]) -> str:
    """The code cells of a notebook as one program, IPython magics and shell lines left out."""
    cells = notebook.get("cells", [])
    sources = []
    for cell in cells if isinstance(cells, list) else []:
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            text = "".join(source) if isinstance(source, list) else str(source)
            sources.append(
                "\n".join(line for line in text.split("\n") if not line.lstrip().startswith(("%", "!")))
            )
    return "\n\n".join(sources)
