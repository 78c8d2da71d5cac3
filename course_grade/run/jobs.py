"""The jobs a worker runs and what they return: plain data that travels from `course-grade` to a worker.

A job goes from the `course-grade` process to a pool's worker process (`course_grade.run.pool`), possibly
through a Dask worker (`course_grade.run.cluster.task`), and its result comes back the same way. Only the
process that runs a job needs nbgrader (`course_grade.run.workers`); describing, passing and
recording a job does not, so a Dask worker, which only hands jobs to its watchdog's child, never spends
the second it takes to import nbgrader. A job carries no code: the worker picks the function from the job's
type (`course_grade.run.workers.run_job`), so this module imports nothing that runs a job.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from traitlets.config import Config

from course_grade.course import Course
from course_grade.notes import Note
from course_grade.release.library import GradingLibrary
from course_grade.score.submission_grades import SubmissionGrades
from course_grade.score.trusted.runner import NotebookVerdict


def pack_config(config: Config) -> bytes:
    """A configuration as `Settings.packed_config` carries it."""
    return pickle.dumps(config)


READY = "ready"
"""What a worker says once it can take jobs."""


@dataclass(frozen=True)
class Settings:
    """What every job needs to know about this run."""

    course: Course
    """The real course directory and gradebook."""
    scratch: Path
    """This run's scratch folder, outside the course directory."""
    template: bytes = b""
    """The template gradebook (definitions only, a sqlite file) each autograde job starts from. It travels
    with every job rather than sitting in a file that a learner's code could find and change."""
    elsewhere: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """"assignment/notebook" -> grade_ids of every notebook of the course, to recognise a misplaced one."""
    packed_config: bytes = b""
    """The course's nbgrader configuration, read once by the parent (a learner may have changed the file since),
    pickled by `pack_config`: it names nbgrader's classes, so only the process that runs a job unpacks it."""
    sandbox: bool = False
    """Run every learner's kernel in `course_grade.run.sandbox`."""
    known: frozenset[str] = frozenset()
    """Source hashes of every cell of the course's source and release notebooks: not flagged."""
    hide_hidden_tests: bool = True
    """Feedback shows no hidden test (nor its traceback)."""
    trusted_checks: bool = True
    """A cell keeps nbgrader's points only when `course_grade.score.trusted` agrees."""
    hidden: tuple[str, ...] = ()
    """More folders no learner's code may see (a Dask task adds the real course and scratch folders of the
    machine running `course-grade`, since it grades in a copy of the course)."""
    libraries: Mapping[str, GradingLibrary] = field(default_factory=dict)
    """assignment -> the learners' library its submissions are graded against (`release.library`): the
    kernel and the trusted checks' learner process see only it, and the hidden tests run on the trusted side
    alone. An assignment absent here is graded with the instructor's library in view."""

    def nbgrader_config(self) -> Config:
        """A fresh copy of the course's nbgrader configuration (an empty one when none was packed)."""
        return pickle.loads(self.packed_config) if self.packed_config else Config()

    def for_assignment(self, assignment: str) -> Settings:
        """These settings as a job of this assignment needs them: its own learners' library, not every
        assignment's (the seven of the course pickle to some 3.5 MB, sent with every job)."""
        library = self.libraries.get(assignment)
        return dataclasses.replace(self, libraries={} if library is None else {assignment: library})


@dataclass(frozen=True)
class AutogradeResult:
    """What autograding one submission produced."""

    grades: SubmissionGrades
    """nbgrader's automatic results (notebooks absent from it score 0)."""
    notes: tuple[Note, ...] = ()
    """What went wrong, for the summary and the learner's feedback."""
    notebooks: Mapping[str, bytes] = field(default_factory=dict)
    """notebook name -> the autograded notebook nbgrader wrote."""
    seconds: float = 0.0
    """Time spent in the worker."""
    verdicts: tuple[NotebookVerdict, ...] = ()
    """The trusted checks' verdicts, applied by the parent to the scores it recomputes from `notebooks`."""


@dataclass(frozen=True)
class FeedbackResult:
    """Whether nbgrader rendered the feedback of one submission."""

    student: str
    assignment: str
    error: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class AutogradeJob:
    """Autograde one student's submission of one assignment."""

    student: str
    assignment: str
    files: Mapping[str, str] = field(default_factory=dict)
    """relative path -> content hash of the submission when it was taken in (see `files.fingerprint`)."""

    def failed(self, reason: str) -> AutogradeResult:
        """The result when the submission could not be graded at all: every notebook scores 0."""
        return AutogradeResult(
            SubmissionGrades(self.student, self.assignment), (Note("grading-failed", reason),)
        )


@dataclass(frozen=True)
class FeedbackJob:
    """Render one student's feedback for one assignment with nbgrader's generate_feedback."""

    student: str
    assignment: str

    def failed(self, reason: str) -> FeedbackResult:
        """The result when the worker could not render it."""
        return FeedbackResult(self.student, self.assignment, reason)


Job = AutogradeJob | FeedbackJob
Result = AutogradeResult | FeedbackResult
