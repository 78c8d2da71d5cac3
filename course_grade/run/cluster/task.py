"""The grading task a Dask worker runs: one submission in, its autograded notebooks and verdicts out.

Dask can neither stop a running task nor kill what it started, and a learner's kernel can kill the
process that started it or outlive every timeout. So the task does not grade in the Dask worker itself:
each worker thread keeps a one-slot `course_grade.run.pool.Pool`, the same watchdog the pool of a single
machine uses, whose child process grades the submission under the per-submission deadline and is killed
with everything it started, and replaced, when the deadline passes or it dies. The child is started by
`warm_up` when the worker joins, and only it imports nbgrader. The task lays the payload out as a scratch
course on the worker (nothing assumes a shared filesystem), hides the real course and scratch folders of
the `course-grade` machine from the kernel too (the local cluster runs beside them), and returns the
result; the `course-grade` process records it.
"""

from __future__ import annotations

import atexit
import dataclasses
import multiprocessing
import tempfile
import threading
from pathlib import Path

from course_grade.course import use_this_environment
from course_grade.intake.files import remove_tree
from course_grade.run.cluster.payload import Payload, unpack_payload
from course_grade.run.jobs import AutogradeJob, AutogradeResult, Settings
from course_grade.run.pool import Pool

_pools: dict[int, Pool] = {}
"""One watchdog pool per worker thread, kept between tasks (its child has imported nbgrader once)."""
_lock = threading.Lock()


def grade(job: AutogradeJob, settings: Settings, bundle: Payload, deadline: float) -> AutogradeResult:
    """Autograde one submission from its payload in a watched child process and return the result (which
    says why when it could not be graded); raises only when no watchdog child can start."""
    use_this_environment()  # nbgrader and the kernels run from this interpreter's environment
    folder = Path(tempfile.mkdtemp(prefix="course-grade-task-"))
    try:
        course = unpack_payload(bundle, settings.course, folder / "course", job.student, job.assignment)
        scratch = folder / "scratch"
        scratch.mkdir()
        here = dataclasses.replace(
            settings, course=course, scratch=scratch,
            hidden=(*settings.hidden, str(settings.course.root), str(settings.scratch)),
        )  # fmt: skip
        results = list(_pool(deadline).run([job], here))
    finally:
        remove_tree(folder)
    [result] = results
    assert isinstance(result, AutogradeResult)
    return result


def warm_up(deadline: float) -> None:
    """Start this worker thread's watchdog pool and its child before the first submission comes: the child is
    forked from a server that imports nbgrader once for every child to come."""
    _pool(deadline).start()


def _pool(deadline: float) -> Pool:
    """This thread's watchdog pool, started on first use (again if the deadline changed)."""
    key = threading.get_ident()
    with _lock:
        pool = _pools.get(key)
        if pool is not None and pool.deadline == deadline:
            return pool
        if pool is not None:
            pool.__exit__(None, None, None)
        _allow_children()
        pool = Pool(1, deadline, Path(tempfile.mkdtemp(prefix="course-grade-worker-")))
        _pools[key] = pool.__enter__()
        atexit.register(_close, pool)
        return pool


def _allow_children() -> None:
    """Let this process start the watchdog's child: Dask's nanny starts workers as daemonic processes,
    which multiprocessing forbids to have children. The pool stops its child itself, and the child leaves
    when this process dies (its pipe closes)."""
    process = multiprocessing.current_process()
    if process.daemon:
        process._config["daemon"] = False  # type: ignore[attr-defined]


def _close(pool: Pool) -> None:
    """Stop a pool's child and remove its logs (at the worker's exit)."""
    pool.__exit__(None, None, None)
    remove_tree(pool.logs)
