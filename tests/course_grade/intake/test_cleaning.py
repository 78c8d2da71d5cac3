"""Submission cleaning, static flags, scores recomputed from the notebook, hidden tests out of feedback."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from nbgrader.utils import compute_checksum  # type: ignore[import-untyped]

from course_grade.course import REPOSITORY_COURSE
from course_grade.intake.checks import NotebookDefinition
from course_grade.intake.cleaning import clean, flags, source_hash
from course_grade.run.hardened import HideHiddenTests
from course_grade.run.kernels import GradingKernelManager
from course_grade.score.gradebook import graded_cells, notebook_scores, rescore
from course_grade.score.submission_grades import NotebookGrades, SubmissionGrades
from course_grade.selftest.attacks import TRANSFORMER


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


@pytest.mark.parametrize(
    "source",
    [
        "eval('1 + 1')",
        "exec('x = 1')",
        "code = compile('1 + 1', '<tool>', 'eval')",
        "run = compile\nrun('1', '<tool>', 'eval')",
        "import builtins\nbuiltins.compile('1', '<tool>', 'eval')",
        "from builtins import compile as c\nc('1', '<tool>', 'eval')",
        "getattr(__builtins__, 'eval')('1')",
        "helpers = [len, eval]",
        "__import__('os')",
        "import importlib\nimportlib.import_module('os')",
        "%time x = eval('1')",
    ],
)
def test_the_builtins_that_run_text_as_code_are_dynamic_code(source: str) -> None:
    assert "dynamic code" in " ".join(flags({"cells": [_cell(source, "a")]}, frozenset())), source


@pytest.mark.parametrize(
    "source",
    [
        "import re\nSECRET = re.compile(r'sk-[A-Za-z0-9]{20,}')\nSECRET.sub('[redacted]', text)",
        "from re import compile\nPATTERN = compile(r'\\d+')",
        "message = 'unknown tool {}'.format(name)",
        "message = format(cost, '.2f')",
        "from string import Template\nTemplate('$who').substitute(who='x')",
        "tree = ast.parse(expression, mode='eval')\nvalue = ast.literal_eval(text)",
        "# never eval, exec or compile(...) what a model sent\nx = 1",
        "pattern = matcher.compile(text)",
    ],
)
def test_methods_and_formatting_of_the_same_names_are_not_dynamic_code(source: str) -> None:
    assert flags({"cells": [_cell(source, "a")]}, frozenset()) == [], source


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


def _graded_notebook_variants() -> list[tuple[str, bytes]]:
    """Autograded notebooks of every shape the scores read: errors, stderr, partial credit, solutions with and
    without an answer, sources stored as lines, a grade_id written twice, and cells that are not graded."""

    def cell(grade_id: str, outputs: list[Any], source: Any = "assert f()", **nbgrader: Any) -> Any:
        made = new_code_cell(source, outputs=outputs)
        made.metadata["nbgrader"] = {"grade": True, "grade_id": grade_id, "points": 4, **nbgrader}
        return made

    unanswered = cell(
        "s1", [], "def f():\n    # YOUR CODE HERE\n    raise NotImplementedError()", solution=True
    )
    unanswered.metadata.nbgrader["checksum"] = compute_checksum(unanswered)
    answered = cell("s2", [], "x = 1", solution=True, checksum="0" * 32)
    half = new_output("execute_result", data={"text/plain": "0.5"}, execution_count=1)
    stderr = new_output("stream", name="stderr", text="careful\n")
    error = new_output("error", ename="AssertionError", evalue="", traceback=["boom"])
    notebook = new_notebook(cells=[
        new_markdown_cell("# a title"), cell("t1", [error]), cell("t2", [stderr]), cell("t3", [half]),
        cell("t4", []), unanswered, answered, cell("t1", []), new_code_cell("print(1)"),
    ])  # fmt: skip
    as_lines = json.loads(nbformat.writes(notebook))  # nbformat stores a source of several lines as a list
    assert any(isinstance(found["source"], list) for found in as_lines["cells"])
    as_strings = copy.deepcopy(as_lines)
    for found in as_strings["cells"]:
        found["source"] = "".join(found["source"])
    third = nbformat.v3.new_notebook(worksheets=[nbformat.v3.new_worksheet(cells=[
        nbformat.v3.new_code_cell("assert f()", metadata={"nbgrader": {"grade": True, "grade_id": "t1", "points": 4}}),
    ])])  # fmt: skip
    return [
        ("sources as lines", json.dumps(as_lines).encode()),
        ("sources as strings", json.dumps(as_strings).encode()),
        ("version 3", nbformat.writes(third, version=3).encode()),
    ]


@pytest.mark.parametrize(
    "label, data", [pytest.param(label, data, id=label) for label, data in _graded_notebook_variants()]
)
def test_the_graded_cells_score_as_the_whole_notebook_read_by_nbformat(label: str, data: bytes) -> None:
    definition = NotebookDefinition(
        "nb", {"t1": 4.0, "t2": 4.0, "t3": 4.0, "t4": 4.0, "s1": 4.0, "s2": 4.0, "t9": 1.0}
    )
    whole = notebook_scores(nbformat.reads(data.decode(), as_version=4), definition)
    assert notebook_scores(graded_cells(data, definition), definition) == whole
    # the variants score differently, so equal scores mean something
    assert len(set(whole.values())) > 1, label


def test_graded_cells_keeps_only_the_graded_cells_of_the_course_notebooks() -> None:
    for path in sorted((REPOSITORY_COURSE / "source").glob("*/*.ipynb")):
        data = path.read_bytes()
        notebook = nbformat.reads(data.decode(), as_version=4)
        ids = {
            cell.metadata.nbgrader.grade_id
            for cell in notebook.cells
            if cell.metadata.get("nbgrader", {}).get("grade")
        }
        definition = NotebookDefinition(path.stem, dict.fromkeys(ids, 1.0))
        picked = graded_cells(data, definition)
        assert [cell.metadata.nbgrader.grade_id for cell in picked.cells] == [
            cell.metadata.nbgrader.grade_id
            for cell in notebook.cells
            if cell.metadata.get("nbgrader", {}).get("grade_id") in ids
        ], path.name
        assert notebook_scores(picked, definition) == notebook_scores(notebook, definition), path.name


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
