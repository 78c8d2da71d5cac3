"""Execute a notebook the way the autograder does and report which graded test cells pass."""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

from course_grade.cells import cell_grade_id, is_test
from course_grade.run.kernels import IpcKernelManager

SOURCE = Path(__file__).resolve().parents[2] / "grading" / "source"


def instructor_notebook(name: str) -> nbformat.NotebookNode:
    """The instructor version of an assignment, as stored (with solutions and hidden tests)."""
    return nbformat.read(SOURCE / name / f"{name}.ipynb", as_version=4)


def without_demos(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy whose code cells tagged "demo" (worked examples no test depends on) do nothing."""
    pruned = copy.deepcopy(notebook)
    for cell in pruned.cells:
        if cell.cell_type == "code" and "demo" in cell.metadata.get("tags", []):
            cell.source = "pass"
    return pruned


def ending_at(notebook: nbformat.NotebookNode, grade_ids: tuple[str, ...]) -> nbformat.NotebookNode:
    """A copy that stops after the last of these cells: what follows a cell cannot change its outcome."""
    positions = [
        index
        for index, cell in enumerate(notebook.cells)
        if cell.metadata.get("nbgrader", {}).get("grade_id") in grade_ids
    ]
    assert len(positions) == len(set(grade_ids)), f"not every one of {grade_ids} is a cell of the notebook"
    shortened = copy.deepcopy(notebook)
    shortened.cells = shortened.cells[: max(positions) + 1]
    return shortened


def only_tests(notebook: nbformat.NotebookNode, grade_ids: tuple[str, ...]) -> nbformat.NotebookNode:
    """A copy whose graded test cells other than these do nothing: no test cell uses what another defines
    (tests/notebooks/test_notebooks.py checks it), so they cannot change these cells' outcomes."""
    pruned = copy.deepcopy(notebook)
    for cell in pruned.cells:
        if is_test(cell) and cell_grade_id(cell) not in grade_ids:
            cell.source = "pass"
    return pruned


def borrowings_between_test_cells(notebook: nbformat.NotebookNode) -> dict[str, set[str]]:
    """For each graded test cell, the names it reads that only other graded test cells bind."""
    bound: dict[int, set[str]] = {}
    read: dict[int, set[str]] = {}
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        tree = ast.parse(cell.source)  # a cell that is not Python is the nbval runs' failure, not this one's
        bound[index] = {name for node in ast.walk(tree) for name in _binds(node)}
        read[index] = {
            node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        }
    tests = {i for i in bound if is_test(notebook.cells[i])}
    elsewhere = set().union(*(names for i, names in bound.items() if i not in tests))
    return {
        cell_grade_id(notebook.cells[i]): borrowed
        for i in sorted(tests)
        if (
            borrowed := {
                name
                for name in read[i] - bound[i] - elsewhere
                if any(name in bound[j] for j in tests if j != i)
            }
        )
    }


def _binds(node: ast.AST) -> list[str]:
    """The names a node binds: assignment targets, definitions, imports, parameters, `except ... as`."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.alias):
        return [(node.asname or node.name).split(".")[0]]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    return []


def grade_ids(notebook: nbformat.NotebookNode, *, tests: bool) -> list[str]:
    """The grade_ids of the graded test cells (tests=True) or of the solution cells (tests=False)."""
    wanted = "grade" if tests else "solution"
    return [
        cell.metadata["nbgrader"]["grade_id"]
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get(wanted)
    ]


def with_cell_replaced(notebook: nbformat.NotebookNode, grade_id: str, source: str) -> nbformat.NotebookNode:
    """A copy of the notebook whose cell `grade_id` has the given source."""
    changed = copy.deepcopy(notebook)
    cells = [cell for cell in changed.cells if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    assert len(cells) == 1, f"no single cell with grade_id {grade_id!r}"
    cells[0].source = source
    return changed


def _failed(cell: Any) -> bool:
    """nbgrader's rule: a test cell fails if it raised or wrote anything to stderr."""
    return any(
        output.output_type == "error" or (output.output_type == "stream" and output.name == "stderr")
        for output in cell.get("outputs", [])
    )


def _execute(notebook: nbformat.NotebookNode, folder: Path, timeout: int) -> nbformat.NotebookNode:
    """Execute a copy of the notebook, cell errors and all, on a fresh kernel."""
    executed = copy.deepcopy(notebook)
    NotebookClient(
        executed, timeout=timeout, kernel_name="python3", allow_errors=True, record_timing=False, coalesce_streams=True,
        resources={"metadata": {"path": str(folder)}}, kernel_manager_class=IpcKernelManager,
    ).execute()  # fmt: skip
    return executed


def graded_results(notebook: nbformat.NotebookNode, folder: Path, timeout: int = 60) -> dict[str, bool]:
    """Execute a copy of the notebook in `folder`; map each graded test cell's grade_id to passed or not."""
    executed = _execute(notebook, folder, timeout)
    return {
        cell.metadata["nbgrader"]["grade_id"]: not _failed(cell)
        for cell in executed.cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")
    }


test_results = graded_results  # the older name, kept for scripts that use it
