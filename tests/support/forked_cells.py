"""Judge a notebook's graded test cells by nbgrader's rule in a forked IPython shell, without a kernel.

A server process (`python -m tests.support.forked_cells`) imports IPython and the course's libraries once. Each
notebook runs in a child forked from it: a fresh shell and namespace, copy-on-write memory, no kernel to
start and no message round trips, which is most of a small notebook's cost. nbgrader's rule is kept: a
test cell fails if it raised or wrote anything to `sys.stderr` (what a process writes to its file descriptor 2
directly is not seen, in a kernel either). The cells are judged and forked as grading/mutants.py does
(`run_cell`, `in_child`).
The wrong-answer sweep runs about two hundred notebooks this way; tests/notebooks/test_notebooks.py checks on a
notebook of each assignment that its verdicts are exactly a real kernel's.

Protocol: one JSON line per job on the server's stdin (`folder`, `cells`, `seconds`), one JSON line per
answer on its stdout (`results`, or `error`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat

from grading.mutants import in_child, run_cell

ROOT = Path(__file__).resolve().parents[2]
PRELOADED = ("IPython.core.interactiveshell", "course_lib.pack", "course_lib.sdk_loop", "openai", "anthropic")
"""Imported once by the server, before any fork: what the notebooks import, and the slow parts of it."""


class ForkedCells:
    """A client of the server: `results(notebook, folder)` as tests/notebook_runner.graded_results gives."""

    def __init__(self) -> None:
        self._server = subprocess.Popen(
            [sys.executable, "-m", "tests.support.forked_cells"],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

    def results(self, notebook: nbformat.NotebookNode, folder: Path, seconds: float = 120) -> dict[str, bool]:
        """Run every code cell in a fresh forked shell in `folder`; map each graded test cell to passed."""
        cells = [
            {"source": cell.source, "grade_id": cell.metadata.get("nbgrader", {}).get("grade_id")
             if cell.metadata.get("nbgrader", {}).get("grade") else None}
            for cell in notebook.cells if cell.cell_type == "code"
        ]  # fmt: skip
        assert self._server.stdin and self._server.stdout
        self._server.stdin.write(
            json.dumps({"folder": str(folder), "cells": cells, "seconds": seconds}) + "\n"
        )
        self._server.stdin.flush()
        line = self._server.stdout.readline()
        if not line:
            raise RuntimeError(f"the forked-cells server died (exit status {self._server.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return dict(answer["results"])

    def close(self) -> None:
        """Stop the server."""
        if self._server.stdin:
            self._server.stdin.close()
        try:
            self._server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._server.kill()
            self._server.wait()


def _run_cells(job: dict[str, Any], shell_class: Any, config: Any) -> dict[str, bool]:
    """In the forked child: run the cells in order on a fresh shell and judge the graded ones."""
    os.chdir(job["folder"])
    sys.path[0] = job["folder"]  # as a kernel started in the notebook's folder has it
    shell = shell_class.instance(config=config)
    results: dict[str, bool] = {}
    for cell in job["cells"]:
        passed = run_cell(shell, cell["source"])
        if cell["grade_id"] is not None:
            results[cell["grade_id"]] = passed
    return results


def _serve_one(job: dict[str, Any], shell_class: Any, config: Any) -> dict[str, Any]:
    """Run one job in a forked child, killed at the deadline (its stderr stays the server's)."""
    seconds = float(job["seconds"])
    answer = in_child(seconds, lambda: {"results": _run_cells(job, shell_class, config)}, keep_stderr=True)
    if answer.get("timeout"):
        return {"error": f"the notebook ran longer than {job['seconds']} s"}
    if "error" in answer:
        return {"error": f"the forked run failed: {answer['error']}"}
    return answer


def serve() -> None:
    """Answer jobs from stdin until it closes; one forked child per job, never two at once."""
    import importlib

    for module in PRELOADED:
        importlib.import_module(module)
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    from course_grade.score.oracle import judge
    from course_grade.score.oracle.judge import REMOTE_EXAMPLES, prepare, sampling_judge
    from course_lib.oracle import install

    install(sampling_judge)  # the differential hidden tests run here as in the trusted checks, local ones too
    judge.SHRINK_SECONDS = 0.0  # a verdict is all a test reads here: no counterexample is shrunk for a report
    config = Config()
    config.HistoryManager.enabled = False  # no history database, no saving thread to fork with
    for line in sys.stdin:
        job = json.loads(line)
        prepare(
            (cell["source"] for cell in job["cells"]), budget=REMOTE_EXAMPLES
        )  # drawn once, shared by forks
        answer = _serve_one(job, InteractiveShell, config)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve()
