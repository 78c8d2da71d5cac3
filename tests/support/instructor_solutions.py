"""The instructor's solution of a graded exercise as a plain Python namespace, for differential property tests.

`instructor_solution(assignment, grade_id)` runs the instructor notebook's setup cell and every later code cell
up to and including the solution cell `grade_id` (test cells and cells tagged "demo" left out) in one fresh
namespace, in the notebook's own folder, with what they print captured; the stand-in the setup cell starts is
closed on the way out. Property tests then call the solution beside the `course_lib` reference.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
from IPython.core.inputtransformer2 import TransformerManager

SOURCE = Path(__file__).resolve().parents[2] / "grading" / "source"


class NoSuchSolution(LookupError):
    """The instructor notebook has no solution cell with that grade_id."""


def _nbgrader(cell: nbformat.NotebookNode) -> dict[str, Any]:
    return dict(cell.metadata.get("nbgrader", {}))


def cells_up_to(assignment: str, grade_id: str) -> list[str]:
    """The sources of the code cells that define the solution `grade_id`, in notebook order."""
    notebook = nbformat.read(SOURCE / assignment / f"{assignment}.ipynb", as_version=4)
    sources = []
    for cell in notebook.cells:
        meta = _nbgrader(cell)
        if cell.cell_type != "code" or meta.get("grade") or "demo" in cell.metadata.get("tags", []):
            continue
        sources.append(cell.source)
        if meta.get("solution") and meta.get("grade_id") == grade_id:
            return sources
    raise NoSuchSolution(f"{assignment} has no solution cell {grade_id!r}")


@contextlib.contextmanager
def instructor_solution(assignment: str, grade_id: str) -> Iterator[dict[str, Any]]:
    """The namespace in which the instructor's solution `grade_id` of `assignment` is defined."""
    transform = TransformerManager().transform_cell
    module = types.ModuleType(f"instructor_{assignment}")  # in sys.modules, as dataclasses need their module
    namespace: dict[str, Any] = module.__dict__
    here = os.getcwd()
    os.chdir(SOURCE / assignment)
    sys.modules[module.__name__] = module
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for source in cells_up_to(assignment, grade_id):
                exec(compile(transform(source), f"<{assignment}:{grade_id}>", "exec"), namespace)
        yield namespace
    finally:
        os.chdir(here)
        sys.modules.pop(module.__name__, None)
        server = namespace.get("server")
        if server is not None and hasattr(server, "close"):
            server.close()
