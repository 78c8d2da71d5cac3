"""The instructor's pipeline, step by step as nbgrader names them: release, autograde, feedback, export.

This process is the only writer of the gradebook. It releases assignments and exports grades with
nbgrader in-process; it autogrades and renders feedback with a pool of worker processes, and records
each autograded submission in the gradebook as its result arrives.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from nbgrader.api import Gradebook  # type: ignore[import-untyped]
from nbgrader.apps.api import NbGraderAPI  # type: ignore[import-untyped]

from course_grade import sandbox
from course_grade.cleaning import source_hash
from course_grade.course import Course, CourseError
from course_grade.export import export_csv
from course_grade.feedback import finish
from course_grade.files import fingerprint, remove_tree
from course_grade.gradebook import (
    build_template,
    definitions,
    missing_assignments,
    prepare,
    record,
    rescore,
    writer_lock,
    writing,
)
from course_grade.intake import Intake, take_in
from course_grade.notebooks import read
from course_grade.pool import Pool
from course_grade.problems import KINDS, REVIEW, Note, NotebookDefinition, load_notes, save_notes
from course_grade.report.build import Written, write_report
from course_grade.report.deadlines import assign_late_penalties, late_plugin
from course_grade.review.similarity import THRESHOLD as SIMILARITY_THRESHOLD
from course_grade.review.similarity import review_class
from course_grade.summary import Outcome
from course_grade.trusted.grading import apply_verdicts
from course_grade.workers import (
    AutogradeJob,
    AutogradeResult,
    FeedbackJob,
    FeedbackResult,
    Settings,
    failure_reason,
)

NOTES = "grading_notes"
"""The course's folder of grading notes: `<course>/grading_notes/<student>/<assignment>.json`."""


class Pipeline:
    """One run over a course: its steps share a scratch folder (outside the course) and a worker pool."""

    def __init__(
        self,
        course: Course,
        jobs: int,
        deadline: float,
        out: Callable[[str], None] = print,
        sandbox: str = "auto",
        hide_hidden_tests: bool = True,
        trusted_checks: bool = True,
    ) -> None:
        self.course = course
        self.sandboxed = _sandbox_mode(sandbox)
        """Whether learners' kernels run in the OS sandbox (`--sandbox auto|on|off`)."""
        self.hide_hidden_tests = hide_hidden_tests
        self.trusted_checks = trusted_checks
        """Whether a cell's points also need the trusted checks (`--trusted-checks`, on by default)."""
        self._config = course.config()
        """The course's configuration, read once, before any learner's code has run."""
        self.jobs = jobs
        self.deadline = deadline
        """Seconds one submission may take in total before its worker is stopped."""
        self.out = out
        self.skipped: list[str] = []
        """Entries of the submissions folder that were not submissions, with why."""
        self._scratch = Path(tempfile.mkdtemp(prefix="course-grade-"))
        self._pool: Pool | None = None
        self._definitions: dict[str, list[NotebookDefinition]] = {}
        self.similarity_against: Path | None = None
        """A folder of earlier submissions the class's solutions are also compared with (`--similarity-against`)."""
        self.similarity_threshold = SIMILARITY_THRESHOLD
        self._late_plugin = late_plugin(self._config)
        """The course's late-submission plugin (nbgrader's `AssignLatePenalties.plugin_class`)."""
        self._review: dict[tuple[str, ...], dict[tuple[str, str], str]] = {}
        """The assignments -> their review column, computed once a run (the similarity check takes seconds)."""

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._pool is not None:
            self._pool.__exit__(kind, error, tb)
        remove_tree(self._scratch)

    def settings(self, template: bytes = b"") -> Settings:
        """What every job of this run is told: the configuration read once, the sandbox, the known cells."""
        return Settings(
            self.course, self._scratch, template, self.course.exercise_ids(), self._config, self.sandboxed,
            known_sources(self.course), self.hide_hidden_tests, self.trusted_checks,
        )  # fmt: skip

    def pool(self) -> Pool:
        """The worker pool, started on first use."""
        if self._pool is None:
            self._pool = Pool(self.jobs, self.deadline, self._scratch).__enter__()
        return self._pool

    def prepare(self) -> None:
        """Create a PostgreSQL gradebook's tables before anything opens it (sqlite: nbgrader does it)."""
        if self.course.db_url.startswith("postgresql"):
            prepare(self.course.db_url, self.course.course_id)

    def release(self, names: list[str]) -> None:
        """nbgrader generate_assignment: the learners' versions in release/, the definitions in the gradebook."""
        api = NbGraderAPI(config=copy.deepcopy(self._config))
        self.prepare()
        for name in names:
            with writing(self.course.db_url):  # another course-grade may be writing the same gradebook
                outcome = api.generate_assignment(name, force=True, create=True)
            if not outcome["success"]:
                raise CourseError(f"nbgrader generate_assignment {name} failed: {failure_reason(outcome)}")
            self.out(f"released {name} -> {self.course.folder('release', assignment=name)}")

    def autograde(self, submissions: Path, names: list[str]) -> list[Outcome]:
        """Take the submissions in, autograde them in parallel, record each in the gradebook as it arrives."""
        self.prepare()
        intake: Intake = take_in(self.course, submissions, names)
        self.skipped = intake.skipped
        used = sorted({assignment for _, assignment in intake.submissions})
        unknown = missing_assignments(self.course.db_url, self.course.course_id, used)
        if unknown:
            raise CourseError(
                f"not in the gradebook yet: {', '.join(unknown)} (run `course-grade release` first)"
            )
        pool = self.pool()  # the workers start while the template gradebook is built
        template = self._scratch / "template.db"
        build_template(self.course.db_url, template, self.course.course_id, used)
        settings = self.settings(template.read_bytes())
        template.unlink()
        self._definitions = {
            name: definitions(self.course.db_url, self.course.course_id, name) for name in used
        }
        jobs = [
            AutogradeJob(
                student, assignment, fingerprint(self.course.folder("submitted", student, assignment))
            )
            for student, assignment in intake.submissions
        ]
        weights = {assignment: self._weight(assignment) for assignment in used}
        jobs.sort(key=lambda job: -weights[job.assignment])  # longest first: no worker idles at the end
        self.out(f"autograding {len(jobs)} submissions with {min(self.jobs, len(jobs) or 1)} workers")
        outcomes = []
        start = time.perf_counter()
        with Gradebook(self.course.db_url, self.course.course_id) as gradebook:
            for count, result in enumerate(pool.run(jobs, settings), 1):
                assert isinstance(result, AutogradeResult)
                outcome = self._record(gradebook, result)
                outcomes.append(outcome)
                self.out(_progress(count, len(jobs), outcome, result.seconds, time.perf_counter() - start))
        return sorted(outcomes, key=lambda o: (o.assignment, o.student))

    def _weight(self, assignment: str) -> int:
        """How long an assignment takes to grade, roughly: the size of its source notebooks."""
        return sum(
            path.stat().st_size
            for path in self.course.folder("source", assignment=assignment).glob("*.ipynb")
        )

    def _record(self, gradebook: Gradebook, result: AutogradeResult) -> Outcome:
        """Write one result: grades to the gradebook, autograded notebooks and notes to the course."""
        student, assignment = result.grades.student, result.grades.assignment
        grades = rescore(result.grades, result.notebooks, self._definitions.get(assignment, []))
        grades, disagreements = apply_verdicts(grades, result.verdicts)
        result = dataclasses.replace(result, notes=(*result.notes, *disagreements))
        record(gradebook, grades)
        with writer_lock(gradebook.engine):  # with the real extension and the final scores (see deadlines)
            assign_late_penalties(gradebook, assignment, student, self._late_plugin)
        folder = self.course.folder("autograded", student, assignment)
        remove_tree(folder)
        if result.notebooks:
            folder.mkdir(parents=True)
            for name, data in result.notebooks.items():
                (folder / f"{name}.ipynb").write_bytes(data)
                (folder / f"{name}.ipynb").chmod(0o444)  # as nbgrader leaves autograded notebooks
        save_notes(self.notes_file(student, assignment), result.notes)
        submission = gradebook.find_submission(assignment, student)
        return Outcome(
            student, assignment, float(submission.score), float(submission.max_score), result.notes,
            len(result.notebooks),
        )  # fmt: skip

    def notes_file(self, student: str, assignment: str) -> Path:
        """Where a submission's grading notes are kept."""
        return self.course.root / NOTES / student / f"{assignment}.json"

    def feedback(self, names: list[str], pairs: list[tuple[str, str]] | None = None) -> int:
        """nbgrader generate_feedback per submission, in parallel, then the notes on top; return pages written."""
        if pairs is None:
            pairs = submitted_pairs(self.course, names)
        rendered = [pair for pair in pairs if any(self.course.folder("autograded", *pair).glob("*.ipynb"))]
        settings = self.settings()
        failures: dict[tuple[str, str], str] = {}
        for result in self.pool().run([FeedbackJob(*pair) for pair in rendered], settings):
            assert isinstance(result, FeedbackResult)
            if result.error:
                failures[(result.student, result.assignment)] = result.error
                self.out(f"feedback for {result.student} [{result.assignment}] failed: {result.error}")
        pages = 0
        with Gradebook(self.course.db_url, self.course.course_id) as gradebook:
            for student, assignment in pairs:
                notes = load_notes(self.notes_file(student, assignment))
                if (student, assignment) in failures:
                    reason = failures[(student, assignment)]
                    notes.append(Note("grading-failed", f"nbgrader could not render the feedback: {reason}"))
                notebooks = [
                    (n.name, float(n.score), float(n.max_score))
                    for n in gradebook.find_submission(assignment, student).notebooks
                ]
                pages += len(finish(self.course.folder("feedback", student, assignment), notebooks, notes))
        self.out(f"feedback: {pages} pages in {self.course.folder('feedback')}")
        return pages

    def export(self, names: list[str], destination: Path) -> int:
        """grades.csv for the assignments, one row per student and assignment; return the number of rows."""
        review = self.review(names)
        rows = export_csv(self.course.db_url, self.course.course_id, destination, names, review)
        self.out(f"grades: {destination} ({rows} rows)")
        return rows

    def review(self, names: list[str]) -> dict[tuple[str, str], str]:
        """(student, assignment) -> what to look at by hand: the review notes and the similar pairs (once a run)."""
        if tuple(names) not in self._review:
            review = {
                (student, assignment): "; ".join(
                    note.text
                    for note in load_notes(self.notes_file(student, assignment))
                    if note.kind in REVIEW
                )
                for student, assignment in submitted_pairs(self.course, names)
            }
            self._review_similarity(names, review)
            self._review[tuple(names)] = review
        return self._review[tuple(names)]

    def report(
        self, names: list[str], folder: Path, roster: Path | None = None, platforms: tuple[str, ...] = ()
    ) -> Written:
        """report.html and the exports in `folder`; print their paths and every student on one side only."""
        written = write_report(self.course, names, folder, self.review(names), roster, platforms)
        for path in written.files:
            self.out(f"export: {path.resolve()}")
        if written.absent:
            self.out(f"not in the gradebook yet, so not in the report: {', '.join(written.absent)}")
        if written.matched is not None:
            for student in written.matched.not_in_gradebook:
                self.out(f"on the roster, not in the gradebook (0 in the platform files): {student}")
            for student in written.matched.not_on_roster:
                self.out(f"in the gradebook, not on the roster (left out of the platform files): {student}")
        self.out(f"report: {written.page.resolve()}")
        return written

    def _review_similarity(self, names: list[str], review: dict[tuple[str, str], str]) -> None:
        """Flag copies in the `review` column (never a score): each assignment's solutions compared by copydetect."""
        for assignment in names:
            students = sorted({student for student, name in review if name == assignment})
            if not students:
                continue
            pairs, notes, report = review_class(
                self.course.root, assignment, students, self.similarity_against, self.similarity_threshold
            )
            for pair in pairs:
                self.out(
                    f"similar [{assignment}]: {pair.student} ~ {pair.other} ({round(pair.similarity * 100)}%)"
                )
            self.out(f"similarity: {len(pairs)} pairs flagged, report in {report}")
            for student, found in notes.items():
                key = (student, assignment)
                review[key] = "; ".join(filter(None, [review.get(key, ""), *found]))


def submitted_pairs(course: Course, names: list[str]) -> list[tuple[str, str]]:
    """(student, assignment) of every submission the gradebook holds for the assignments."""
    with Gradebook(course.db_url, course.course_id) as gradebook:
        known = {assignment.name for assignment in gradebook.assignments}
        return sorted(
            (submission.student.id, name)
            for name in names
            if name in known
            for submission in gradebook.find_assignment(name).submissions
        )


def _sandbox_mode(mode: str) -> bool:
    """`--sandbox`: on (fail if unavailable), off, or auto (on where this machine allows it)."""
    if mode == "off":
        return False
    if mode not in ("on", "auto"):
        raise CourseError(f"--sandbox must be auto, on or off, not {mode!r}")
    if sandbox.available():
        return True
    if mode == "on":
        raise CourseError(f"--sandbox on: the OS sandbox is not available here: {sandbox.why_unavailable()}")
    return False


def known_sources(course: Course) -> frozenset[str]:
    """Hashes of the source of every cell of the course's source and release notebooks (the instructor's)."""
    found = set()
    for step in ("source", "release"):
        for path in sorted(course.folder(step).glob("*/*.ipynb")):
            found |= {source_hash(cell.source) for cell in read(path).cells}
    return frozenset(found)


def _progress(count: int, total: int, outcome: Outcome, seconds: float, elapsed: float) -> str:
    """One line per graded submission."""
    width = len(str(total))
    kinds = ", ".join(dict.fromkeys(KINDS.get(note.kind, note.kind) for note in outcome.notes))
    return (
        f"[{count:>{width}}/{total}] {outcome.assignment}  {outcome.student}  "
        f"{outcome.score:g}/{outcome.max_score:g}  ({seconds:.1f} s, {elapsed:.0f} s elapsed)"
        + (f"  ! {kinds}" if kinds else "")
    )


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def copy_course(source: Path, destination: Path) -> Path:
    """A copy of a course directory without its grading state (for dry runs, tests and benchmarks)."""
    state = (
        "gradebook.db",
        "release",
        "submitted",
        "autograded",
        "feedback",
        "downloaded",
        NOTES,
        "similarity",
        "__pycache__",
    )
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns(*state))
    return destination
