"""Grade files for other tools: one row per student and question, and gradebook CSVs Canvas and Moodle import.

Every platform score is the score after nbgrader's late penalty (`Submission.score`); a rostered student
with no submission scores 0, as in nbgrader's own CSV export. Students of the gradebook missing from the
roster get no row in a platform's file: `roster.match` lists them, and so do the run and the report. Every
cell goes through `course_grade.untrusted.csv_cell` (a roster name is never a spreadsheet formula).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from course_grade.report.class_grades import Assignment, CellScore, ClassGrades, Student, Submission
from course_grade.report.roster import Entry
from course_grade.untrusted import CsvWriter

PER_QUESTION_COLUMNS = ("student_id", "assignment", "notebook", "cell", "score", "max_score")
"""The per-question CSV: one row per submission and graded cell."""

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
"""Canvas's gradebook CSV: these columns, then one per assignment; a second row "Points Possible".

The layout of the file Canvas's Gradebook exports and imports (Gradebook > Import): a student is identified
by "Student" (Last, First), "ID", "SIS User ID" or "SIS Login ID", with "Section", each assignment a column
named as in Canvas (a new name creates an assignment), and the row under the header giving each
assignment's points. Sources: Ohio State's CarmenCanvas guide "Import a CSV file to Carmen Grades"
(https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades)
and VCU's Canvas "Gradebook Action Menu" on the exported CSV
(https://ts.vcu.edu/askit/teaching-and-learning/canvas/faculty/grading-faculty/gradebook-action-menu-faculty/).
"""

POINTS_POSSIBLE = "Points Possible"

MOODLE_COLUMNS = ("First name", "Last name", "ID number", "Email address")
"""Moodle's grade import from CSV: these columns (as Moodle's own grade export names them), one per assignment.

On import ("Import > CSV file", then "Identify user by"), map "ID number" to `useridnumber` or "Email
address" to `useremail`, and each assignment column to a grade item. Source: MoodleDocs "Grade import"
(https://docs.moodle.org/311/en/Grade_import): "Change both dropdowns to: "Email Address" to "useremail",
or to "Id Number" to "useridnumber"".
"""


def score_text(value: float) -> str:
    """A score as the CSV shows it: at most two decimals, no trailing zeros (17, 16.5, 0.33)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def write_per_question(path: Path, cells: Iterable[CellScore]) -> int:
    """One row per submission and graded cell; return the number of rows."""
    rows = sorted(cells, key=lambda c: (c.assignment, c.student, c.notebook, c.cell))
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = CsvWriter(handle)
        writer.writerow(PER_QUESTION_COLUMNS)
        for c in rows:
            writer.writerow(
                [c.student, c.assignment, c.notebook, c.cell, score_text(c.score), score_text(c.max_score)]
            )
    return len(rows)


def final_scores(grades: ClassGrades) -> dict[tuple[str, str], Submission]:
    """(student, assignment) -> the submission (its `score` is after the late penalty)."""
    return {(s.student, s.assignment): s for s in grades.submissions}


def _scores(
    entry: Entry, assignments: Sequence[Assignment], found: dict[tuple[str, str], Submission]
) -> list[str]:
    """A rostered student's score per assignment, 0 without a submission."""
    return [score_text(found[(entry.student_id, a.name)].score) if (entry.student_id, a.name) in found else "0"
            for a in assignments]  # fmt: skip


def _rostered(grades: ClassGrades, entries: Iterable[Entry]) -> Iterator[tuple[Entry, Student, list[str]]]:
    """Each rostered student with their names and email filled from the gradebook where the roster leaves
    them empty, and their score per assignment."""
    found = final_scores(grades)
    known = {student.id: student for student in grades.students}
    for entry in entries:
        on_file = known.get(entry.student_id, Student(entry.student_id))
        person = Student(
            entry.student_id,
            entry.first_name or on_file.first_name,
            entry.last_name or on_file.last_name,
            entry.email or on_file.email,
        )
        yield entry, person, _scores(entry, grades.assignments, found)


def _write(path: Path, head: Sequence[Sequence[str]], rows: Iterable[Sequence[str]]) -> int:
    """Write the header rows, then `rows`; return the number of rows after the header."""
    count = 0
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = CsvWriter(handle)
        writer.writerows(head)
        for row in rows:
            writer.writerow(row)
            count += 1
    return count


def write_canvas(path: Path, grades: ClassGrades, entries: Iterable[Entry]) -> int:
    """Canvas's gradebook CSV, one row per rostered student; return the number of students written."""
    head = [
        [*CANVAS_COLUMNS, *(a.name for a in grades.assignments)],
        [POINTS_POSSIBLE, "", "", "", "", *(score_text(a.max_score) for a in grades.assignments)],
    ]
    rows = (
        [
            entry.name or _sortable_name(person),
            entry.canvas_id,
            entry.sis_user_id,
            entry.sis_login_id,
            entry.section,
            *scores,
        ]
        for entry, person, scores in _rostered(grades, entries)
    )
    return _write(path, head, rows)


def _sortable_name(person: Student) -> str:
    """ "Last, First" as Canvas lists students, or whichever part is known, or the student id."""
    last, first = person.last_name, person.first_name
    return f"{last}, {first}" if last and first else last or first or person.id


def write_moodle(path: Path, grades: ClassGrades, entries: Iterable[Entry]) -> int:
    """Moodle's grade-import CSV, one row per rostered student; return the number of students written."""
    head = [[*MOODLE_COLUMNS, *(a.name for a in grades.assignments)]]
    rows = (
        [person.first_name, person.last_name, entry.id_number, person.email, *scores]
        for entry, person, scores in _rostered(grades, entries)
    )
    return _write(path, head, rows)
