"""course-grade inside nbgrader's class workflow: collected submissions in, feedback the exchange can release out.

One class, graded once for the module: `ada` hands in the instructor's own notebook a day late (the course
zeroes late work), `bob` the blank learners' version on time; both carry the files nbgrader's exchange writes.
"""

from __future__ import annotations

import datetime
import re
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from grading.build_notebooks import nbgrader_environment
from tests.support.grading_helpers import Run, course_grade, csv_rows, fresh_course

pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("nbgrader_workflow")]

ASSIGNMENT = "01_envelope"
DUE = datetime.datetime(2026, 11, 2, 12, 0)
COURSE_ID = "tool-call-boundary"


@dataclass(frozen=True)
class Graded:
    course: Path
    submissions: Path
    run: Run


def hand_in(folder: Path, notebook: Path, when: datetime.datetime, secret: str) -> None:
    """A submission as nbgrader's exchange collects it: the notebook, its timestamp and its secret."""
    folder.mkdir(parents=True)
    shutil.copy(notebook, folder / f"{ASSIGNMENT}.ipynb")
    (folder / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    (folder / "submission_secret.txt").write_text(secret)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    root = tmp_path_factory.mktemp("workflow")
    course = fresh_course(root)
    with (course / "nbgrader_config.py").open("a") as config:
        config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    assert course_grade(course, "generate", ASSIGNMENT).returncode == 0
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gradebook:
        gradebook.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
    submissions = root / "collected"
    source = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    hand_in(submissions / "ada" / ASSIGNMENT, source, DUE + datetime.timedelta(days=1), "secret-of-ada")
    blank = course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    hand_in(submissions / "bob" / ASSIGNMENT, blank, DUE - datetime.timedelta(hours=1), "secret-of-bob")
    run = course_grade(course, "run", str(submissions), "--to", str(root / "grades.csv"), "--jobs", "2")
    assert run.returncode == 0, run.stdout + run.stderr
    return Graded(course, submissions, run)


def test_run_with_no_assignment_named_grades_those_the_submissions_hold_and_says_so(graded: Graded) -> None:
    assert f"grading {ASSIGNMENT}: the assignments these submissions hold" in graded.run.stdout
    with Gradebook(graded.run.db_url, COURSE_ID) as gradebook:
        assert [assignment.name for assignment in gradebook.assignments] == [ASSIGNMENT]
    rows = csv_rows(graded.course.parent / "grades.csv")
    assert {row["assignment"] for row in rows} == {ASSIGNMENT} and len(rows) == 2


def test_generating_the_learners_versions_is_not_called_releasing(graded: Graded) -> None:
    assert f"generated the learners' version of {ASSIGNMENT}" in graded.run.stdout
    assert "released" not in graded.run.stdout


def test_feedback_written_by_course_grade_is_released_through_nbgrader_exchange(graded: Graded) -> None:
    exchange = graded.course.parent / "exchange"
    exchange.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "release_feedback", ASSIGNMENT, f"--Exchange.root={exchange}"],
        cwd=graded.course, env=nbgrader_environment(), capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(list((exchange / COURSE_ID / "feedback").glob("*.html"))) == 2


def test_late_work_shows_the_same_score_in_the_summary_and_in_grades_csv(graded: Graded) -> None:
    rows = {row["student_id"]: row for row in csv_rows(graded.course.parent / "grades.csv")}
    assert float(rows["ada"]["raw_score"]) == 24 and float(rows["ada"]["score"]) == 0, rows["ada"]
    mean = statistics.mean(float(row["score"]) for row in rows.values())
    summary = re.search(rf"^{ASSIGNMENT}\s+2\s+24\s+([\d.]+)", graded.run.stdout, re.M)
    assert summary and float(summary.group(1)) == mean, graded.run.stdout
    assert re.search(r"ada\s+0/24", graded.run.stdout), "the progress line shows the raw score"


def test_a_submission_something_else_graded_since_is_graded_again(graded: Graded) -> None:
    again = course_grade(graded.course, "autograde", str(graded.submissions))
    assert "skipping 2 submissions graded before" in again.stdout, again.stdout
    with Gradebook(graded.run.db_url, COURSE_ID) as gradebook:  # as nbgrader's autograde would leave it
        grade = gradebook.find_grade("test_parse_envelope_keys", ASSIGNMENT, ASSIGNMENT, "bob")
        grade.auto_score = 1.0
        gradebook.db.commit()
    (graded.course / "autograded" / "ada" / ASSIGNMENT / "timestamp.txt").unlink()
    after = course_grade(graded.course, "autograde", str(graded.submissions))
    assert "autograding 2 submissions" in after.stdout and "skipping" not in after.stdout, after.stdout
    with Gradebook(graded.run.db_url, COURSE_ID) as gradebook:
        assert gradebook.find_grade("test_parse_envelope_keys", ASSIGNMENT, ASSIGNMENT, "bob").auto_score == 0


@pytest.mark.parametrize("folder", ["", "source", "release"])
def test_a_course_directory_is_refused_as_submissions(tmp_path: Path, folder: str) -> None:
    course = fresh_course(tmp_path)
    (course / "release").mkdir(exist_ok=True)
    run = course_grade(course, "run", str(course / folder))
    assert run.returncode == 1 and "not a folder of submissions" in run.stderr, run.stderr
    assert not (course / "gradebook.db").exists() and not (course / "submitted").exists()
