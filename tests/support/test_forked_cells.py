"""The wrong-answer sweep's executor: nbgrader's rule, a fresh shell per run, a deadline."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tests.support.forked_cells import ForkedCells
from tests.support.notebook_runner import graded_results

CASES = {
    "passes": "assert 1 + 1 == 2",
    "raises": "assert False, 'no'",
    "prints": "print('fine')",
    "stderr": "import sys; print('careful', file=sys.stderr)",
    "warns": "import warnings; warnings.warn('deprecated soon')",
    "sees-earlier-cells": "assert defined_earlier == 42",
}
"""Test cells, each after a setup cell that defines `defined_earlier`."""


def graded_notebook(cases: dict[str, str]) -> nbformat.NotebookNode:
    cells = [new_code_cell("defined_earlier = 42")]
    for grade_id, source in cases.items():
        cells.append(new_code_cell(source, metadata={"nbgrader": {"grade": True, "grade_id": grade_id}}))
    return new_notebook(cells=cells)


def test_a_test_cell_fails_when_it_raises_or_writes_to_stderr(forked: ForkedCells, tmp_path: Path) -> None:
    results = forked.results(graded_notebook(CASES), tmp_path)
    assert results == {
        "passes": True, "raises": False, "prints": True, "stderr": False, "warns": False,
        "sees-earlier-cells": True,
    }  # fmt: skip


def test_its_verdicts_are_a_kernels(forked: ForkedCells, tmp_path: Path) -> None:
    assert forked.results(graded_notebook(CASES), tmp_path) == graded_results(
        graded_notebook(CASES), tmp_path
    )


def test_each_run_starts_from_a_fresh_namespace_in_its_folder(forked: ForkedCells, tmp_path: Path) -> None:
    leaves = {"leak": f"import os\nleaked = 1\nassert os.getcwd() == {str(tmp_path)!r}"}
    assert forked.results(graded_notebook(leaves), tmp_path) == {"leak": True}
    assert forked.results(graded_notebook({"fresh": "leaked"}), tmp_path) == {"fresh": False}


def test_a_run_past_its_deadline_is_stopped_and_the_server_goes_on(
    forked: ForkedCells, tmp_path: Path
) -> None:
    with pytest.raises(RuntimeError, match="longer than 1 s"):
        forked.results(graded_notebook({"sleeps": "import time; time.sleep(60)"}), tmp_path, seconds=1)
    assert forked.results(graded_notebook({"passes": "pass"}), tmp_path) == {"passes": True}
