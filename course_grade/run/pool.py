"""A pool of worker processes that survives its workers: one job each at a time, a dead or stuck one replaced.

A learner's kernel can kill the process that started it, or hang past every timeout. Each worker is
driven by a thread of this process that sends it one job, waits for its answer within a limit of CPU time
(`course_grade.cputime`: the worker's and its kernels', capped in wall-clock time), and on a death or a
timeout kills the worker with everything it started, answers the job with a failure saying
why, and starts a fresh worker for the next job. Results come back to the calling thread one at a time,
in the order they finish, so that the caller is the only one that ever records them. Each worker runs on
a core of its own where one is free (`course_grade.run.cores`), with everything it starts, and a job is sent
the settings of its own assignment only (`Settings.for_assignment`).
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import multiprocessing.forkserver
import queue
import signal
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import TracebackType

import psutil  # type: ignore[import-untyped]

from course_grade.course import CourseError
from course_grade.cputime import WALL_FACTOR, CpuLimit, tree_cpu_seconds
from course_grade.run.cores import Claim, bind, claim
from course_grade.run.jobs import READY, Job, Result, Settings

STARTUP_SECONDS = 300
"""How long a new worker may take to import nbgrader and report ready (a loaded machine is slow)."""


class WorkerStartError(CourseError):
    """A worker process could not start: the pipeline cannot run (this is not any learner's doing)."""


@dataclass
class _Worker:
    """One worker process and this side of its pipe."""

    process: BaseProcess
    connection: Connection
    claim: Claim | None = None
    """The core the worker runs on, held until it is stopped (`course_grade.run.cores`)."""


class Pool:
    """`size` worker processes grading jobs in parallel; use it as a context manager."""

    def __init__(self, size: int, deadline: float, logs: Path, wall_factor: float = WALL_FACTOR) -> None:
        self.size = max(1, size)
        self.deadline = deadline
        """CPU seconds one job's worker (with its kernels) may use before it is killed, within a wall-clock cap
        of `course_grade.cputime.WALL_FACTOR` times it (see there: a loaded machine costs no learner points)."""
        self.wall_factor = wall_factor
        """The wall-clock cap of a job, as a multiple of `deadline`."""
        self.logs = logs
        """Folder for the workers' logs (nbgrader's messages and kernels' stray output)."""
        self._workers: list[_Worker | None] = [None] * self.size
        self._numbers = itertools.count(1)
        self._context = _context()
        self._closing = threading.Event()

    def __enter__(self) -> Pool:
        if self._context.get_start_method() == "forkserver":  # it imports nbgrader now, in the background
            multiprocessing.forkserver.ensure_running()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._closing.set()
        if kind is None:  # ask every worker to leave first, so that they wind down together
            for worker in self._workers:
                if worker is not None:
                    with contextlib.suppress(OSError):
                        worker.connection.send(None)
        for slot in range(self.size):
            self._stop(slot, gently=kind is None)

    def start(self) -> None:
        """Start every slot's worker now rather than at its first job; WorkerStartError when one cannot start."""
        for slot, worker in enumerate(self._workers):
            if worker is None:
                self._workers[slot] = self._start()

    def run(self, jobs: Sequence[Job], settings: Settings) -> Iterator[Result]:
        """Run every job; yield each result as it finishes (in this thread, the only one recording them)."""
        pending: queue.SimpleQueue[Job] = queue.SimpleQueue()
        for job in jobs:
            pending.put(job)
        done: queue.SimpleQueue[Result | WorkerStartError] = queue.SimpleQueue()
        drivers = [
            threading.Thread(target=self._drive, args=(slot, pending, done, settings), daemon=True)
            for slot in range(min(self.size, len(jobs)))
        ]
        for driver in drivers:
            driver.start()
        for _ in jobs:
            answer = done.get()
            if isinstance(answer, WorkerStartError):
                self._closing.set()
                raise answer
            yield answer
        for driver in drivers:
            driver.join()

    def _drive(
        self,
        slot: int,
        pending: queue.SimpleQueue[Job],
        done: queue.SimpleQueue[Result | WorkerStartError],
        settings: Settings,
    ) -> None:
        """Feed one worker jobs until none are left (or the pool is closing)."""
        while not self._closing.is_set():
            try:
                job = pending.get_nowait()
            except queue.Empty:
                return
            try:
                done.put(self._one(slot, job, settings))
            except WorkerStartError as error:
                done.put(error)
                return
            except Exception as error:  # e.g. settings that cannot be pickled: a reason, never a hang
                self._stop(slot, gently=False)
                done.put(
                    job.failed(
                        f"the grader could not hand this job to a worker: {type(error).__name__}: {error}"
                    )
                )

    def _one(self, slot: int, job: Job, settings: Settings) -> Result:
        """Send one job to the slot's worker and wait for its answer, replacing the worker if it fails.

        A worker that dies is replaced and the job tried once more on the fresh one, in case something
        left behind by an earlier job killed it; a job that kills its worker twice is failed.
        """
        reason = ""
        for attempt in (1, 2):
            worker = self._workers[slot] or self._start()
            self._workers[slot] = worker
            try:
                pid = worker.process.pid
                limit = CpuLimit(self.deadline, partial(_tree_cpu, pid), self.wall_factor)
                worker.connection.send((job, settings.for_assignment(job.assignment)))
                while not worker.connection.poll(limit.wait()):
                    if limit.reached:
                        self._stop(slot, gently=False)
                        return job.failed(_too_long(limit))
                answer: Result = worker.connection.recv()
                return answer
            except (EOFError, OSError):
                reason = self._death(worker, attempt)
                self._stop(slot, gently=False)
        return job.failed(reason)

    def _death(self, worker: _Worker, attempts: int) -> str:
        """Why a worker stopped answering, for the learner and the instructor."""
        worker.process.join(timeout=5)
        code = worker.process.exitcode
        if code is not None and code < 0:
            how = f"was killed by {signal.Signals(-code).name}"
        else:
            how = f"stopped with exit status {code}"
        times = " (twice)" if attempts > 1 else ""
        return (
            f"the process grading this notebook {how} while running it{times}; nothing of it could be graded."
        )

    def _start(self) -> _Worker:
        """Start one worker process, on a core of its own where one is free, and wait until it is ready to take
        jobs; the core is let go again if it cannot start."""
        core = claim()
        try:
            return self._launch(core)
        except BaseException:
            if core is not None:
                core.release()
            raise

    def _launch(self, core: Claim | None) -> _Worker:
        """Start one worker process bound to `core` and wait until it is ready; WorkerStartError if it is not."""
        here, there = self._context.Pipe()
        log = self.logs / f"worker-{next(self._numbers)}.log"
        process = self._context.Process(  # type: ignore[attr-defined]
            target=_serve, args=(there, log, core.core if core else None), daemon=True
        )
        process.start()
        there.close()
        try:
            if here.poll(STARTUP_SECONDS) and here.recv() == READY:
                return _Worker(process, here, core)
        except (EOFError, OSError):
            pass
        _kill_tree(process.pid)
        process.join(timeout=5)
        problem = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
        raise WorkerStartError(
            f"a worker process could not start (exit status {process.exitcode}){': ' if problem else ''}"
            + "".join(problem)
        )

    def _stop(self, slot: int, gently: bool) -> None:
        """Stop the slot's worker: wait for it to leave (it was asked), or kill it with all it started."""
        worker, self._workers[slot] = self._workers[slot], None
        if worker is None:
            return
        if gently:
            worker.process.join(timeout=10)
        if worker.process.is_alive():
            _kill_tree(worker.process.pid)
        worker.process.join(timeout=5)
        worker.connection.close()
        if worker.claim is not None:
            worker.claim.release()


def _serve(connection: Connection, log: Path, core: int | None) -> None:
    """A worker process's life (`course_grade.run.workers.serve`), bound to its core before it starts anything:
    nbgrader is imported here, in the worker (the fork server has it already), not in the process that starts
    workers, which may be a Dask worker."""
    bind(core)
    from course_grade.run.workers import serve

    serve(connection, log)


def _tree_cpu(pid: int | None) -> float | None:
    """CPU seconds of a worker and everything it started, or None."""
    return None if pid is None else tree_cpu_seconds(pid)


def _too_long(limit: CpuLimit) -> str:
    """Why a submission was stopped at its limit, for the learner and the instructor."""
    if limit.reached == "cpu":
        return (
            f"grading used more than {limit.seconds:.0f} s of CPU time (the limit per submission) and was "
            "stopped; nothing of it could be graded."
        )
    if limit.cap <= limit.seconds:  # no CPU time to read here: the limit counted wall-clock time
        why = "the limit per submission"
    else:
        why = f"the wall-clock cap of the {limit.seconds:.0f} s limit per submission, which counts CPU time"
    return f"grading took longer than {limit.cap:.0f} s in total ({why}) and was stopped; nothing of it was graded."


def _context() -> multiprocessing.context.BaseContext:
    """Fork workers from a server that imported nbgrader once (fast, thread-safe); spawn where there is none."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["course_grade.run.workers"])
        return context
    return multiprocessing.get_context("spawn")


def _kill_tree(pid: int | None) -> None:
    """Kill a process and every process it started (kernels run in their own sessions, so not by group)."""
    if pid is None:
        return
    try:
        root = psutil.Process(pid)
        family = [*root.children(recursive=True), root]
    except psutil.NoSuchProcess:
        return
    for process in family:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.kill()
    psutil.wait_procs(family, timeout=5)
