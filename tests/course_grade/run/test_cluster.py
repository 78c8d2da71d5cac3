"""course-grade on a real Dask cluster: a `dask scheduler` and two `dask worker` processes on 127.0.0.1.

A small class of 01_envelope (honest learners and hostile submissions, the OS sandbox on) is graded with
`--cluster local`, `--cluster pool` (no Dask) and `--cluster tcp://...` while one worker is killed with
SIGKILL mid-run; then again on the cluster (it skips what was graded); and a class holding a submission
that kills every Dask worker it lands on (the sandbox off, so that it can) goes on without it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from distributed import Client
from nbformat.v4 import new_code_cell
from nbgrader.api import Gradebook

from course_grade.course import Course
from course_grade.notebooks import read, write
from course_grade.notes import load_notes
from course_grade.score.gradebook import cell_scores
from course_grade.selftest.hostile import write_pack
from grading.build_notebooks import nbgrader_environment
from tests.support.grading_helpers import COMMAND, Run, course_grade, fresh_course

pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("cluster")]
"""One xdist worker runs this module: its cluster and classes are set up once."""

ASSIGNMENT = "01_envelope"
CLASS = ["solution", "learner", "partial", "kills-grader", "reads-source"]
"""Honest learners and hostile submissions of the pack (course_grade/selftest/hostile.py)."""
BIN = Path(sys.executable).parent
WAIT = 120
"""Seconds any one wait of this module may take."""

KILL_WORKER = """\
import psutil
for ancestor in psutil.Process().parents():
    line = " ".join(ancestor.cmdline())
    if "spawn_main" in line or line.startswith("dask worker ["):  # the Dask worker its nanny started (with
        ancestor.kill()  # setproctitle installed, Dask names its process "dask worker [address]")
        break
"""
"""A cell that kills the Dask worker grading it (reachable only without the sandbox)."""


@dataclass(frozen=True)
class Scheduler:
    """A running `dask scheduler` and its `dask worker` processes."""

    address: str
    processes: list[subprocess.Popen[bytes]]

    def worker_pids(self) -> dict[str, int]:
        """worker address -> pid of its worker process."""
        with Client(self.address, timeout=30) as client:
            pids: dict[str, int] = client.run(os.getpid)
            return pids

    def kill_scheduler(self) -> bool:
        """SIGKILL the scheduler (its workers stay, trying to reach it)."""
        self.processes[0].kill()
        return True

    def busy_workers(self) -> list[str]:
        """The workers running a task now."""
        with Client(self.address, timeout=30) as client:
            return [worker for worker, keys in client.processing().items() if keys]


def _free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port: int = probe.getsockname()[1]
        return port


def _kill_tree(process: subprocess.Popen[bytes]) -> None:
    try:
        family = [*psutil.Process(process.pid).children(recursive=True), psutil.Process(process.pid)]
    except psutil.NoSuchProcess:
        family = []
    for member in family:
        with contextlib.suppress(psutil.NoSuchProcess):
            member.kill()
    psutil.wait_procs(family, timeout=10)
    process.wait(timeout=10)


@contextlib.contextmanager
def _cluster(workers: int) -> Iterator[Scheduler]:
    """A `dask scheduler` and `workers` single-threaded `dask worker` processes on 127.0.0.1, torn down after."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    environment = {
        **nbgrader_environment(),
        "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1",
        "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0",
    }
    quiet = {"env": environment, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = [BIN / "dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
    worker = [BIN / "dask", "worker", address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"]
    processes = [subprocess.Popen(scheduler, **quiet)]
    try:
        for _ in range(workers):
            processes.append(subprocess.Popen([*worker, "--memory-limit", "0"], **quiet))
        with Client(address, timeout=WAIT) as client:
            client.wait_for_workers(workers, timeout=WAIT)
        yield Scheduler(address, processes)
    finally:
        for process in reversed(processes):
            _kill_tree(process)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[Scheduler]:
    with _cluster(2) as running:
        yield running


def _class(root: Path, students: list[str]) -> tuple[Path, Path]:
    """A released course in `root/course` and the students' submissions in `root/pack`."""
    course = fresh_course(root)
    released = course_grade(course, "release", ASSIGNMENT)
    assert released.returncode == 0, released.stderr[-2000:]
    write_pack(Course.open(course), ASSIGNMENT, root / "pack")
    for folder in (root / "pack").iterdir():
        if folder.name not in students:
            shutil.rmtree(folder)
    return course, root / "pack"


def _grade(course: Path, pack: Path, *options: str) -> Run:
    return course_grade(
        course,
        "autograde",
        str(pack),
        ASSIGNMENT,
        "--jobs",
        "2",
        "--timeout",
        "15",
        *options,
        cwd=course.parent,
    )


def _grade_and_meanwhile(
    course: Path, pack: Path, address: str, action: Callable[[], bool]
) -> tuple[Run, bool]:
    """Grade on the cluster at `address`, and call `action` once the first submission is recorded (again
    after each later line until it returns True); return the run and whether it did."""
    command = [
        COMMAND, "autograde", str(pack), ASSIGNMENT, "--jobs", "2", "--timeout", "15", "--sandbox", "on",
        "--cluster", address, "--course", str(course),
    ]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=course.parent, env=nbgrader_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    lines: queue.SimpleQueue[str] = queue.SimpleQueue()
    assert process.stdout is not None and process.stderr is not None
    reader = threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True)  # type: ignore[union-attr]
    reader.start()
    seen, done = [], False
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and not done and process.poll() is None:
        try:
            seen.append(lines.get(timeout=1))
        except queue.Empty:
            continue
        if any(line.startswith("[1/") for line in seen):
            done = action()
    try:
        process.wait(timeout=WAIT * 2)
        errors = process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
    reader.join(timeout=10)
    while not lines.empty():
        seen.append(lines.get())
    return Run(course, process.returncode, "".join(seen), errors), done


def _kill_a_busy_worker(scheduler: Scheduler) -> bool:
    """SIGKILL a worker running a task, if one is; whether one was."""
    busy = scheduler.busy_workers()
    if busy:
        os.kill(scheduler.worker_pids()[busy[0]], signal.SIGKILL)
    return bool(busy)


@dataclass(frozen=True)
class Graded:
    local: Run
    pool: Run
    cluster: Run
    killed: bool
    again: Run


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory, scheduler: Scheduler) -> Graded:
    made = tmp_path_factory.mktemp("class")
    course, pack = _class(made, CLASS)
    copies = {}
    for name in ("local", "pool", "cluster"):
        copies[name] = tmp_path_factory.mktemp(name) / "course"
        shutil.copytree(course, copies[name])
    local, pool = (
        _grade(copies[name], pack, "--sandbox", "on", "--cluster", name) for name in ("local", "pool")
    )
    cluster, killed = _grade_and_meanwhile(
        copies["cluster"], pack, scheduler.address, lambda: _kill_a_busy_worker(scheduler)
    )
    again = _grade(copies["cluster"], pack, "--sandbox", "on", "--cluster", scheduler.address)
    return Graded(local, pool, cluster, killed, again)


def test_every_run_finishes_with_status_zero(graded: Graded) -> None:
    for run in (graded.local, graded.pool, graded.cluster, graded.again):
        assert run.returncode == 0, run.stderr[-3000:]


def test_the_cluster_gives_the_grades_of_the_local_cluster_and_of_the_pool(graded: Graded) -> None:
    local = cell_scores(graded.local.db_url)
    assert local and cell_scores(graded.cluster.db_url) == local == cell_scores(graded.pool.db_url)


def test_a_worker_killed_mid_run_loses_and_doubles_nothing(graded: Graded) -> None:
    assert graded.killed
    recorded = re.findall(r"^\[\d+/\d+\] \S+  (\S+)  ", graded.cluster.stdout, re.MULTILINE)
    assert sorted(recorded) == sorted(CLASS)
    with Gradebook(graded.cluster.db_url) as gradebook:
        assert sorted(s.student.id for s in gradebook.find_assignment(ASSIGNMENT).submissions) == sorted(
            CLASS
        )
    notes = [load_notes(graded.cluster.course / "grading_notes" / s / f"{ASSIGNMENT}.json") for s in CLASS]
    assert not [note for found in notes for note in found if note.kind == "grading-failed"]


def test_a_second_run_skips_what_was_graded(graded: Graded) -> None:
    assert "autograding 0 submissions" in graded.again.stdout
    assert f"skipping {len(CLASS)} submissions graded before" in graded.again.stdout
    assert cell_scores(graded.again.db_url) == cell_scores(graded.local.db_url)


def test_the_notes_of_the_cluster_run_are_those_of_the_local_run(graded: Graded) -> None:
    """The real course folder is hidden on the workers too: reading the source is flagged alike."""
    for student in CLASS:
        local, cluster = (
            load_notes(run.course / "grading_notes" / student / f"{ASSIGNMENT}.json")
            for run in (graded.local, graded.cluster)
        )
        assert local == cluster, student


def test_a_submission_that_kills_every_worker_it_lands_on_is_recorded(
    tmp_path: Path, scheduler: Scheduler
) -> None:
    course, pack = _class(tmp_path, ["solution"])
    notebook = read(pack / "solution" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    notebook.cells.insert(0, new_code_cell(KILL_WORKER))
    (pack / "killer" / ASSIGNMENT).mkdir(parents=True)
    write(notebook, pack / "killer" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    run = _grade(course, pack, "--sandbox", "off", "--no-trusted-checks", "--cluster", scheduler.address)
    assert run.returncode == 0, run.stderr[-3000:]
    [note] = load_notes(course / "grading_notes" / "killer" / f"{ASSIGNMENT}.json")
    assert note.kind == "grading-failed" and "killed its grading worker" in note.text
    with Gradebook(run.db_url) as gradebook:
        assert gradebook.find_submission(ASSIGNMENT, "killer").score == 0
        solution = gradebook.find_submission(ASSIGNMENT, "solution")
        assert solution.score == solution.max_score


def test_a_lost_scheduler_stops_the_run_with_a_message_and_a_rerun_grades_the_rest(tmp_path: Path) -> None:
    course, pack = _class(tmp_path, ["solution", "learner"])
    with _cluster(1) as lonely:
        lost, killed = _grade_and_meanwhile(course, pack, lonely.address, lonely.kill_scheduler)
    assert killed and lost.returncode == 1
    assert "lost the Dask scheduler" in lost.stderr and "run the same command" in lost.stderr
    recorded = re.findall(r"^\[\d/2\] \S+  (\S+)  ", lost.stdout, re.MULTILINE)
    rerun = _grade(course, pack, "--sandbox", "on", "--cluster", "pool")
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert recorded and f"autograding {2 - len(recorded)} submissions" in rerun.stdout
    with Gradebook(rerun.db_url) as gradebook:
        assert len(gradebook.find_assignment(ASSIGNMENT).submissions) == 2
