"""A test cell the learner deleted or moved runs where the instructor's notebook puts it (issue 34, joint 9).

nbgrader puts a deleted test back right after the previous cell it tracks (the solution), ahead of the
untracked worked examples it relies on, and runs a test the learner moved up where it is; either then fails
a correct answer. One 04 is graded twice, as two students: the instructor's solution with every test cell
deleted, and with one test cell (it needs a helper defined between the solution and the tests) moved to the
top. `course_grade.cells.in_context` is also checked on its own, on small notebooks.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from course_grade.cells import cell_grade_id, in_context, is_test
from course_grade.course import Course
from course_grade.notebooks import node, read, write
from course_grade.score.gradebook import scores
from tests.support.grading_helpers import Run, course_grade, fresh_course

ASSIGNMENT = "04_wire"
MOVED = "test_chained_loop_chains"
"""A test that calls `run_chain`, a helper the instructor's notebook defines after the solution cell."""


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("in-context")
    course = fresh_course(root)
    assert course_grade(course, "release", ASSIGNMENT).returncode == 0
    solution = read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    deleted = copy.deepcopy(solution)
    deleted.cells = [cell for cell in deleted.cells if not is_test(cell)]
    moved = copy.deepcopy(solution)
    [test] = [cell for cell in moved.cells if cell_grade_id(cell) == MOVED]
    moved.cells.remove(test)
    moved.cells.insert(0, test)
    for student, notebook in {"deleted": deleted, "moved": moved}.items():
        folder = root / "pack" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        write(notebook, folder / f"{ASSIGNMENT}.ipynb")
    run = course_grade(
        course, "run", str(root / "pack"), ASSIGNMENT, "--jobs", "2", "--sandbox", "on", cwd=root
    )
    assert run.returncode == 0, run.stderr
    return run


@pytest.mark.timeout(600)
@pytest.mark.xdist_group("course_grade")
def test_a_correct_answer_without_its_test_cells_keeps_full_marks(graded: Run) -> None:
    found = scores(graded.db_url, Course.open(graded.course).course_id, ASSIGNMENT, ["deleted"])
    assert found["deleted"] == (35.0, 35.0)


@pytest.mark.timeout(600)
@pytest.mark.xdist_group("course_grade")
def test_a_correct_answer_with_a_test_cell_moved_to_the_top_keeps_full_marks(graded: Run) -> None:
    found = scores(graded.db_url, Course.open(graded.course).course_id, ASSIGNMENT, ["moved"])
    assert found["moved"] == (35.0, 35.0)


def _cell(source: str, grade_id: str = "", test: bool = False, cell_id: str = "") -> dict[str, Any]:
    meta = {"nbgrader": {"grade_id": grade_id, "grade": test, "solution": not test}} if grade_id else {}
    return {"cell_type": "code", "source": source, "metadata": meta, **({"id": cell_id} if cell_id else {})}


INSTRUCTOR = [
    _cell("import x", cell_id="a"),
    _cell("def f(): ...", "f", cell_id="b"),
    {"cell_type": "markdown", "source": "Check it.", "metadata": {}},
    _cell("helper = 1", cell_id="c"),
    _cell("assert f", "t1", test=True, cell_id="d"),
    _cell("assert helper", "t2", test=True, cell_id="e"),
    _cell("later = 2", cell_id="g"),
]


def _order(cells: list[Any]) -> list[str]:
    return [cell_grade_id(cell) or str(cell.get("source")) for cell in cells]


def test_a_test_put_back_after_its_solution_moves_after_the_examples_it_follows() -> None:
    cells = copy.deepcopy([INSTRUCTOR[0], INSTRUCTOR[1], INSTRUCTOR[4], INSTRUCTOR[5], INSTRUCTOR[3]])
    assert in_context(cells, INSTRUCTOR) == ["t1", "t2"]
    assert _order(cells) == ["import x", "f", "helper = 1", "t1", "t2"]


def test_cells_are_matched_by_id_when_edited_and_by_source_without_an_id() -> None:
    edited = {**INSTRUCTOR[3], "source": "helper = 1  # mine"}
    no_id = {key: value for key, value in INSTRUCTOR[0].items() if key != "id"}
    cells = copy.deepcopy([INSTRUCTOR[4], no_id, INSTRUCTOR[1], edited])
    assert in_context(cells, INSTRUCTOR) == ["t1"]
    assert _order(cells) == ["import x", "f", "helper = 1  # mine", "t1"]


def test_a_test_already_after_its_examples_stays_below_the_learners_own_cells() -> None:
    cells = copy.deepcopy([*INSTRUCTOR[:4], _cell("def mine(): ..."), *INSTRUCTOR[4:]])
    before = _order(cells)
    assert in_context(cells, INSTRUCTOR) == []
    assert _order(cells) == before


def test_cells_not_shaped_as_nbformats_match_nothing_and_raise_nothing() -> None:
    odd: list[Any] = [None, 3, {"cell_type": "code", "metadata": [], "source": ["x"], "id": ["y"]}]
    cells = copy.deepcopy([INSTRUCTOR[4], *odd, INSTRUCTOR[3]])
    assert in_context(cells, [*odd, *INSTRUCTOR]) == ["t1"]
    assert cells[-1]["metadata"]["nbgrader"]["grade_id"] == "t1"


def test_the_learners_notebook_node_is_reordered_in_place() -> None:
    notebook = node(cells=copy.deepcopy(INSTRUCTOR[3:5])[::-1])
    in_context(notebook.cells, INSTRUCTOR)
    assert _order(notebook.cells) == ["helper = 1", "t1"]
