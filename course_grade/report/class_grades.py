"""The class's grades as plain rows, read once from nbgrader's gradebook (sqlite or PostgreSQL, by URL)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from nbgrader.api import Gradebook  # type: ignore[import-untyped]

from course_grade.score.late import due


@dataclass(frozen=True)
class CellScore:
    """One student's score on one graded cell (a question) of a submitted notebook."""

    student: str
    assignment: str
    notebook: str
    cell: str
    """The cell's grade_id."""
    score: float
    """nbgrader's score: the manual score if any, else the automatic one (0 when neither)."""
    max_score: float


@dataclass(frozen=True)
class Submission:
    """One student's submission of one assignment, with its deadline as nbgrader computes it."""

    student: str
    assignment: str
    raw_score: float
    max_score: float
    penalty: float
    """The late-submission penalty nbgrader's plugin assigned (0 when none)."""
    timestamp: datetime.datetime | None = None
    duedate: datetime.datetime | None = None
    """The assignment's due date plus this student's extension, if any."""
    extension: datetime.timedelta | None = None

    @property
    def seconds_late(self) -> float:
        """Seconds past the (extended) due date; 0 when on time or when either date is unknown."""
        if self.timestamp is None or self.duedate is None:
            return 0.0
        return max(0.0, (self.timestamp - self.duedate).total_seconds())

    @property
    def score(self) -> float:
        """The score after the late penalty, never below 0 (as nbgrader's CSV export computes it)."""
        return max(0.0, self.raw_score - self.penalty)


@dataclass(frozen=True)
class Student:
    """A student as the gradebook knows them."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""


@dataclass(frozen=True)
class Question:
    """A graded cell of an assignment, as defined in the gradebook."""

    notebook: str
    cell: str
    max_score: float


@dataclass(frozen=True)
class Assignment:
    """An assignment's definition: its questions in notebook order, its maximum and due date."""

    name: str
    max_score: float
    duedate: datetime.datetime | None
    questions: tuple[Question, ...]


@dataclass(frozen=True)
class ClassGrades:
    """Everything the report and the exports need from the gradebook, for some assignments."""

    assignments: tuple[Assignment, ...]
    cells: tuple[CellScore, ...]
    submissions: tuple[Submission, ...]
    students: tuple[Student, ...]
    """Every student of the gradebook, with or without a submission."""


def read_grades(url: str, course_id: str, names: list[str]) -> ClassGrades:
    """The assignments `names` (those the gradebook holds) with every cell score and submission."""
    assignments, cells, submissions = [], [], []
    with Gradebook(url, course_id) as gradebook:
        known = {assignment.name: assignment for assignment in gradebook.assignments}
        for name in [name for name in names if name in known]:
            assignment = known[name]
            questions = tuple(
                Question(notebook.name, cell.name, float(cell.max_score))
                for notebook in assignment.notebooks
                for cell in [*notebook.grade_cells, *notebook.task_cells]
            )
            assignments.append(Assignment(name, float(assignment.max_score), assignment.duedate, questions))
            for submission in assignment.submissions:
                student = submission.student.id
                penalty = sum(float(nb.late_submission_penalty or 0.0) for nb in submission.notebooks)
                submissions.append(
                    Submission(
                        student,
                        name,
                        float(submission.score),
                        float(submission.max_score),
                        penalty,
                        submission.timestamp,
                        due(submission),
                        submission.extension,
                    )  # fmt: skip
                )
                cells += [
                    CellScore(
                        student, name, notebook.name, grade.name, float(grade.score), float(grade.max_score)
                    )
                    for notebook in submission.notebooks
                    for grade in notebook.grades
                ]
        students = tuple(
            Student(student.id, student.first_name or "", student.last_name or "", student.email or "")
            for student in gradebook.students
        )
    return ClassGrades(tuple(assignments), tuple(cells), tuple(submissions), students)
