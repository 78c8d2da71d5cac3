"""course-grade on a PostgreSQL gradebook, against a real server these tests start (tests/support/postgres.py).

A small class (two learners, assignments 01 and 02) is graded once into the course's sqlite gradebook as
the reference; the same class graded into PostgreSQL, step by step or by two `course-grade run` processes
at once, must give the same grades and the same grades.csv.
"""

from __future__ import annotations

import multiprocessing
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy
from nbgrader.api import Gradebook

from course_grade.course import Course, database_url, use_this_environment
from course_grade.score.gradebook import cell_scores, record
from course_grade.score.submission_grades import SubmissionGrades
from course_grade.selftest.hostile import build
from tests.support.grading_helpers import COMMAND, Run, course_grade, csv_rows, fresh_course
from tests.support.postgres import PostgresServer, postgres_server

pytestmark = [pytest.mark.timeout(900), pytest.mark.xdist_group("postgres")]
"""One xdist worker runs this module: one server and one reference class."""

ASSIGNMENTS = ["01_envelope", "02_dispatcher"]
STUDENTS = ["solution", "partial"]


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    yield from postgres_server()


@dataclass(frozen=True)
class Reference:
    """The class, graded into the course's sqlite gradebook."""

    pack: Path
    run: Run
    csv: Path


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    root = tmp_path_factory.mktemp("reference")
    course = fresh_course(root)
    released = course_grade(course, "release", *ASSIGNMENTS)
    assert released.returncode == 0, released.stderr
    for assignment in ASSIGNMENTS:
        cases = build(Course.open(course), assignment)
        for student in STUDENTS:
            target = root / "pack" / student / assignment
            target.mkdir(parents=True)
            cases[student][1](target)
    run = course_grade(course, "run", str(root / "pack"), *ASSIGNMENTS, "--jobs", "2", "--to", "grades.csv")
    assert run.returncode == 0, run.stderr[-3000:]
    return Reference(root / "pack", run, root / "grades.csv")


def _rows(path: Path, assignment: str) -> list[dict[str, str]]:
    """grades.csv's rows of one assignment, without the submission time (each run takes its own copy in)."""
    return sorted(
        (
            {k: v for k, v in row.items() if k != "timestamp"}
            for row in csv_rows(path)
            if row["assignment"] == assignment
        ),
        key=lambda row: row["student_id"],
    )


def _of(
    assignment: str, table: dict[tuple[str, str, str, str], float | None]
) -> dict[tuple[str, ...], float | None]:
    return {key: score for key, score in table.items() if key[0] == assignment}


def test_plain_postgresql_urls_use_psycopg_3() -> None:
    for url in ("postgresql://u:p@127.0.0.1:5/db", "postgres://u:p@127.0.0.1:5/db"):
        normalised = database_url(url)
        assert normalised == "postgresql+psycopg://u:p@127.0.0.1:5/db"
        assert sqlalchemy.make_url(normalised).get_dialect().driver == "psycopg"
    assert database_url("postgresql+psycopg2://u@h/db") == "postgresql+psycopg2://u@h/db"
    assert database_url("sqlite:////tmp/gradebook.db") == "sqlite:////tmp/gradebook.db"


def test_the_steps_one_at_a_time_on_postgresql_give_the_grades_of_sqlite(
    postgres: PostgresServer, reference: Reference, tmp_path: Path
) -> None:
    url, assignment = postgres.create_database("steps"), ASSIGNMENTS[0]
    course = fresh_course(tmp_path)
    steps = [
        ("release", assignment),
        ("autograde", str(reference.pack), assignment, "--jobs", "2"),
        ("feedback", assignment),
        ("export", assignment, "--to", "steps.csv"),
    ]
    runs = [course_grade(course, *step, "--db", url, cwd=tmp_path) for step in steps]
    assert [run.returncode for run in runs] == [0, 0, 0, 0], [run.stderr[-2000:] for run in runs]
    assert not (course / "gradebook.db").exists()
    assert cell_scores(database_url(url)) == _of(assignment, cell_scores(reference.run.db_url))
    assert _rows(tmp_path / "steps.csv", assignment) == _rows(reference.csv, assignment)
    for student in STUDENTS:
        assert (course / "feedback" / student / assignment / f"{assignment}.html").is_file()


def test_two_runs_at_once_on_one_postgresql_gradebook_lose_no_row(
    postgres: PostgresServer, reference: Reference, tmp_path: Path
) -> None:
    url = postgres.create_database("two_runs")
    course = fresh_course(tmp_path)
    runs = [
        subprocess.Popen(
            [
                COMMAND,
                "run",
                str(reference.pack),
                assignment,
                "--jobs",
                "1",
                "--db",
                url,
                "--course",
                str(course),
                "--to",
                str(tmp_path / f"{assignment}.csv"),
            ],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for assignment in ASSIGNMENTS
    ]
    try:
        outputs = [run.communicate(timeout=600) for run in runs]
    finally:
        for run in runs:
            run.kill()
    assert [run.returncode for run in runs] == [0, 0], [err[-3000:] for _, err in outputs]
    assert cell_scores(database_url(url)) == cell_scores(reference.run.db_url)
    for assignment in ASSIGNMENTS:
        assert _rows(tmp_path / f"{assignment}.csv", assignment) == _rows(reference.csv, assignment)


WRITERS_STUDENTS = 40


def _define(url: str, assignment: str) -> None:
    """An assignment of one notebook with one graded cell, straight into the gradebook."""
    with Gradebook(url) as gradebook:
        gradebook.update_or_create_assignment(assignment)
        gradebook.update_or_create_notebook("nb", assignment)
        gradebook.update_or_create_grade_cell("cell", "nb", assignment, max_score=1, cell_type="code")


def _record_class(url: str, assignment: str, start: float) -> None:
    """Record a submission of `assignment` for every student, beginning at `start` (time.time())."""
    with Gradebook(url) as gradebook:
        time.sleep(max(0.0, start - time.time()))
        for number in range(WRITERS_STUDENTS):
            record(gradebook, SubmissionGrades(f"learner{number:02}", assignment))


def test_two_processes_recording_the_same_new_students_lose_no_row(postgres: PostgresServer) -> None:
    use_this_environment()  # nbgrader runs `alembic` on a new gradebook
    url = database_url(postgres.create_database("writers"))
    with Gradebook(url):
        pass  # the tables
    for assignment in ("a", "b"):
        _define(url, assignment)
    start = time.time() + 2.0  # both processes are ready by then and record the same new students at once
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_record_class, args=(url, name, start)) for name in ("a", "b")]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=120)
    exit_codes = [writer.exitcode for writer in writers]
    for writer in writers:
        writer.kill()
    assert exit_codes == [0, 0]
    with Gradebook(url) as gradebook:
        assert len(gradebook.students) == WRITERS_STUDENTS
        assert [len(gradebook.find_assignment(name).submissions) for name in "ab"] == [WRITERS_STUDENTS] * 2
