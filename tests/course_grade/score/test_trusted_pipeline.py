"""The trusted verdicts inside `course-grade run`: an attack nbgrader falls for scores what the grader checked.

One small class (the solution, the empty learners' version with its tests tagged skip-execution, and the
solution with an input transformer that blanks every later cell) is graded once; nbgrader alone gives the
two attackers full marks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from course_grade.course import Course
from course_grade.notebooks import read
from course_grade.notes import load_notes
from course_grade.score.gradebook import scores
from tests.support.grading_helpers import Run, course_grade, csv_rows, fresh_course, write_class

pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("course_grade")]

ASSIGNMENT = "01_envelope"
HOOK = "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])\n"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    root = tmp_path_factory.mktemp("trusted")
    course = fresh_course(root)
    assert course_grade(course, "release", ASSIGNMENT).returncode == 0
    solution = read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    skipper = read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    for cell in skipper.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata["tags"] = ["skip-execution"]
    blanker = read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    first_solution = next(c for c in blanker.cells if c.metadata.get("nbgrader", {}).get("solution"))
    first_solution.source = HOOK + first_solution.source
    pack = write_class(
        root / "pack", ASSIGNMENT, {"honest": solution, "skipper": skipper, "blanker": blanker}
    )
    run = course_grade(course, "run", str(pack), ASSIGNMENT, "--jobs", "2", cwd=root)
    assert run.returncode == 0, run.stderr
    return root, run


def score(run: Run, student: str) -> float:
    return scores(run.db_url, Course.open(run.course).course_id, ASSIGNMENT, [student])[student][0]


@pytest.mark.parametrize("student", ["skipper", "blanker"])
def test_an_attack_on_the_kernel_scores_zero(graded: tuple[Path, Run], student: str) -> None:
    assert score(graded[1], student) == 0


def test_an_attack_nbgrader_falls_for_is_flagged_possible_tampering(graded: tuple[Path, Run]) -> None:
    """The input transformer fools nbgrader (tags may be cleaned before nbgrader runs: no flag needed then)."""
    _, run = graded
    notes = load_notes(run.course / "grading_notes" / "blanker" / f"{ASSIGNMENT}.json")
    assert "possible-tampering" in {note.kind for note in notes}


def test_the_honest_learner_keeps_full_marks_and_no_flag(graded: tuple[Path, Run]) -> None:
    _, run = graded
    assert score(run, "honest") > 0 and not load_notes(
        run.course / "grading_notes" / "honest" / f"{ASSIGNMENT}.json"
    )


def test_the_summary_and_the_csv_name_the_possible_tampering(graded: tuple[Path, Run]) -> None:
    root, run = graded
    rows = {row["student_id"]: row for row in csv_rows(root / "grades.csv")}
    assert "POSSIBLE TAMPERING in " in run.stdout and f"  - blanker ({ASSIGNMENT})" in run.stdout
    # "honest" hands in the instructor's notebook itself: a verbatim copy, the one thing its review names
    assert rows["honest"]["review"] == f"similar to the instructor's solution (source/{ASSIGNMENT}) (100%)"
    assert "nbgrader passed it" in rows["blanker"]["review"]
