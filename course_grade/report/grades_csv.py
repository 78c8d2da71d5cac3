"""grades.csv: nbgrader's CSV export, with its columns and rows, written with proper CSV quoting.

nbgrader's `CsvExportPlugin` joins fields with commas as they are, so a student id or a name holding a
comma or a quote shifts the columns. This plugin keeps everything else (the columns, one row per student
and assignment, 0 for a missing submission) and lets the csv module quote; every cell goes through
`course_grade.untrusted.csv_cell`, so an id, a name or a review note is never a spreadsheet formula. It is an
nbgrader export plugin:
`nbgrader export --exporter=course_grade.report.grades_csv.QuotedCsvExportPlugin` uses it too.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry  # type: ignore[import-untyped]
from nbgrader.plugins import CsvExportPlugin  # type: ignore[import-untyped]

from course_grade.untrusted import CsvWriter

COLUMNS = [
    "assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
    "raw_score", "late_submission_penalty", "score", "max_score",
]  # fmt: skip
"""nbgrader's columns, in nbgrader's order."""

REVIEW_COLUMN = "review"
"""The column after nbgrader's: what an instructor should look at by hand (possible tampering), or empty."""


class QuotedCsvExportPlugin(CsvExportPlugin):  # type: ignore[misc]
    """nbgrader's CSV export, quoted."""

    review: Callable[[str, str], str] | None = None
    """(student, assignment) -> the review column's text; None: nbgrader's columns only."""

    def export(self, gradebook: Gradebook) -> None:
        """Write one row per (assignment, student) of the gradebook, as nbgrader's plugin does."""
        wanted_assignments = {str(name) for name in self.assignment}
        wanted_students = {str(name) for name in self.student}
        with open(self.to or "grades.csv", "w", newline="", encoding="utf-8") as handle:
            writer = CsvWriter(handle)
            writer.writerow(COLUMNS + ([REVIEW_COLUMN] if self.review else []))
            for assignment in gradebook.assignments:
                if wanted_assignments and assignment.name not in wanted_assignments:
                    continue
                for student in gradebook.students:
                    if wanted_students and student.id not in wanted_students:
                        continue
                    extra = [self.review(student.id, assignment.name)] if self.review else []
                    writer.writerow(_row(gradebook, assignment, student) + extra)


def _row(gradebook: Gradebook, assignment: Any, student: Any) -> list[str]:
    """nbgrader's fields for one student and assignment, empty strings for None."""
    row: dict[str, Any] = {
        "assignment": assignment.name, "duedate": assignment.duedate, "student_id": student.id,
        "last_name": student.last_name, "first_name": student.first_name, "email": student.email,
        "max_score": assignment.max_score,
    }  # fmt: skip
    try:
        submission = gradebook.find_submission(assignment.name, student.id)
    except MissingEntry:
        row.update(timestamp="", raw_score=0.0, late_submission_penalty=0.0, score=0.0)
    else:
        penalty = submission.late_submission_penalty
        row.update(
            timestamp=submission.timestamp,
            raw_score=submission.score,
            late_submission_penalty=penalty,
            score=max(0.0, submission.score - penalty),
        )
    return ["" if row[key] is None else str(row[key]) for key in COLUMNS]


def export_csv(
    url: str,
    course_id: str,
    destination: Path,
    assignments: list[str],
    review: Mapping[tuple[str, str], str] | None = None,
) -> int:
    """Write grades.csv for `assignments`; return the number of rows.

    With `review` ((student, assignment) -> what to look at by hand), a last column `review` holds it.
    """
    with Gradebook(url, course_id) as gradebook:
        plugin = QuotedCsvExportPlugin(to=str(destination), assignment=assignments)
        if review is not None:
            plugin.review = lambda student, assignment: review.get((student, assignment), "")
        plugin.export(gradebook)
    with open(destination, newline="", encoding="utf-8") as handle:
        return sum(1 for _ in csv.reader(handle)) - 1
