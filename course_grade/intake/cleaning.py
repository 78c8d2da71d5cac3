"""Submission cleaning and static flags: what is taken out of a notebook before it runs, and what is looked at.

Cleaning: nbclient skips a cell tagged `skip-execution`, so a learner who tags the test cells gets every
point for none of the work. Tags change nothing else nbgrader does, so every cell loses its tags, and the
skipping ones are reported. (`raises-exception` is removed too but not reported: nbgrader runs every cell
whatever it raises, and the learners' versions carry it on purpose so that JupyterLab's Run All goes on.)
Edited `nbgrader` metadata is put back from the gradebook by nbgrader's OverwriteCells, as before.

Static flags never change a grade: they list, for manual review, learner-written cells (any cell whose source
is not one of the instructor's) that reach for the machinery a cheat needs: IPython's internals, tracing,
the gradebook's database, other processes, sockets, the grader's own files, or the reference module of a
function the cell is asked to write.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Collection
from typing import Any

from course_grade.cells import cell_grade_id
from course_grade.notes import Note

EXECUTION_TAGS = ("skip-execution",)
"""Tags that change which cells nbgrader runs: removed and reported."""

PATTERNS = [
    ("IPython internals", r"get_ipython|input_transformers|transform_cell|run_cell|events\.register"
     r"|ast_transformers|InteractiveShell|__IPYTHON__|\bdisplayhook\b|\bexcepthook\b|showtraceback"),
    ("tracing", r"settrace|setprofile|sys\.monitoring|\bsys\._getframe|f_back|f_globals"),
    ("sqlite3", r"\bsqlite3?\b"),
    ("/proc", r"/proc\b"),
    ("jupyter_client or zmq", r"jupyter_client|\bzmq\b|ipykernel|connection_file"),
    ("ctypes", r"\bctypes\b|\bcffi\b"),
    ("signals to processes", r"os\.kill|killpg|pthread_kill|\bpsutil\b"),
    ("subprocesses", r"\bsubprocess\b|os\.system|os\.popen|os\.fork|os\.exec|os\.spawn|\bpty\b|multiprocessing"),
    ("sockets", r"\bsocket\b"),
    ("the grader's files", r"\.ipynb\b|gradebook|nbgrader|grades\.csv|\.db\b|__file__"),
    ("dynamic code", r"__import__|importlib|sys\.modules|__builtins__|\bbuiltins\b"),
]  # fmt: skip
"""(label, regular expression) of every flag, in the order the notes list them. The dynamic-code flag also
catches the builtins that run text as code (`DYNAMIC`, see `_runs_text`), by name, not by pattern: a method
of the same name (`re.compile`, `str.format`, `string.Template`) is no dynamic code."""

DYNAMIC = frozenset({"eval", "exec", "compile", "__import__"})
"""The builtins that run (or import) text as code: flagged wherever the cell names them, called or aliased."""

DYNAMIC_CODE = "dynamic code"


def clean(notebook: dict[str, Any]) -> list[str]:
    """Remove every cell's tags (in place); return "`cell`: tag" for each execution tag removed."""
    removed = []
    for index, cell in enumerate(notebook.get("cells", [])):
        metadata = cell.get("metadata")
        if not isinstance(metadata, dict) or "tags" not in metadata:
            continue
        tags = metadata.pop("tags")
        label = cell_grade_id(cell) or f"cell {index + 1}"
        for tag in tags if isinstance(tags, list) else [tags]:
            if tag in EXECUTION_TAGS:
                removed.append(f"`{label}`: {tag}")
    return removed


def cleaning_note(name: str, removed: list[str]) -> list[Note]:
    """The note saying which execution tags were removed from a notebook, if any."""
    if not removed:
        return []
    return [
        Note(
            "cleaned",
            f"{name}: tags that change how the grader runs cells were removed ({', '.join(removed)}); "
            "every cell ran.",
        )
    ]


def source_hash(source: Any) -> str:
    """A short digest of a cell's source, to recognise the instructor's cells without shipping them."""
    return hashlib.sha256(_text(source).encode()).hexdigest()[:20]


def flags(notebook: dict[str, Any], known: Collection[str]) -> list[str]:
    """ "`cell` uses A, B" for every learner-written cell (source hash not in `known`) matching a pattern."""
    references = _reference_aliases(notebook)
    imported = _imported_names(notebook)
    found = []
    for index, cell in enumerate(notebook.get("cells", [])):
        source = _text(cell.get("source", ""))
        if not source.strip() or source_hash(source) in known:
            continue
        labels = [
            label
            for label, pattern in PATTERNS
            if re.search(pattern, source) or (label == DYNAMIC_CODE and _runs_text(source, imported))
        ]
        if cell.get("cell_type") == "code" and _calls_reference(source, references):
            labels.append("the reference module of the function it defines")
        if labels:
            found.append(f"`{cell_grade_id(cell) or f'cell {index + 1}'}` uses {', '.join(labels)}")
    return found


def flag_note(name: str, found: list[str]) -> list[Note]:
    """The note listing a notebook's flagged cells for manual review, if any."""
    if not found:
        return []
    return [
        Note(
            "flagged",
            f"{name}: for manual review (the grade is not changed by this): {'; '.join(found)}.",
        )
    ]


def _text(source: Any) -> str:
    """A cell's source as one string."""
    return "".join(source) if isinstance(source, list) else str(source)


def _reference_aliases(notebook: dict[str, Any]) -> set[str]:
    """Names the notebook binds to course_lib modules (`from course_lib import envelope as envelope_lib`)."""
    aliases = {"course_lib"}
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        try:
            tree = ast.parse(_text(cell.get("source", "")))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_lib"):
                aliases |= {alias.asname or alias.name for alias in node.names}
            elif isinstance(node, ast.Import):
                aliases |= {
                    alias.asname or alias.name for alias in node.names if alias.name.startswith("course_lib")
                }
    return aliases


def _calls_reference(source: str, aliases: set[str]) -> bool:
    """True if a cell defining `f` refers to `alias.f` for a course_lib alias (the reference solution)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    defined = {
        node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    return any(
        isinstance(node, ast.Attribute)
        and node.attr in defined
        and isinstance(node.value, ast.Name)
        and node.value.id in aliases
        for node in ast.walk(tree)
    )


def _imported_names(notebook: dict[str, Any]) -> set[str]:
    """Names the notebook imports from a module other than `builtins` (`from re import compile`)."""
    names = set()
    for cell in notebook.get("cells", []):
        try:
            tree = ast.parse(_text(cell.get("source", "")))
        except SyntaxError:
            continue
        names |= {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module != "builtins"
            for alias in node.names
        }
    return names


def _runs_text(source: str, imported: set[str]) -> bool:
    """True if a cell names a builtin of `DYNAMIC` (called, aliased, passed along), unless the notebook imports
    that name from elsewhere; an attribute of the same name (`re.compile`, `pattern.compile`) is not it. A cell
    that does not parse is read by pattern: the name followed by `(`, not after a dot."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return re.search(r"(?<![\w.])(?:exec|eval|compile|__import__)\s*\(", source) is not None
    return any(
        isinstance(node, ast.Name) and node.id in DYNAMIC and node.id not in imported
        for node in ast.walk(tree)
    )
