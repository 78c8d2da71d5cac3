"""Running course-grade and plain nbgrader on scratch copies of the course, for tests/e2e/test_course_grade.py."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from nbformat import NotebookNode

from course_grade.notebooks import write
from course_grade.pipeline import copy_course
from course_grade.score.gradebook import cell_scores
from grading.build_notebooks import GRADING, nbgrader_command, nbgrader_environment

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


def write_class(pack: Path, assignment: str, notebooks: Mapping[str, NotebookNode]) -> Path:
    """Write each student's notebook into `pack` as nbgrader takes submissions (`<student>/<assignment>/`)."""
    for student, notebook in notebooks.items():
        folder = pack / student / assignment
        folder.mkdir(parents=True)
        write(notebook, folder / f"{assignment}.ipynb")
    return pack


def nbgrader(course: Path, *args: str) -> None:
    """Run plain nbgrader on a course directory, as an instructor would without course-grade."""
    command = nbgrader_command(course, *args)
    done = subprocess.run(command, cwd=course, env=nbgrader_environment(), capture_output=True, text=True)
    assert done.returncode == 0, (
        f"nbgrader {' '.join(args)} exited with {done.returncode}:\n{done.stderr[-4000:]}"
    )


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


BAD_ZIPS = {
    "broken": "is not a readable zip file (File is not a zip file)",
    "bomb": "would extract to 250 MB, more than the 200 MB allowed",
    "nested": "holds another archive (inner.zip): zip the notebooks themselves",
    "damaged": "is damaged (01_envelope/01_envelope.ipynb does not match its checksum)",
    "encrypted": "is not a readable zip file (File '01_envelope/01_envelope.ipynb' is encrypted, password "
    "required for extraction)",
}
"""Zip files written by `write_bad_zips`, and the reason each is skipped with."""


def write_bad_zips(solution: Path, destination: Path) -> None:
    """The zip files of BAD_ZIPS, plus `slip.zip`: a good submission with an entry that climbs out (../)."""
    notebook = next(solution.rglob("*.ipynb"))
    inside = notebook.relative_to(solution).as_posix()
    (destination / "broken.zip").write_bytes(b"PK\x03\x04 half a zip file")
    with zipfile.ZipFile(destination / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(notebook, inside)
        with archive.open(
            f"{Path(inside).parent.as_posix()}/padding.bin", "w"
        ) as padding:  # 250 MB of zeros, 250 KB stored
            for _ in range(250):
                padding.write(bytes(1_000_000))
    with zipfile.ZipFile(destination / "nested.zip", "w") as archive:
        archive.write(notebook, inside)
        archive.writestr("inner.zip", b"")
    with zipfile.ZipFile(destination / "damaged.zip", "w") as archive:  # stored, so a byte can be flipped
        archive.write(notebook, inside)
    data = bytearray((destination / "damaged.zip").read_bytes())
    data[data.index(b'"cells"') + 2] ^= 0xFF
    (destination / "damaged.zip").write_bytes(bytes(data))
    with zipfile.ZipFile(destination / "encrypted.zip", "w") as archive:
        archive.write(notebook, inside)
    data = bytearray((destination / "encrypted.zip").read_bytes())
    for header, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # set "encrypted" in both headers
        data[data.index(header) + flags] |= 1
    (destination / "encrypted.zip").write_bytes(bytes(data))
    with zipfile.ZipFile(destination / "slip.zip", "w") as archive:
        archive.write(notebook, inside)
        archive.writestr("../../../escaped.txt", "out of the extraction folder")


def csv_rows(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV file, as dicts."""
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
