"""Submission cleaning, static flags, scores recomputed from the notebook, hidden tests out of feedback."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from course_grade.attacks import TRANSFORMER
from course_grade.cleaning import clean, flags, source_hash
from course_grade.course import REPOSITORY_COURSE
from course_grade.gradebook import rescore
from course_grade.hardened import HideHiddenTests
from course_grade.jobs import NotebookGrades, SubmissionGrades
from course_grade.kernels import GradingKernelManager
from course_grade.problems import NotebookDefinition


def _cell(source: str, grade_id: str = "", **nbgrader: Any) -> dict[str, Any]:
    metadata = {"nbgrader": {"grade_id": grade_id, **nbgrader}} if grade_id else {}
    return {"cell_type": "code", "source": source, "metadata": metadata, "outputs": []}


def test_cleaning_removes_every_tag_and_reports_the_skipping_ones() -> None:
    notebook = {"cells": [_cell("assert f() == 1", "t1"), _cell("x = 1")]}
    notebook["cells"][0]["metadata"]["tags"] = ["skip-execution", "raises-exception"]
    notebook["cells"][1]["metadata"]["tags"] = ["demo"]
    assert clean(notebook) == ["`t1`: skip-execution"]
    assert all("tags" not in cell["metadata"] for cell in notebook["cells"])


@pytest.mark.parametrize(
    ("source", "label"),
    [
        (TRANSFORMER, "IPython internals"),
        ("import sys\nsys.settrace(None)", "tracing"),
        ("import sqlite3", "sqlite3"),
        ("open('/proc/1/cmdline')", "/proc"),
        ("from jupyter_client import BlockingKernelClient", "jupyter_client or zmq"),
        ("import ctypes", "ctypes"),
        ("import os\nos.kill(1, 9)", "signals to processes"),
        ("import subprocess", "subprocesses"),
        ("def parse_envelope(raw, _impl=envelope_lib.parse_envelope):\n    return _impl(raw)",
         "the reference module of the function it defines"),
    ],
)  # fmt: skip
def test_a_learner_cell_reaching_for_the_machinery_is_flagged(source: str, label: str) -> None:
    notebook = {"cells": [_cell("from course_lib import envelope as envelope_lib"), _cell(source, "a")]}
    assert label in " ".join(flags(notebook, frozenset()))


def test_a_cell_the_instructor_wrote_is_not_flagged() -> None:
    notebook = {"cells": [_cell("import subprocess")]}
    assert flags(notebook, frozenset({source_hash("import subprocess")})) == []


def test_no_instructor_solution_of_the_course_is_flagged() -> None:
    for path in sorted((REPOSITORY_COURSE / "source").glob("*/*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        solutions = [cell for cell in cells if cell["metadata"].get("nbgrader", {}).get("solution")]
        assert flags({"cells": solutions}, frozenset()) == [], path.name


def _autograded(*outputs: list[Any]) -> bytes:
    cells = [new_code_cell("assert f()", metadata={"nbgrader": {"grade": True, "grade_id": f"t{i}", "points": 99}},
                           outputs=out) for i, out in enumerate(outputs)]  # fmt: skip
    return nbformat.writes(new_notebook(cells=cells)).encode()


def test_scores_come_from_the_notebook_with_the_gradebooks_points_not_from_the_workers_gradebook() -> None:
    error = new_output("error", ename="AssertionError", evalue="", traceback=[])
    notebook = _autograded([], [error])
    definition = NotebookDefinition("nb", {"t0": 2.0, "t1": 3.0, "t2": 5.0})
    claimed = SubmissionGrades(
        "ann", "a1", None, (NotebookGrades("nb", {"t0": 2, "t1": 3, "t2": 5}, {}, -7.0),)
    )
    [graded] = rescore(claimed, {"nb": notebook}, [definition]).notebooks
    assert graded.scores == {"t0": 2.0, "t1": 0.0, "t2": 0.0} and graded.late_penalty == 0.0


def test_feedback_keeps_no_hidden_test_nor_its_traceback() -> None:
    source = "assert f(1) == 1\n### BEGIN HIDDEN TESTS\nassert f(2) == 'secret'\n### END HIDDEN TESTS"
    error = new_output("error", ename="AssertionError", evalue="", traceback=["assert f(2) == 'secret'"])
    cell = new_code_cell(source, outputs=[error])
    shown, _ = HideHiddenTests()(new_notebook(cells=[cell]), {})
    assert "secret" not in json.dumps(shown) and "assert f(1) == 1" in shown.cells[0].source


def launched_environment(monkeypatch: pytest.MonkeyPatch, environment: dict[str, str]) -> dict[str, str]:
    """The environment a grading kernel would be started with, given the grader's."""
    launched: dict[str, Any] = {}

    async def launch(self: Any, cmd: list[str], **kw: Any) -> None:
        launched.update(kw)

    monkeypatch.setattr("jupyter_client.manager.AsyncKernelManager._async_launch_kernel", launch)
    asyncio.run(GradingKernelManager()._async_launch_kernel(["true"], env=environment))
    return dict(launched["env"])


def test_the_kernel_never_sees_nbgrader_execution(monkeypatch: pytest.MonkeyPatch) -> None:
    environment = {"NBGRADER_EXECUTION": "autograde", "PATH": "/usr/bin"}
    assert launched_environment(monkeypatch, environment) == {"PATH": "/usr/bin"}


def test_the_kernel_never_sees_the_graders_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = {"OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "a", "GITHUB_TOKEN": "t", "JUPYTER_TOKEN": "j"}
    kept = {"HOME": "/home/me", "LC_ALL": "C.UTF-8", "OPENBLAS_CORETYPE": "Haswell", "JPY_PARENT_PID": "1"}
    assert launched_environment(monkeypatch, {**secrets, **kept}) == kept
