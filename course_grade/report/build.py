"""The report and the exports of some assignments, written together into one folder."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from course_grade.course import Course
from course_grade.report.analytics import cell_statistics
from course_grade.report.class_grades import ClassGrades, read_grades
from course_grade.report.exports import write_canvas, write_moodle, write_per_question
from course_grade.report.failures import count_failures, find_failures
from course_grade.report.page import Report, render_page
from course_grade.report.roster import Entry, Matched, match, read_roster

PAGE = "report.html"
PER_QUESTION = "per_question.csv"
PLATFORMS: Mapping[str, tuple[str, Callable[..., int]]] = {
    "canvas": ("canvas.csv", write_canvas),
    "moodle": ("moodle.csv", write_moodle),
}
"""--lms NAME -> (its file, its writer)."""


@dataclass(frozen=True)
class Written:
    """What `write_report` wrote, and who is on one side of the roster only."""

    page: Path
    files: tuple[Path, ...]
    matched: Matched | None
    absent: tuple[str, ...] = ()
    """Assignments asked for that the gradebook does not hold yet (not released): not in the report."""


def write_report(
    course: Course,
    names: list[str],
    folder: Path,
    review: Mapping[tuple[str, str], str],
    roster: Path | None = None,
    platforms: Sequence[str] = (),
) -> Written:
    """Write report.html, per_question.csv and, with a roster, each platform's CSV into `folder`."""
    grades = read_grades(course.db_url, course.course_id, names)
    folder.mkdir(parents=True, exist_ok=True)
    files = [folder / PER_QUESTION]
    _replace(files[0], lambda path: write_per_question(path, grades.cells))
    described = [("one row per submission and graded cell", PER_QUESTION)]
    matched = None
    if roster is not None:
        matched = match(read_roster(roster), [student.id for student in grades.students])
        entries = matched.entries
        for platform in platforms:
            name, writer = PLATFORMS[platform]
            _replace(folder / name, functools.partial(_platform_file, writer, grades, entries))
            files.append(folder / name)
            described.append(
                (f"{platform.capitalize()} gradebook import, one row per rostered student", name)
            )
    failures = count_failures(find_failures(course.folder("autograded"), grades.cells))
    report = Report(
        course.course_id, grades, cell_statistics(grades.cells), failures, review, matched, described
    )
    page = folder / PAGE
    _replace(page, lambda path: path.write_text(render_page(report), encoding="utf-8"))
    held = {assignment.name for assignment in grades.assignments}
    return Written(page, tuple(files), matched, tuple(name for name in names if name not in held))


def _platform_file(
    writer: Callable[..., int], grades: ClassGrades, entries: Sequence[Entry], path: Path
) -> int:
    """One platform's CSV at `path`."""
    return writer(path, grades, entries)


def _replace(path: Path, write: Callable[[Path], object]) -> None:
    """Write a file beside `path`, then move it into place: a reader (or a second run) never sees half of it."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        write(partial)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
