"""Running course-grade and plain nbgrader on scratch copies of the course, for tests/test_course_grade.py."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from course_grade.gradebook import cell_scores
from course_grade.pipeline import copy_course
from grading.build_notebooks import GRADING, nbgrader_environment

COMMAND = str(Path(sys.executable).parent / "course-grade")
"""The installed console script."""


@dataclass(frozen=True)
class Run:
    """One `course-grade` command and what it left."""

    course: Path
    returncode: int
    stdout: str
    stderr: str

    @property
    def db_url(self) -> str:
        """The run's gradebook."""
        return f"sqlite:///{self.course / 'gradebook.db'}"


def fresh_course(folder: Path) -> Path:
    """A copy of the repository's course directory with no grading state, in `folder/course`."""
    return copy_course(GRADING, folder / "course")


def course_grade(course: Path, *args: str, cwd: Path | None = None) -> Run:
    """Run the installed `course-grade` on `course` and capture everything."""
    done = subprocess.run(
        [COMMAND, *args, "--course", str(course)],
        cwd=cwd or course.parent, capture_output=True, text=True, env=nbgrader_environment(),
    )  # fmt: skip
    return Run(course, done.returncode, done.stdout, done.stderr)


def nbgrader(course: Path, *args: str) -> None:
    """Run plain nbgrader on a course directory, as an instructor would without course-grade."""
    command = [
        sys.executable, "-m", "nbgrader", *args, "--log-level=ERROR",
        f"--CourseDirectory.root={course}", f"--CourseDirectory.db_url=sqlite:///{course}/gradebook.db",
    ]  # fmt: skip
    subprocess.run(command, cwd=course, env=nbgrader_environment(), check=True, capture_output=True)


def sequential_scores(
    folder: Path, pack: Path, students: list[str], assignment: str
) -> dict[tuple[str, ...], float | None]:
    """Per-cell scores of plain, sequential `nbgrader autograde` on some students of a pack."""
    course = fresh_course(folder)
    nbgrader(course, "generate_assignment", assignment, "--force")
    for student in students:
        shutil.copytree(pack / student / assignment, course / "submitted" / student / assignment)
    nbgrader(course, "autograde", assignment, "--force")
    return cell_scores(f"sqlite:///{course}/gradebook.db")


def zip_students(pack: Path, students: list[str], destination: Path) -> Path:
    """One `<student>.zip` per student, holding `<assignment>/<notebook>` as learners zip their folder."""
    destination.mkdir(parents=True, exist_ok=True)
    for student in students:
        with zipfile.ZipFile(destination / f"{student}.zip", "w") as archive:
            for path in sorted((pack / student).rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(pack / student).as_posix())
    return destination


def csv_rows(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV file, as dicts."""
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
