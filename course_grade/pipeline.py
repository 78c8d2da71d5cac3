"""The instructor's pipeline, step by step as nbgrader names them: generate, autograde, feedback, export.

This process is the only writer of the gradebook. It releases assignments and exports grades with
nbgrader in-process; it autogrades on a Dask cluster (`course_grade.run.cluster`: local by default, or a
scheduler's address), or on this machine's pool of worker processes (`--cluster pool`), and records each
autograded submission in the gradebook as its result arrives; it renders feedback with that pool, since
feedback reads the course directory and the gradebook, which only this machine has.

It is longer than a module here should be because it is the one object holding a run's shared state (the
course, the configuration read once, the workers, the one gradebook writer), with a method per step; what
each step does lives in intake/, run/, score/ and report/.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

from nbgrader.api import Gradebook, MissingEntry  # type: ignore[import-untyped]
from nbgrader.apps.api import NbGraderAPI  # type: ignore[import-untyped]

from course_grade.course import Course, CourseError
from course_grade.intake.checks import NotebookDefinition
from course_grade.intake.cleaning import source_hash
from course_grade.intake.files import fingerprint, remove_tree
from course_grade.intake.resume import SUFFIX as MARK_SUFFIX
from course_grade.intake.resume import (
    course_version,
    is_marked,
    left_mark,
    submission_mark,
    uninterrupted,
    unmark,
    write_mark,
)
from course_grade.intake.submissions import Intake, take_in
from course_grade.notebooks import read
from course_grade.notes import KINDS, REVIEW, Note, load_notes, save_notes
from course_grade.progress import Progress
from course_grade.release.bundle import EditionError
from course_grade.release.library import GradingLibrary, for_assignment
from course_grade.report.build import Written, write_report
from course_grade.report.feedback import finish
from course_grade.report.grades_csv import export_csv
from course_grade.report.similarity import review_class
from course_grade.report.summary import Outcome
from course_grade.run import sandbox
from course_grade.run.cluster.engine import LOCAL, Cluster
from course_grade.run.cluster.payload import Payload, source_files, submitted_files
from course_grade.run.costs import COSTS, Timings, expected, longest_first, read_costs, save_costs
from course_grade.run.jobs import (
    AutogradeJob,
    AutogradeResult,
    FeedbackJob,
    FeedbackResult,
    Settings,
    pack_config,
)
from course_grade.run.pool import Pool
from course_grade.run.workers import failure_reason
from course_grade.score.gradebook import (
    build_template,
    definitions,
    final_score,
    missing_assignments,
    prepare,
    record,
    rescore,
    submission_auto_scores,
    writer_lock,
    writing,
)
from course_grade.score.late import assign_late_penalties, late_plugin
from course_grade.score.trusted.grading import apply_verdicts
from course_grade.untrusted import printable

POOL = "pool"
"""`--cluster pool`: autograde on this machine's pool of worker processes, without Dask."""
EDITION, INSTRUCTOR = "edition", "instructor"
"""What learners' code is graded against (`--library`): its assignment's learners' library, or the instructor's."""

NOTES = "grading_notes"
"""The course's folder of grading notes: `<course>/grading_notes/<student>/<assignment>.json`."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during autograde: what was recorded stays, whole; running again grades the rest."""

    def __init__(self, recorded: int, total: int) -> None:
        super().__init__(
            f"{recorded} of {total} submissions were graded and recorded, and the gradebook is consistent; "
            "run the same command again to grade the rest (what was graded is skipped)"
        )


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
        cluster: str = LOCAL,
        regrade: bool = False,
        terminal: bool = False,
        library: str = EDITION,
    ) -> None:
        self.course = course
        self.library = library
        """What a learner's code is graded against: `edition` (the learners' library of its assignment, the
        hidden tests on the trusted side only) or `instructor` (the instructor's library in view, the hidden
        tests in the kernel too)."""
        self.libraries: dict[str, GradingLibrary] = {}
        """The learners' library of each assignment graded against one in this run."""
        self.cluster = cluster
        """Where submissions are graded: `local` (a Dask LocalCluster), `tcp://HOST:PORT` (a Dask scheduler),
        or `pool` (this machine's pool of worker processes, without Dask)."""
        self.regrade = regrade
        """Grade again the submissions graded before, unchanged (`--regrade`)."""
        self.terminal = terminal
        """Show a progress bar (stdout is a terminal)."""
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
        self._cluster: Cluster | None = None
        self._definitions: dict[str, list[NotebookDefinition]] = {}
        self.similarity_against: Path | None = None
        """A folder of earlier submissions the class's solutions are also compared with (`--similarity-against`)."""
        self.similarity_threshold: float | None = None
        """Flag pairs at least this similar (`--similarity-threshold`); None: each assignment's measured one."""
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
        if self._cluster is not None:
            self._cluster.__exit__(kind, error, tb)
        remove_tree(self._scratch)

    def settings(self, template: bytes = b"") -> Settings:
        """What every job of this run is told: the configuration read once, the sandbox, the known cells."""
        return Settings(
            self.course, self._scratch, template, self.course.exercise_ids(), pack_config(self._config), self.sandboxed,
            known_sources(self.course), self.hide_hidden_tests, self.trusted_checks,
            libraries=dict(self.libraries),
        )  # fmt: skip

    def plan_libraries(self, names: list[str]) -> None:
        """Choose what each assignment is graded against, and say it: its learners' library, or, when its
        learners' notebooks import a key (or the trusted checks are off), the instructor's library."""
        self.libraries = {}
        if self.library != EDITION:
            return
        publish = self.course.published_keys()
        for name in names:
            if not self.trusted_checks:
                self.out(f"{name}: graded with the instructor's library in view (the trusted checks are off, "
                         "so the hidden tests run in the learner's kernel)")  # fmt: skip
                continue
            notebooks = sorted(self.course.folder("release", assignment=name).glob("*.ipynb"))
            try:
                self.libraries[name] = for_assignment(name, publish, notebooks)
            except EditionError as error:
                self.out(f"{name}: graded with the instructor's library in view, since {error}")
                continue
            keys = ", ".join(self.libraries[name].published_keys) or "none"
            self.out(f"{name}: graded against its learners' library (keys published: {keys})")

    def pool(self) -> Pool:
        """This machine's worker pool (feedback, and autograde with `--cluster pool`), started on first use."""
        if self._pool is None:
            self._pool = Pool(self.jobs, self.deadline, self._scratch).__enter__()
        return self._pool

    def start(self) -> None:
        """Start what autograde grades on (its workers import nbgrader while the caller goes on)."""
        if self.cluster == POOL:
            self.pool()
        else:
            self.engine()

    def engine(self) -> Cluster:
        """The Dask cluster autograde uses, started (or connected to) on first use."""
        if self._cluster is None:
            self._cluster = Cluster(self.cluster, self.jobs, self.deadline).__enter__()
        return self._cluster

    def prepare(self) -> None:
        """Create a PostgreSQL gradebook's tables before anything opens it (sqlite: nbgrader does it)."""
        if self.course.db_url.startswith("postgresql"):
            prepare(self.course.db_url, self.course.course_id)

    def generate(self, names: list[str]) -> None:
        """nbgrader generate_assignment: the learners' versions in release/, the definitions in the gradebook.
        (nbgrader's release_assignment, which hands them out through the exchange, is the instructor's.)"""
        api = NbGraderAPI(config=copy.deepcopy(self._config))
        self.prepare()
        for name in names:
            with writing(self.course.db_url):  # another course-grade may be writing the same gradebook
                outcome = api.generate_assignment(name, force=True, create=True)
            if not outcome["success"]:
                raise CourseError(f"nbgrader generate_assignment {name} failed: {failure_reason(outcome)}")
            self.out(
                f"generated the learners' version of {name} -> {self.course.folder('release', assignment=name)}"
            )

    def autograde(self, submissions: Path, names: list[str]) -> list[Outcome]:
        """Take the submissions in, autograde them in parallel, record each in the gradebook as it arrives.

        A submission already recorded, unchanged, against the same course is skipped unless `regrade`
        (`course_grade.intake.resume`). Ctrl-C stops between two recordings (`Interrupted` says how far it got).
        """
        self.prepare()
        intake: Intake = take_in(self.course, submissions, names)
        self.skipped = intake.skipped
        used = sorted({assignment for _, assignment in intake.submissions})
        unknown = missing_assignments(self.course.db_url, self.course.course_id, used)
        if unknown:
            raise CourseError(
                f"not in the gradebook yet: {', '.join(unknown)} (run `course-grade generate` first)"
            )
        jobs, already, marks = self._plan(intake.submissions, used)
        if jobs:
            self.start()  # the workers start while the template gradebook is built
        settings = self._grading_settings(used)
        jobs = longest_first(jobs, expected(read_costs(self.course.root / NOTES / COSTS),
                                            {assignment: self._size(assignment) for assignment in used}))  # fmt: skip
        self._announce(len(jobs), len(already))
        return self._grade(jobs, already, marks, settings)

    def _plan(
        self, submissions: list[tuple[str, str]], used: list[str]
    ) -> tuple[list[AutogradeJob], list[Outcome], dict[tuple[str, str], str]]:
        """The jobs to run, the outcomes of submissions graded before (skipped), and every submission's mark."""
        versions = {name: course_version(self.course, name, self._options()) for name in used}
        jobs, already, marks = [], [], {}
        with Gradebook(self.course.db_url, self.course.course_id) as gradebook:
            for student, assignment in submissions:
                files = fingerprint(self.course.folder("submitted", student, assignment))
                job = AutogradeJob(student, assignment, files)
                marks[student, assignment] = submission_mark(files, versions[assignment])
                if not self.regrade and self._graded_before(gradebook, job, marks[student, assignment]):
                    already.append(self._outcome_of(gradebook, job))
                else:
                    jobs.append(job)
        return jobs, already, marks

    def _grading_settings(self, used: list[str]) -> Settings:
        """What every job of these assignments needs: the learners' libraries and a template gradebook."""
        self.plan_libraries(used)
        template = self._scratch / "template.db"
        build_template(self.course.db_url, template, self.course.course_id, used)
        settings = self.settings(template.read_bytes())
        template.unlink()
        self._definitions = {
            name: definitions(self.course.db_url, self.course.course_id, name) for name in used
        }
        return settings

    def _announce(self, jobs: int, already: int) -> None:
        """Say how many submissions are graded where, and how many are skipped."""
        if self.cluster in (LOCAL, POOL):
            self.out(f"autograding {jobs} submissions with {min(self.jobs, jobs or 1)} workers")
        else:
            threads = self.engine().threads()
            self.out(
                f"autograding {jobs} submissions on the Dask cluster at {self.cluster} ({threads} threads)"
            )
        if already:
            self.out(f"skipping {already} submissions graded before, unchanged (--regrade grades them again)")

    def _grade(
        self,
        jobs: list[AutogradeJob],
        already: list[Outcome],
        marks: dict[tuple[str, str], str],
        settings: Settings,
    ) -> list[Outcome]:
        """Run the jobs and record each result as it arrives; every outcome, graded now or before, in order."""
        outcomes, timings = list(already), Timings()
        start = time.perf_counter()
        dashboard = self._cluster.dashboard if self._cluster is not None else None
        with (
            Gradebook(self.course.db_url, self.course.course_id) as gradebook,
            Progress(len(jobs), self.out, self.terminal, dashboard) as progress,
        ):
            try:
                for count, result in enumerate(self._results(jobs, settings), 1):
                    timings.add(result)
                    mark = marks[result.grades.student, result.grades.assignment]
                    with uninterrupted():  # recorded whole, or not at all
                        outcome = self._record(gradebook, result, mark)
                    outcomes.append(outcome)
                    elapsed = time.perf_counter() - start
                    failed = any(note.kind == "grading-failed" for note in outcome.notes)
                    progress.graded(_progress(count, len(jobs), outcome, result.seconds, elapsed), failed)
            except KeyboardInterrupt:
                raise Interrupted(len(outcomes) - len(already), len(jobs)) from None
            finally:
                save_costs(self.course.root / NOTES / COSTS, timings.medians())
        return sorted(outcomes, key=lambda o: (o.assignment, o.student))

    def _results(self, jobs: list[AutogradeJob], settings: Settings) -> Iterator[AutogradeResult]:
        """Every job's result as it finishes: on the Dask cluster, or on this machine's pool (`--cluster pool`)."""
        if not jobs:
            return
        if self.cluster == POOL:
            for result in self.pool().run(jobs, settings):
                assert isinstance(result, AutogradeResult)
                yield result
            return
        sources = {
            assignment: source_files(self.course, assignment) for assignment in {j.assignment for j in jobs}
        }

        def bundle(job: AutogradeJob) -> Payload:
            folder = self.course.folder("submitted", job.student, job.assignment)
            return Payload(sources[job.assignment], submitted_files(folder))

        yield from self.engine().run(jobs, settings, bundle)

    def _options(self) -> dict[str, object]:
        """The options of this run that can change a score (part of a submission's mark)."""
        return {
            "timeout": self.course.timeout, "sandbox": self.sandboxed, "trusted_checks": self.trusted_checks,
            "library": self.library,
        }  # fmt: skip

    def _graded_before(self, gradebook: Gradebook, job: AutogradeJob, mark: str) -> bool:
        """Whether this submission was recorded with this mark, and its autograded files and automatic scores
        are still those the recording left (nothing else graded it since)."""
        try:
            left = self._left(gradebook, job.student, job.assignment)
        except MissingEntry:
            return False
        return is_marked(self.mark_file(job.student, job.assignment), mark, left)

    def _left(self, gradebook: Gradebook, student: str, assignment: str) -> str:
        """The mark of what recording a submission left: its autograded folder and its automatic scores."""
        autograded = fingerprint(self.course.folder("autograded", student, assignment))
        return left_mark(autograded, submission_auto_scores(gradebook, assignment, student))

    def _outcome_of(self, gradebook: Gradebook, job: AutogradeJob) -> Outcome:
        """The outcome of a submission graded before, from the gradebook and its saved notes."""
        submission = gradebook.find_submission(job.assignment, job.student)
        score, most = final_score(submission), float(submission.max_score)
        notes = tuple(load_notes(self.notes_file(job.student, job.assignment)))
        graded = len(list(self.course.folder("autograded", job.student, job.assignment).glob("*.ipynb")))
        return Outcome(job.student, job.assignment, score, most, notes, graded)

    def _size(self, assignment: str) -> int:
        """The size of an assignment's source notebooks: what its cost is estimated from before it is measured."""
        return sum(
            path.stat().st_size
            for path in self.course.folder("source", assignment=assignment).glob("*.ipynb")
        )

    def _record(self, gradebook: Gradebook, result: AutogradeResult, mark: str) -> Outcome:
        """Write one result: grades to the gradebook, autograded notebooks and notes to the course, then
        its mark (so that a run stopped halfway grades it again)."""
        student, assignment = result.grades.student, result.grades.assignment
        unmark(self.mark_file(student, assignment))
        grades = rescore(result.grades, result.notebooks, self._definitions.get(assignment, []))
        grades, disagreements = apply_verdicts(grades, result.verdicts)
        result = dataclasses.replace(result, notes=(*result.notes, *disagreements))
        record(gradebook, grades)
        with writer_lock(gradebook.engine):  # with the real extension and the final scores (see score.late)
            assign_late_penalties(gradebook, assignment, student, self._late_plugin)
        folder = self.course.folder("autograded", student, assignment)
        remove_tree(folder)
        if result.notebooks:
            folder.mkdir(parents=True)
            for name, data in result.notebooks.items():
                (folder / f"{name}.ipynb").write_bytes(data)
                (folder / f"{name}.ipynb").chmod(0o444)  # as nbgrader leaves autograded notebooks
            copy_exchange_files(self.course.folder("submitted", student, assignment), folder)
        save_notes(self.notes_file(student, assignment), result.notes)
        if not any(note.kind == "grading-failed" for note in result.notes):  # a failure is tried again
            write_mark(self.mark_file(student, assignment), mark, self._left(gradebook, student, assignment))
        submission = gradebook.find_submission(assignment, student)
        return Outcome(
            student, assignment, final_score(submission), float(submission.max_score), result.notes,
            len(result.notebooks),
        )  # fmt: skip

    def notes_file(self, student: str, assignment: str) -> Path:
        """Where a submission's grading notes are kept."""
        return self.course.root / NOTES / student / f"{assignment}.json"

    def mark_file(self, student: str, assignment: str) -> Path:
        """Where the mark of a submission's last recording is kept (`course_grade.intake.resume`)."""
        return self.course.root / NOTES / student / f"{assignment}{MARK_SUFFIX}"

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
                self.out(
                    f"feedback for {result.student} [{result.assignment}] failed: {printable(result.error)}"
                )
        pages = 0
        with Gradebook(self.course.db_url, self.course.course_id) as gradebook:
            for student, assignment in pairs:
                notes = load_notes(self.notes_file(student, assignment))
                if (student, assignment) in failures:
                    reason = failures[(student, assignment)]
                    notes.append(Note("grading-failed", f"nbgrader could not render the feedback: {reason}"))
                try:  # one learner's page that cannot be finished leaves the others' alone
                    notebooks = [
                        (n.name, float(n.score), float(n.max_score))
                        for n in gradebook.find_submission(assignment, student).notebooks
                    ]
                    folder = self.course.folder("feedback", student, assignment)
                    pages += len(finish(folder, notebooks, notes))
                except Exception as error:  # noqa: BLE001 - recorded with its reason, and the class goes on
                    self.out(f"feedback for {student} [{assignment}] failed: {printable(repr(error))}")
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
            try:  # the review never stops grades.csv or the report (each notebook is read safely already)
                pairs, notes, report = review_class(
                    self.course.root, assignment, students, self.similarity_against, self.similarity_threshold
                )
            except Exception as error:  # noqa: BLE001 - said, and the class's grades are written regardless
                self.out(f"similarity review of {assignment} failed: {printable(repr(error))}")
                continue
            for pair in pairs:
                self.out(
                    f"similar [{assignment}]: {pair.student} ~ {pair.other} ({round(pair.similarity * 100)}%)"
                )
            self.out(f"similarity: {len(pairs)} pairs flagged, report in {report}")
            for student, found in notes.items():
                key = (student, assignment)
                review[key] = "; ".join(filter(None, [review.get(key, ""), *found]))


EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")
"""What nbgrader's exchange writes beside a submitted notebook. nbgrader's generate_feedback copies them from
autograded/ to feedback/, and release_feedback needs them there: the secret names the learner's page."""

MAX_EXCHANGE_FILE = 4096
"""Bytes: a timestamp or a secret is a line; a bigger file in their place is not nbgrader's, and is not copied."""


def copy_exchange_files(submitted: Path, autograded: Path) -> None:
    """Copy the exchange's files of a submission (`EXCHANGE_FILES`) next to its autograded notebooks, as
    nbgrader's autograde does: regular files of a line, never a link."""
    for name in EXCHANGE_FILES:
        source = submitted / name
        if source.is_file() and not source.is_symlink() and source.stat().st_size <= MAX_EXCHANGE_FILE:
            shutil.copyfile(source, autograded / name)


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
