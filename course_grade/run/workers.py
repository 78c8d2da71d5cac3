"""The work a worker process does: autograde one submission in a scratch course, or render one feedback.

`autograde` builds a throwaway course directory (the assignment's plain files but no source notebook,
the one submission, a copy of the template gradebook outside it), checks, cleans and flags the
submission, runs nbgrader's own autograde there through its Python API, and returns the grades, the
autograded notebooks and the notes. The learner's kernel runs in that scratch copy only, and with the
sandbox on it sees nothing but its notebook's folder (see `course_grade.run.kernels`); whatever it writes is
discarded with it. The parent recomputes the scores from the returned notebooks: nothing the kernel could
reach decides them. `render_feedback` runs nbgrader's generate_feedback for one student in the real course,
reading the gradebook (no worker writes to it). The configuration comes with the job, read once by the parent.
The jobs themselves, and what they return, are plain data in `course_grade.run.jobs`.
"""

from __future__ import annotations

import dataclasses
import glob
import json
import os
import re
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from nbgrader.apps.api import NbGraderAPI  # type: ignore[import-untyped]
from nbgrader.converters import Autograde, BaseConverter, GenerateFeedback  # type: ignore[import-untyped]
from nbgrader.preprocessors import Execute, OverwriteCells  # type: ignore[import-untyped]
from nbgrader.utils import capture_log, temp_attrs  # type: ignore[import-untyped]
from traitlets.config import Config

from course_grade.intake.checks import inspect_submission
from course_grade.intake.cleaning import clean, cleaning_note, flag_note, flags
from course_grade.intake.files import (
    changed,
    copy_regular_files,
    files_under,
    fingerprint,
    remove_tree,
)
from course_grade.notes import Note
from course_grade.release.library import search_path, write_library
from course_grade.run import sandbox
from course_grade.run.execution import execution_notes
from course_grade.run.hardened import (
    GuardedExecute,
    HideHiddenTests,
    LiteralAutograde,
    LiteralGenerateFeedback,
    SafeOverwriteCells,
)
from course_grade.run.jobs import (
    READY,
    AutogradeJob,
    AutogradeResult,
    FeedbackJob,
    FeedbackResult,
    Job,
    Result,
    Settings,
)
from course_grade.score.gradebook import definitions, read_results
from course_grade.score.submission_grades import SubmissionGrades
from course_grade.score.trusted.grading import trusted_verdicts
from course_grade.score.trusted.runner import NotebookVerdict
from course_grade.score.trusted.session import Wrap, identity

HIDDEN_FAILED = "HiddenTestFailed"
"""The error a test cell shows when its hidden tests failed on the trusted side."""

IGNORED = (".ipynb_checkpoints", "__pycache__")
"""Folders nbgrader's default `CourseDirectory.ignore` leaves out; a learner's junk there is not reported."""


def autograde(job: AutogradeJob, settings: Settings) -> AutogradeResult:
    """Autograde one submission in a scratch course directory that is deleted afterwards."""
    start = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="job-", dir=settings.scratch))
    try:
        result = _autograde(job, settings, scratch)
    finally:
        remove_tree(scratch)
    return dataclasses.replace(result, seconds=time.perf_counter() - start)


def render_feedback(job: FeedbackJob, settings: Settings) -> FeedbackResult:
    """Run generate_feedback for one student's submission of one assignment."""
    start = time.perf_counter()
    config = settings.nbgrader_config()
    default = GenerateFeedback.class_traits()["preprocessors"].default()
    configured = [
        step for step in config.GenerateFeedback.get("preprocessors", default) if step is not HideHiddenTests
    ]
    hiding = (
        [HideHiddenTests] if settings.hide_hidden_tests else []
    )  # the course's config may hide them already
    config.GenerateFeedback.preprocessors = [*configured, *hiding]
    outcome = convert(LiteralGenerateFeedback, config, job.assignment, job.student)
    error = None if outcome["success"] else failure_reason(outcome)
    return FeedbackResult(job.student, job.assignment, error, time.perf_counter() - start)


RUNS: dict[type[Any], Callable[[Any, Settings], Any]] = {
    AutogradeJob: autograde,
    FeedbackJob: render_feedback,
}
"""The function that runs each type of job: a job is data and carries no code (a test adds its own jobs here)."""


def run_job(job: Job, settings: Settings) -> Result:
    """Run one job with the function of its type."""
    result: Result = RUNS[type(job)](job, settings)
    return result


class SubmissionChanged(Exception):
    """The files of a submission are not the ones taken in: it is not graded."""


def _autograde(job: AutogradeJob, settings: Settings, scratch: Path) -> AutogradeResult:
    """Stage a scratch course, check the submission, let nbgrader grade it there, and collect everything."""
    real, course = settings.course, scratch / "course"
    url, notes = _stage(job, settings, scratch)
    submitted = course / "submitted" / job.student / job.assignment
    found, gradable = inspect_submission(
        submitted, definitions(url, real.course_id, job.assignment), settings.elsewhere
    )
    notes += found
    for path in submitted.glob("*.ipynb"):
        if path.stem not in gradable:
            path.unlink()  # nbgrader then scores it as not submitted
        else:
            notes += _clean(path, settings.known)
    if not gradable:
        return AutogradeResult(SubmissionGrades(job.student, job.assignment), tuple(notes))

    autograded = course / "autograded" / job.student / job.assignment
    expected = {f"{name}.ipynb" for name in gradable} | _plain_files(submitted)
    expected |= _plain_files(course / "source" / job.assignment)
    as_submitted = {name: (submitted / f"{name}.ipynb").read_bytes() for name in gradable}
    before = fingerprint(course, skip=course / "autograded")
    config = _hardened(settings.nbgrader_config())
    config.CourseDirectory.root, config.CourseDirectory.db_url = str(course), url
    config.GradingKernelManager.sandboxed = settings.sandbox
    config.GradingKernelManager.runtime = str(scratch / "k")
    config.GradingKernelManager.hidden = [str(real.root), str(settings.scratch), *settings.hidden]
    library = settings.libraries.get(job.assignment) if settings.trusted_checks else None
    search = search_path(write_library(library, scratch / "library")) if library is not None else []
    config.GradingKernelManager.library = search
    config.SafeOverwriteCells.strip_hidden_tests = library is not None
    config.SafeOverwriteCells.instructor_folder = str(real.folder("source", assignment=job.assignment))
    outcome = convert(LiteralAutograde, config, job.assignment, job.student)
    notes += _side_effects(
        changed(before, fingerprint(course, skip=course / "autograded")), autograded, expected
    )
    if not outcome["success"]:
        notes.append(Note("grading-failed", f"nbgrader could not grade it: {failure_reason(outcome)}"))
        return AutogradeResult(SubmissionGrades(job.student, job.assignment), tuple(notes))

    paths = {name: autograded / f"{name}.ipynb" for name in gradable}
    notebooks = {name: path.read_bytes() for name, path in paths.items() if path.is_file()}
    timeout = int(config.Execute.get("timeout", Execute.timeout.default_value))
    for name, data in notebooks.items():
        notes += execution_notes(json.loads(data), f"{name}.ipynb", timeout)
    grades = read_results(url, real.course_id, job.assignment, job.student, list(notebooks))
    source = real.folder("source", assignment=job.assignment)
    if settings.trusted_checks:
        wrap = _trusted_wrap(settings, scratch, search) if settings.sandbox else identity
        verdicts = trusted_verdicts(grades, source, as_submitted, wrap, scratch, timeout, search)
        if library is not None:
            notebooks = {name: hidden_failures(data, verdicts, name) for name, data in notebooks.items()}
        return AutogradeResult(grades, tuple(notes), notebooks, verdicts=verdicts)
    return AutogradeResult(grades, tuple(notes), notebooks)


def hidden_failures(data: bytes, verdicts: tuple[NotebookVerdict, ...], name: str) -> bytes:
    """An autograded notebook whose kernel ran only the visible tests, with each test cell whose hidden tests
    failed on the trusted side (or could not run there) given the one error output its learner may read: the
    cell then scores 0, as nbgrader scores a failing test, and its feedback says which hidden test failed."""
    verdict = next((v for v in verdicts if v.name == name), None)
    cells = {cell.grade_id: cell for cell in verdict.cells} if verdict is not None else {}
    notebook = json.loads(data)
    for cell in notebook.get("cells", []):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        if any(output.get("output_type") == "error" for output in cell.get("outputs", [])):
            continue  # the visible tests failed: the kernel's own error is what the learner reads
        found = cells.get(meta.get("grade_id", ""))
        if found is None or found.passed is None:
            message = "its hidden tests could not be run; an instructor will look at it"
        elif found.passed or not found.hidden:
            continue  # passed, or failed in a visible test the kernel passed: the trusted verdict's to note
        else:
            message = found.hidden
        cell.setdefault("outputs", []).append(
            {
                "output_type": "error",
                "ename": HIDDEN_FAILED,
                "evalue": message,
                "traceback": [f"{HIDDEN_FAILED}: {message}"],
            }  # fmt: skip
        )
    return json.dumps(notebook).encode("utf-8")


def _trusted_wrap(settings: Settings, scratch: Path, path: list[str]) -> Wrap:
    """The sandbox for the trusted checks' learner process: it may write only its own folder under the job's
    scratch, and read Python and course_grade's trusted package with course_lib, or the learners' library it
    is graded against (`path`), but never the course or other jobs."""
    folder = scratch / "trusted"
    folder.mkdir(parents=True, exist_ok=True)
    readable = [Path(path[0])] if path else [Path(__file__).resolve().parents[1]]  # course_grade
    hidden = [settings.course.root, settings.scratch, *map(Path, settings.hidden)]
    return lambda argv: sandbox.wrap(
        argv, writable=[folder], readable=readable, hidden=hidden, course_lib=not path
    )


def _stage(job: AutogradeJob, settings: Settings, scratch: Path) -> tuple[str, list[Note]]:
    """Build the scratch course: the assignment's source, the submission, a copy of the template gradebook.

    Returns the scratch gradebook's URL and the notes on what was left out (symbolic links).
    """
    real, course = settings.course, scratch / "course"
    shutil.copytree(  # nbgrader copies these next to the notebook; the source notebooks stay out of reach
        real.folder("source", assignment=job.assignment), course / "source" / job.assignment,
        ignore=shutil.ignore_patterns("*.ipynb"),
    )  # fmt: skip
    submitted = course / "submitted" / job.student / job.assignment
    links = copy_regular_files(real.folder("submitted", job.student, job.assignment), submitted)
    if job.files and fingerprint(submitted) != {k: v for k, v in job.files.items() if k not in links}:
        raise SubmissionChanged("the submission changed after it was taken in (by another learner's code?)")
    database = scratch / "gradebook" / "gradebook.db"  # outside the scratch course, out of `../` reach
    database.parent.mkdir()
    database.write_bytes(settings.template)
    return f"sqlite:///{database}", [
        Note("symlink", f"{link} is a symbolic link or a special file and was left out.") for link in links
    ]


def _clean(path: Path, known: frozenset[str]) -> list[Note]:
    """Remove a submitted notebook's tags (rewriting it) and flag its suspicious cells; return the notes."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    if not (isinstance(notebook, dict) and isinstance(notebook.get("cells"), list)):
        return []  # an older format: nbgrader upgrades it, and no tag of those formats reaches nbclient
    removed = clean(notebook)
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return cleaning_note(path.name, removed) + flag_note(path.name, flags(notebook, known))


def _side_effects(tampered: list[str], autograded: Path, expected: set[str]) -> list[Note]:
    """Notes on what the learner's code wrote: next to the notebook, or elsewhere in the course directory."""
    notes = []
    written = sorted(
        name
        for name in files_under(autograded) - expected
        if not any(part in IGNORED for part in Path(name).parts)
    )
    if written:
        text = f"the notebook wrote files next to itself ({_few(written)}); they were discarded."
        notes.append(Note("wrote-files", text))
    if tampered:
        text = (
            f"the notebook changed files of the course directory ({_few(tampered)}); it ran in a scratch "
            "copy, so only that copy changed, and it was thrown away."
        )
        notes.append(Note("tampered", text))
    return notes


def convert(converter: type[BaseConverter], config: Config, assignment: str, student: str) -> dict[str, Any]:
    """Run one nbgrader converter for one submission, as nbgrader's Python API does; return its outcome."""
    api = NbGraderAPI(config=config)
    folders = {"assignment_id": glob.escape(assignment), "student_id": glob.escape(student)}
    with temp_attrs(api.coursedir, **folders):
        app = converter(coursedir=api.coursedir, parent=api)
        app.force = True
        outcome: dict[str, Any] = capture_log(app)
        return outcome


def _hardened(config: Config) -> Config:
    """The course's configuration with nbgrader's Execute and OverwriteCells replaced by hardened ones."""
    for step, original, replacement in [
        ("autograde_preprocessors", Execute, GuardedExecute),
        ("sanitize_preprocessors", OverwriteCells, SafeOverwriteCells),
    ]:
        configured = config.Autograde.get(step)
        default = Autograde.class_traits()[step].default()
        preprocessors = list(configured if configured is not None else default)
        config.Autograde[step] = [replacement if p is original else p for p in preprocessors]
    return config


def _plain_files(folder: Path) -> set[str]:
    """The non-notebook files under a folder, relative to it: nbgrader copies these next to the notebooks."""
    return {name for name in files_under(folder) if not name.endswith(".ipynb")}


def _few(names: list[str], most: int = 4) -> str:
    """Up to `most` names, then how many more."""
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most} more"


def failure_reason(outcome: Mapping[str, Any]) -> str:
    """The line of nbgrader's log or traceback that says what failed."""
    text = "\n".join(str(outcome.get(key) or "") for key in ("log", "error"))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [
        line for line in lines
        if re.match(r"^[\w.]*(Error|Exception|Exit)\b", line) and "NbGraderException" not in line
    ]  # fmt: skip
    return (errors or lines or ["no reason given"])[-1][:300]


def serve(connection: Connection, log: Path) -> None:
    """A worker process: take (job, settings) from the connection, send back each result, until None."""
    os.setsid()  # ^C in the terminal reaches the pipeline, which stops its workers itself
    descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(descriptor, 1)  # nbgrader's logging and kernels' stray output go to the log, not the terminal
    os.dup2(descriptor, 2)
    warnings.simplefilter("ignore")
    connection.send(READY)
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:
            return
        job, settings = message
        try:
            result = run_job(job, settings)
        except Exception as error:  # one submission's trouble must never take the worker down
            result = job.failed(f"{type(error).__name__}: {error}")
        connection.send(result)
