"""No point depends on the machine's load: 07's cells about time judge alike with every core busy (issue 35).

The approver's timeout, the model request's timeout and the budget's clock are the only rules of the course
a slow machine could bend. Their test cells run here twice, on an idle machine and with busy loops holding
twice as many processes as there are cores, for the instructor's solution and a published wrong answer of
each such rule: every cell must get the same verdict both times. Only those cells run (with the setup and
the solutions before them), so the comparison stays cheap.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

import nbformat
import pytest

from grading.build_notebooks import GRADING
from grading.wrong_answers import published
from tests.support.forked_cells import ForkedCells
from tests.support.notebook_runner import instructor_notebook, with_cell_replaced, without_demos

NAME = "07_capstone"
TIMED = (
    "test_ask_approver_failures",
    "test_ask_approver_timeout",
    "test_budget_time",
    "test_chat_adapter_errors",
)
"""The test cells whose rules are about time: a timeout, a clock, or a thread left behind."""
SAMPLE = (
    "an approver that raises BaseException",
    "the worker thread is not a daemon",
    "reads the wall clock instead of the clock it was given",
    "ignores the timeout it is given",
    "counts a request only once it has been answered",
)
"""One wrong answer per rule about time (a sample: the whole sweep under load would take minutes)."""


def only_timed(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy holding the setup, the harness's locked cells, the solutions and the TIMED test cells only."""
    kept = without_demos(notebook)  # a copy
    kept.cells = [
        cell
        for cell in kept.cells
        if "nbgrader" in cell.metadata  # setup, the harness's locked cells, solutions: no worked example
        and (not cell.metadata["nbgrader"].get("grade") or cell.metadata["nbgrader"]["grade_id"] in TIMED)
    ]
    return kept


@contextlib.contextmanager
def busy_cores(processes: int) -> Iterator[None]:
    """`processes` busy loops for the duration of the block, each ended by its own process id."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


@pytest.mark.timeout(400)  # twelve short runs, half of them on a machine kept busy on purpose
def test_the_timed_cells_of_07_judge_alike_with_every_core_busy(forked: ForkedCells) -> None:
    solution = instructor_notebook(NAME)
    answers = [a for a in published(NAME) if set(a.fails) & set(TIMED) and a.why.startswith(SAMPLE)]
    assert len(answers) == len(SAMPLE)
    notebooks = {"the instructor's solution": only_timed(solution)} | {
        answer.why: only_timed(with_cell_replaced(solution, answer.cell, answer.code)) for answer in answers
    }
    folder = GRADING / "source" / NAME
    idle = {why: forked.results(notebook, folder) for why, notebook in notebooks.items()}
    with busy_cores(2 * (os.cpu_count() or 1)):
        loaded = {why: forked.results(notebook, folder) for why, notebook in notebooks.items()}
    full = idle["the instructor's solution"]
    assert len(full) == len(TIMED) and all(full.values()), full
    assert all(not all(results.values()) for why, results in idle.items() if why in {a.why for a in answers})
    assert {why: results for why, results in loaded.items() if results != idle[why]} == {}
