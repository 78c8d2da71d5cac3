"""Dask distributed as the grading engine: one task per submission, results back to the one writer.

`Cluster("local", jobs, deadline)` starts a `LocalCluster` of `jobs` single-threaded worker processes
on this machine (loopback only, no dashboard); `Cluster("tcp://HOST:PORT", ...)` connects to a running
`dask scheduler` whose workers (`dask worker tcp://HOST:PORT`) may be on other machines. `run` submits
the submissions a few at a time (each task carries its payload: see `course_grade.run.cluster.payload`) and
yields each result as it finishes, in the calling thread, which alone records them.

Faults, as the engine reports them:
- a worker that dies while grading (killed, out of memory, its machine lost): the scheduler gives the task
  to another worker, and after `allowed-failures` such deaths (the scheduler's setting; 1 on the local
  cluster) the task ends in `KilledWorker` and the submission is failed "killed its grading worker";
- the scheduler lost: every future is cancelled at once and `run` raises `SchedulerLost`; what was
  recorded stays recorded, and running again grades the rest (see `course_grade.intake.resume`);
- no worker at all for `NO_WORKERS_SECONDS`: `NoWorkers`, rather than waiting for ever;
- a job that cannot be pickled: failed with its reason, the others go on.
The per-submission deadline is the watchdog's inside each task (`course_grade.run.cluster.task`).
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import Any

import dask
from distributed import Client, Future, LocalCluster, fire_and_forget, wait
from distributed.client import FuturesCancelledError
from distributed.scheduler import KilledWorker

from course_grade.course import CourseError
from course_grade.run.cluster.payload import Payload
from course_grade.run.cluster.task import grade, warm_up
from course_grade.run.jobs import AutogradeJob, AutogradeResult, Settings

LOCAL = "local"
"""`--cluster local`: a cluster of worker processes on this machine."""
CONNECT_SECONDS = 30
"""How long to try to reach a scheduler."""
NO_WORKERS_SECONDS = 300
"""How long the run waits for the scheduler to have a worker before it stops."""
POLL_SECONDS = 1.0
"""How often the waiting loop looks at the cluster."""
LOCAL_CLUSTER = {
    "distributed.scheduler.allowed-failures": 1,
    "distributed.scheduler.worker-saturation": 1.0,
    "distributed.scheduler.work-stealing": False,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
}
"""The local cluster's settings. A task survives one death of its worker (one retry, then `KilledWorker`),
and a worker holds only the task it runs, so a submission that kills it takes no other task's try with it.
The rest spares the cores the learners' notebooks grade on (Dask's defaults cost about 5% of a core on an
idle cluster of two workers): no work stealing (every worker is alike and holds one task), no statistical
profiler sampling each worker every 10 ms for a dashboard the local cluster does not serve, and the event
loops' watchdog and system monitor woken every second or five rather than every 20 or 500 ms. A `dask
scheduler` and `dask worker`s for course-grade are best started with the same settings (see the README)."""
HTTP_ADDRESS = "127.0.0.1:0"
"""Where the local scheduler serves its HTTP routes (no dashboard): a free loopback port. Dask serves them even
without a dashboard, on port 8787 when given no address, and warns "Port 8787 is already in use" whenever
another Dask on the machine holds it: a port course-grade never asked for."""
KILLED = (
    "it killed its grading worker: the Dask worker running it died each time it was tried ({tries} times); "
    "nothing of it could be graded."
)


class SchedulerLost(CourseError):
    """The Dask scheduler went away mid-run: the submissions recorded so far stay, the rest are not graded."""


class NoWorkers(CourseError):
    """The Dask scheduler had no worker to grade on for too long."""


class Cluster:
    """A Dask cluster to grade on, local or remote; use it as a context manager."""

    def __init__(self, address: str, jobs: int, deadline: float) -> None:
        self.address = address
        self.jobs = max(1, jobs)
        self.deadline = deadline
        """Seconds one submission may take before its watchdog stops it."""
        self.dashboard: str | None = None
        """The scheduler's dashboard address, when it serves one."""
        self._cluster: LocalCluster | None = None
        self._client: Client | None = None

    def __enter__(self) -> Cluster:
        logging.getLogger("distributed").setLevel(logging.CRITICAL)  # our own messages say what went wrong
        try:
            if self.address == LOCAL:
                with dask.config.set(LOCAL_CLUSTER), _ctrl_c_left_to_this_process():
                    self._cluster = LocalCluster(
                        n_workers=self.jobs, threads_per_worker=1, processes=True, host="127.0.0.1",
                        scheduler_port=0, memory_limit=0, silence_logs=logging.CRITICAL,
                        dashboard_address=HTTP_ADDRESS, scheduler_kwargs={"dashboard": False},
                    )  # fmt: skip
                self._client = Client(self._cluster, timeout=CONNECT_SECONDS)
            else:
                self._client = Client(self.address, timeout=CONNECT_SECONDS)
                services = self._client.scheduler_info().get("services", {})
                self.dashboard = self._client.dashboard_link if "dashboard" in services else None
            self._warm_up()
        except (OSError, TimeoutError, ValueError) as error:  # ValueError: not an address
            self.__exit__(None, None, None)
            raise CourseError(f"cannot reach the Dask scheduler at {self.address}: {error}") from error
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):  # a lost scheduler must not hide why the run stopped
                self._client.close(timeout=10)
            self._client = None
        if self._cluster is not None:  # stopped (Ctrl-C, an error): its workers' tasks are not waited for
            with contextlib.suppress(Exception):
                self._cluster.close(timeout=30 if kind is None else 5)
            self._cluster = None

    def _warm_up(self) -> None:
        """Have every worker start its watchdog's child (which imports nbgrader) while this process goes on."""
        for address in self.client.scheduler_info(n_workers=-1).get("workers", {}):
            fire_and_forget(
                self.client.submit(
                    warm_up, self.deadline, workers=[address], allow_other_workers=False, pure=False
                )
            )

    @property
    def client(self) -> Client:
        """The connected client."""
        if self._client is None:
            raise CourseError("the Dask cluster is not started")
        return self._client

    def threads(self) -> int:
        """Worker threads the scheduler has now."""
        try:
            workers: dict[str, Any] = self.client.scheduler_info(n_workers=-1).get("workers", {})
        except (OSError, TimeoutError):
            return 0
        return sum(int(worker.get("nthreads", 1)) for worker in workers.values())

    def run(
        self, jobs: Sequence[AutogradeJob], settings: Settings, bundle: Callable[[AutogradeJob], Payload]
    ) -> Iterator[AutogradeResult]:
        """Grade every job on the cluster; yield each result as it finishes, in this thread."""
        waiting = deque(jobs)
        running: dict[Future[AutogradeResult], AutogradeJob] = {}
        idle_since, lost_since = time.monotonic(), 0.0
        while waiting or running:
            window = max(4, 2 * self.threads())  # a few tasks ahead of the workers, not the whole class
            while waiting and len(running) < window:
                job = waiting.popleft()
                try:
                    future = self.client.submit(
                        grade,
                        job,
                        settings.for_assignment(job.assignment),
                        bundle(job),
                        self.deadline,
                        pure=False,
                    )
                except Exception as error:  # e.g. settings that cannot be pickled: a reason, never a hang
                    if self.client.status != "running":
                        raise SchedulerLost(self._lost()) from error  # not this job's fault: left ungraded
                    yield job.failed(
                        f"the grader could not hand this job to a worker: {type(error).__name__}: {error}"
                    )
                    continue
                running[future] = job
            if not running:
                continue
            try:
                wait(list(running), timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
            except TimeoutError:
                if self.client.status != "running":  # reconnecting: Dask cancels the futures if it gives up
                    lost_since = lost_since or time.monotonic()
                    if time.monotonic() - lost_since > CONNECT_SECONDS:
                        raise SchedulerLost(self._lost()) from None
                    continue
                lost_since = 0.0
                if self.threads():
                    idle_since = time.monotonic()
                elif time.monotonic() - idle_since > NO_WORKERS_SECONDS:
                    raise NoWorkers(
                        f"the Dask scheduler at {self.address} has had no worker for {NO_WORKERS_SECONDS} s "
                        "(start some with `dask worker <scheduler address>`)"
                    ) from None
                continue
            except FuturesCancelledError:
                pass  # looked at below, future by future
            done = sorted((f for f in running if f.done()), key=lambda f: f.status == "cancelled")
            for future in done:  # what finished is recorded before a lost scheduler stops the run
                job = running.pop(future)
                yield self._result(future, job)
                future.release()
            idle_since = time.monotonic()

    def _lost(self) -> str:
        """What to tell the instructor when the scheduler is gone."""
        return (
            f"lost the Dask scheduler at {self.address} while grading (the grades recorded so far are kept, "
            "whole; start it again, then run the same command: what was graded is skipped)"
        )

    def _result(self, future: Future[AutogradeResult], job: AutogradeJob) -> AutogradeResult:
        """A finished future's result, or the job failed with what the engine says happened."""
        if future.status == "cancelled":
            raise SchedulerLost(self._lost())
        if future.status == "error":
            error = future.exception()
            if isinstance(error, KilledWorker):
                return job.failed(KILLED.format(tries=error.allowed_failures + 1))
            return job.failed(f"the grading task failed: {type(error).__name__}: {error}")
        result = future.result()
        assert isinstance(result, AutogradeResult)
        return result


@contextlib.contextmanager
def _ctrl_c_left_to_this_process() -> Iterator[None]:
    """Start the local workers with SIGINT ignored (a new interpreter keeps an ignored SIGINT ignored): Ctrl-C
    in the terminal reaches every process of the group, and this process alone stops the run, recording
    nothing by half, then closes the cluster."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
