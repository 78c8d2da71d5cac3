"""Execute a notebook the way the autograder does and report which graded test cells pass."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

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
