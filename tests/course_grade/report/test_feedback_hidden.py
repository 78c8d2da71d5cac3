"""A learner's feedback shows no hidden test: not its source, inputs or expected values, even when printed."""

from __future__ import annotations

import copy
import html
import re
from pathlib import Path

import pytest
from nbclient import NotebookClient
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_notebook

from course_grade.cells import cell_grade_id
from course_grade.notebooks import read, write
from course_grade.run.hardened import HideHiddenTests
from course_grade.run.kernels import IpcKernelManager
from course_grade.score.hidden import checks, hidden_lines
from grading.wrong_answers import published
from tests.support.grading_helpers import course_grade, fresh_course

ASSIGNMENT = "01_envelope"
SOURCE = Path(__file__).resolve().parents[3] / "grading" / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
NOTEBOOK = Path(__file__).resolve().parents[3] / "notebooks" / f"{ASSIGNMENT}.ipynb"

PRINTS_SOURCES = """
_seen = []


def _echo(lines):
    print("".join(lines))
    _seen.append("".join(lines))
    return lines


get_ipython().input_transformers_post.append(_echo)
"""
"""An input transformer that prints every later cell's source, the tests' hidden parts included, and keeps
them in `_seen` for a later cell to print."""

TEST = """assert f(1) == 1, 'visible'
### BEGIN HIDDEN TESTS
assert f(2) == 2
for v in ['s3cret', 'other']:
    assert f(v) == v, f'{v!r} expected back'
### END HIDDEN TESTS"""


def _executed(*sources: str) -> NotebookNode:
    """A notebook of these cells as a grading kernel leaves it (errors recorded, not raised)."""
    notebook = new_notebook(cells=[new_code_cell(source) for source in sources])
    NotebookClient(notebook, timeout=30, allow_errors=True, kernel_manager_class=IpcKernelManager).execute()
    return notebook


def _shown(notebook: NotebookNode) -> str:
    """Everything the feedback renders of a notebook, sources and outputs, as one text."""
    shown, _ = HideHiddenTests()(copy.deepcopy(notebook), {})
    return repr([(cell.source, cell.get("outputs", [])) for cell in shown.cells])


def test_the_hidden_region_is_split_into_its_checks() -> None:
    assert checks(TEST) == [(3, 3), (5, 5)]


@pytest.fixture(scope="module")
def kernel_run() -> NotebookNode:
    return _executed(
        "def f(x):\n    return 'wrong' if str(x).startswith('s3') else x",
        TEST,
        "def f(x):\n    return None",
        TEST,
        PRINTS_SOURCES + "\ndef f(x):\n    return x",
        TEST,
        "print(''.join(_seen))",
    )


def test_a_hidden_failure_is_one_numbered_line(kernel_run: NotebookNode) -> None:
    shown = _shown(new_notebook(cells=kernel_run.cells[:2]))
    assert "hidden test 2 of 2 failed (AssertionError)" in shown and "s3cret" not in shown


def test_a_visible_failure_keeps_its_message(kernel_run: NotebookNode) -> None:
    shown = _shown(new_notebook(cells=kernel_run.cells[2:4]))
    assert "AssertionError: visible" in shown and "hidden test" not in shown


def test_printed_sources_lose_every_hidden_line(kernel_run: NotebookNode) -> None:
    cells = kernel_run.cells[4:]
    assert "s3cret" in repr(cells[1].outputs) and "s3cret" in repr(cells[2].outputs)  # printed twice
    shown = _shown(new_notebook(cells=cells))
    assert not any(line in shown for line in hidden_lines(TEST)) and "s3cret" not in shown


def test_an_error_raised_on_a_hidden_input_shows_no_input() -> None:
    """The learner's function fails on a hidden input, and its message quotes that input."""
    notebook = _executed(
        "def f(x):\n    raise ValueError(f'bad {x}')",
        "x = 1\n### BEGIN HIDDEN TESTS\nf('s3cret')\n### END HIDDEN TESTS",
    )
    shown = _shown(notebook)
    assert "hidden test 1 of 1 failed (ValueError)" in shown and "s3cret" not in shown


# End to end: `course-grade run` on 01, a wrong answer, a source printer and a visible failure.

STUDENTS = {
    "isinstance": "isinstance(..., str) for text, id and name",
    "shallow": "returns a shallow copy, dict(raw)",
}
"""student -> the start of the `why` of the published wrong answer they submit for parse_envelope."""


def _submission(code: str) -> NotebookNode:
    """The instructor's notebook with parse_envelope's solution cell replaced by `code`."""
    notebook = read(SOURCE)
    for cell in notebook.cells:
        if cell_grade_id(cell) == "parse_envelope":
            cell.source = code
    return notebook


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """student -> the text of their feedback page (tags removed), and the code they wrote."""
    folder = tmp_path_factory.mktemp("feedback")
    course = fresh_course(folder)
    wrong = {answer.why: answer.code for answer in published(ASSIGNMENT)}
    codes = {student: next(code for why, code in wrong.items() if why.startswith(start))
             for student, start in STUDENTS.items()}  # fmt: skip
    solution = next(cell.source for cell in read(SOURCE).cells if cell_grade_id(cell) == "parse_envelope")
    codes["prints-sources"] = PRINTS_SOURCES + "\n" + solution
    for student, code in codes.items():
        target = folder / "submitted" / student / ASSIGNMENT
        target.mkdir(parents=True)
        write(_submission(code), target / f"{ASSIGNMENT}.ipynb")
    run = course_grade(course, "run", str(folder / "submitted"), ASSIGNMENT, "--jobs", "2", "--timeout", "60")
    assert run.returncode == 0, run.stderr
    found = {}
    for student in codes:
        page = (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
        found[student] = (html.unescape(re.sub(r"<[^>]+>", "", page)), codes[student])
    return found


def _leaked(page: str, own: str) -> list[str]:
    """The hidden lines of the source notebook found in a page, but for those in the learner's own code or in
    the learners' version."""
    learners = read(NOTEBOOK).cells
    public = (
        "\n".join(cell.source for cell in learners) + repr([cell.get("outputs") for cell in learners]) + own
    )
    lines = {line for cell in read(SOURCE).cells for line in hidden_lines(cell.source)}
    return sorted(line for line in lines if len(line) > 8 and line in page and line not in public)


@pytest.mark.timeout(900)
@pytest.mark.xdist_group("feedback_hidden")
def test_a_wrong_answers_feedback_shows_no_hidden_input(pages: dict[str, tuple[str, str]]) -> None:
    page, own = pages["isinstance"]
    assert re.search(r"hidden test \d+ of \d+ failed", page) and _leaked(page, own) == []
    shown_anyway = NOTEBOOK.read_text(encoding="utf-8")  # a visible test may use the same kind of input
    hidden_inputs = [text for text in ("_Tagged(", "OrderedDict(note_id") if text not in shown_anyway]
    assert hidden_inputs and not [text for text in hidden_inputs if text in page]


@pytest.mark.timeout(900)
@pytest.mark.xdist_group("feedback_hidden")
def test_a_source_printer_leaks_no_hidden_test(pages: dict[str, tuple[str, str]]) -> None:
    assert _leaked(*pages["prints-sources"]) == []


@pytest.mark.timeout(900)
@pytest.mark.xdist_group("feedback_hidden")
def test_a_visible_failure_keeps_its_message_on_the_page(pages: dict[str, tuple[str, str]]) -> None:
    assert "changing the result changed the input: ['a', 'b']" in pages["shallow"][0]
