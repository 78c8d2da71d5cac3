"""The graded notebooks: nbgrader accepts them, learners' versions start at zero, wrong answers lose points."""

from __future__ import annotations

import copy
import functools
import json
import re
import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbgrader.api import Gradebook

from course_grade.cells import is_quiz
from course_grade.run.kernels import IpcKernelManager
from grading.build_notebooks import (
    GRADING,
    LEARNERS,
    assignments,
    stale_learner_versions,
)
from grading.wrong_answers import WrongAnswer, published
from tests.support.forked_cells import ForkedCells
from tests.support.grading_helpers import fresh_course, nbgrader
from tests.support.notebook_runner import (
    borrowings_between_test_cells,
    ending_at,
    grade_ids,
    graded_results,
    instructor_notebook,
    only_tests,
    with_cell_replaced,
    without_demos,
)

NAMES = assignments()


WRONG = [(name, answer) for name in NAMES for answer in published(name)]


def test_the_course_has_its_seven_notebooks_in_order() -> None:
    expected = [
        "01_envelope",
        "02_dispatcher",
        "03_loop",
        "04_wire",
        "05_failures",
        "06_security",
        "07_capstone",
    ]
    assert expected == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_the_learner_version_has_no_solutions_or_hidden_tests(name: str) -> None:
    text = (LEARNERS / f"{name}.ipynb").read_text(encoding="utf-8")
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text and "NotImplementedError" in text


@pytest.mark.parametrize("name", NAMES)
def test_without_its_demo_cells_the_solution_still_passes_every_test(name: str, forked: ForkedCells) -> None:
    """Wrong answers run without the cells tagged "demo": no test may depend on them."""
    results = forked.results(without_demos(instructor_notebook(name)), GRADING / "source" / name)
    assert results and all(results.values()), [test for test, passed in results.items() if not passed]


@pytest.mark.parametrize("name", NAMES)
def test_each_test_cell_stands_on_the_cells_that_are_not_tests(name: str, forked: ForkedCells) -> None:
    """The wrong-answer sweep runs only the test cells an answer names: none may read a name another test
    cell binds, and each passes on the solution with no other test cell run before it."""
    notebook = without_demos(instructor_notebook(name))
    assert borrowings_between_test_cells(notebook) == {}
    alone = {
        test: forked.results(only_tests(ending_at(notebook, (test,)), (test,)), GRADING / "source" / name)[
            test
        ]
        for test in grade_ids(notebook, tests=True)
    }
    assert alone and all(alone.values()), [test for test, passed in alone.items() if not passed]


def test_a_test_cell_that_borrows_from_another_is_found() -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(source) for source in ("def f(): pass", "x = f()", "assert x")
    ]
    for index, cell in enumerate(notebook.cells[1:], 1):
        cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": f"t{index}"}
    assert borrowings_between_test_cells(notebook) == {"t2": {"x"}}
    notebook.cells[1].metadata["nbgrader"]["grade"] = False  # a helper cell, not a test: nothing borrowed
    assert borrowings_between_test_cells(notebook) == {}


@pytest.mark.parametrize("name", NAMES)
def test_the_forked_shell_judges_every_test_cell_as_a_kernel_does(name: str, forked: ForkedCells) -> None:
    """The wrong-answer sweep's executor against a real kernel, on a whole notebook where some cells fail."""
    answer = published(name)[0]
    notebook = with_cell_replaced(without_demos(instructor_notebook(name)), answer.cell, answer.code)
    in_kernel = graded_results(notebook, GRADING / "source" / name)
    assert any(in_kernel.values()) and not all(in_kernel.values())
    assert forked.results(notebook, GRADING / "source" / name) == in_kernel


@pytest.mark.parametrize("name", NAMES)
def test_every_exercise_has_a_wrong_answer_that_loses_points(name: str) -> None:
    answered = {answer.cell for answer in published(name)}
    assert answered == set(grade_ids(instructor_notebook(name), tests=False))


@pytest.mark.parametrize(
    ("name", "answer"), WRONG, ids=[f"{n}-{a.cell}-{i}" for i, (n, a) in enumerate(WRONG)]
)
def test_a_wrong_answer_fails_the_tests_that_name_it(
    name: str, answer: WrongAnswer, forked: ForkedCells
) -> None:
    notebook = with_cell_replaced(without_demos(instructor_notebook(name)), answer.cell, answer.code)
    notebook = only_tests(ending_at(notebook, answer.fails), answer.fails)
    results = forked.results(notebook, GRADING / "source" / name)
    missed = [test for test in answer.fails if results.get(test, True)]
    assert not missed, f"{answer.why}: these tests still pass: {missed}"


def test_the_learners_versions_are_not_stale() -> None:
    assert stale_learner_versions(NAMES) == [], "run `python3 course.py build` to regenerate notebooks/"


@pytest.mark.timeout(400)  # two nbgrader runs and two kernels: slow on a loaded machine, never hung
@pytest.mark.parametrize("name", NAMES)
def test_autograding_gives_full_marks_to_the_solution_and_zero_to_the_learner_version(
    name: str, tmp_path: Path
) -> None:
    """nbgrader's own release and autograde: every test cell of the instructor version passes, none of the
    learners' version does (nbgrader's validator makes the same two checks with the same executor)."""
    course = fresh_course(tmp_path)
    nbgrader(course, "generate_assignment", name, "--force")
    for student, origin in [("solution", course / "source"), ("fresh", course / "release")]:
        folder = course / "submitted" / student / name
        folder.mkdir(parents=True)
        shutil.copyfile(origin / name / f"{name}.ipynb", folder / f"{name}.ipynb")
    nbgrader(course, "autograde", name, "--force")
    with Gradebook(f"sqlite:///{course}/gradebook.db") as gradebook:
        solution = gradebook.find_submission_notebook(name, name, "solution").grades
        fresh = gradebook.find_submission_notebook(name, name, "fresh").grades
        assert solution and all(grade.max_score > 0 for grade in solution)
        assert [grade.name for grade in solution if grade.auto_score != grade.max_score] == []
        assert [grade.name for grade in fresh if grade.auto_score != 0] == []


@pytest.mark.parametrize("name", NAMES)
def test_stored_outputs_show_no_ports_addresses_or_tracebacks(name: str) -> None:
    notebook = nbformat.read(GRADING / "source" / name / f"{name}.ipynb", as_version=4)
    shown = json.dumps([cell.get("outputs", []) for cell in notebook.cells])
    for leak in ["127.0.0.1:", "localhost:", " at 0x", "Traceback (most recent call last)"]:
        assert leak not in shown, f"{name} shows {leak!r} in a stored output"


# ---- the learners' versions: Run All goes through before anything is written ------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_stub_in_the_learners_version_names_its_exercise(name: str) -> None:
    notebook = nbformat.read(LEARNERS / f"{name}.ipynb", as_version=4)
    sources = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    stubs = re.findall(r"raise NotImplementedError\((.*)\)", sources)
    named = r"'(Part [A-Z0-9]+: )?[\w.]+ is not written yet: [^']+'"
    assert stubs and all(re.fullmatch(named, stub) for stub in stubs), stubs


@functools.cache
def _run_all(name: str) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    """The learners' version as stored, and as Run All in JupyterLab leaves it before anything is written: a cell
    that fails stops Run All unless it is tagged raises-exception (CellExecutionError here)."""
    stored = nbformat.read(LEARNERS / f"{name}.ipynb", as_version=4)
    notebook = copy.deepcopy(stored)
    folder = {"metadata": {"path": tempfile.mkdtemp(prefix=f"run-all-{name}-")}}
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources=folder, kernel_manager_class=IpcKernelManager,
        coalesce_streams=True,
    )  # fmt: skip
    client.execute()
    return stored, notebook


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", NAMES)
def test_run_all_in_the_learners_version_reaches_the_last_cell(name: str) -> None:
    """As in JupyterLab: a cell that fails stops Run All unless it is tagged raises-exception. The outputs the
    learners' version stores (its worked examples') are those Run All gives it before anything is written."""
    stored_notebook, notebook = _run_all(name)
    stored = [_shown(cell.outputs) for cell in stored_notebook.cells if cell.cell_type == "code"]
    assert notebook.cells[-1].get("execution_count") is not None
    ran = [_shown(cell.outputs) for cell in notebook.cells if cell.cell_type == "code"]
    differ = [
        number for number, (kept, got) in enumerate(zip(stored, ran, strict=True)) if kept and kept != got
    ]
    assert differ == [], f"{name}: code cells {differ} store outputs that Run All does not give"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", NAMES)
def test_before_anything_is_written_no_test_cell_blames_the_stub_on_the_learner(name: str) -> None:
    """A test cell whose first error comes of a stub shows the stub's own message ("... is not written yet"),
    not a mistake of written code ("it raised NotImplementedError: it must answer ... instead")."""
    _, notebook = _run_all(name)
    problems = []
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if not cell.metadata.get("nbgrader", {}).get("grade") or is_quiz(grade_id):
            continue
        errors = [output for output in cell.outputs if output.output_type == "error"]
        if (
            errors
            and "NotImplementedError" in errors[0].evalue
            and "is not written yet" not in errors[0].evalue
        ):
            shown = f"{errors[0].ename}: {errors[0].evalue}" if errors else "no error"
            problems.append(f"{grade_id}: {shown}")
    assert not problems, "\n".join(problems)


def _shown(outputs: list[nbformat.NotebookNode]) -> list[tuple[object, ...]]:
    """What an output list shows, as nbval compares it: no execution counts or metadata."""
    return [
        (output.output_type, output.get("name"), output.get("text"), output.get("data"), output.get("evalue"))
        for output in outputs
    ]


@pytest.mark.parametrize("name", NAMES[:-1])
def test_no_notebook_before_the_last_calls_itself_the_last(name: str) -> None:
    text = (GRADING / "source" / name / f"{name}.ipynb").read_text(encoding="utf-8")
    assert "last notebook" not in text, f"{name} says it is the last notebook, but {NAMES[-1]} follows"
