"""Running again resumes: a submission already graded, unchanged, against the same course, is skipped.

After `course-grade` has recorded a submission (grades, autograded notebooks, notes), it writes a mark
beside its notes: a hash of the submission's files, of the assignment's source files, of the course's
configuration and of the grading options that can change a score, and of the gradebook's URL; and, on a
second line, a hash of what the recording left: the autograded folder's files and the submission's automatic
scores in the gradebook. A run that finds the same mark, and the same autograded files and scores, skips it
(unless `--regrade`); a submission that something else graded since (nbgrader's autograde, the formgrader,
an edited gradebook; the instructor's manual scores do not count) is graded again. A submission that
could not be graded (a deadline passed, its worker killed) gets no mark: the next run tries it again. The mark is
removed before a submission is recorded and written after, and recording cannot be cut by Ctrl-C
(`uninterrupted`), so a run stopped anywhere (Ctrl-C, the Dask scheduler lost, the machine gone) leaves a
consistent gradebook and regrades, next time, exactly what it had not finished.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import signal
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import FrameType

from course_grade.course import CONFIG_FILE, Course
from course_grade.intake.files import fingerprint

SUFFIX = ".graded"
"""A mark is `<course>/grading_notes/<student>/<assignment>.graded`."""


def course_version(course: Course, assignment: str, options: Mapping[str, object]) -> str:
    """A hash of what grading an assignment depends on besides the submission."""
    config = course.root / CONFIG_FILE
    parts = {
        "source": fingerprint(course.folder("source", assignment=assignment)),
        "config": hashlib.sha256(config.read_bytes()).hexdigest() if config.is_file() else "",
        "options": {key: repr(value) for key, value in sorted(options.items())},
        "gradebook": course.db_url,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def submission_mark(files: Mapping[str, str], version: str) -> str:
    """The mark of one submission (its files' hashes, see `files.fingerprint`) graded at a course version."""
    return hashlib.sha256(json.dumps([sorted(files.items()), version]).encode()).hexdigest()


def left_mark(autograded: Mapping[str, str], auto_scores: Sequence[tuple[str, str, float | None]]) -> str:
    """The mark of what recording a submission left: its autograded files' hashes and its automatic scores."""
    return hashlib.sha256(json.dumps([sorted(autograded.items()), list(auto_scores)]).encode()).hexdigest()


def is_marked(path: Path, mark: str, left: str) -> bool:
    """Whether the submission whose mark file is `path` was last recorded with this mark, and what that
    recording left (`left_mark`) is still what is there."""
    try:
        return path.read_text(encoding="utf-8").split() == [mark, left]
    except OSError:
        return False


def unmark(path: Path) -> None:
    """Remove a mark before its submission is recorded again."""
    path.unlink(missing_ok=True)


def write_mark(path: Path, mark: str, left: str) -> None:
    """Write a mark, and the mark of what the recording left, once its submission is recorded."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{mark}\n{left}\n", encoding="utf-8")


@contextlib.contextmanager
def uninterrupted() -> Iterator[None]:
    """Hold Ctrl-C back while the block runs, then raise it: a submission is recorded whole or not at all.

    nbgrader commits after each row it creates, so the gradebook's own transactions cannot make recording
    one submission atomic. Only the main thread receives SIGINT; elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(number: int, frame: FrameType | None) -> None:
        caught.append(number)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt
