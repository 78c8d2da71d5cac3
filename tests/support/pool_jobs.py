"""Jobs for the pool's tests: importable by its worker processes, each doing one thing.

Like the grader's jobs, each names its assignment (the pool sends a job the settings of its assignment only).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass

from course_grade.run.workers import RUNS


def hold(seconds: float) -> None:
    """Stop this process for `seconds`, as a loaded machine starves it: another process resumes it."""
    subprocess.Popen(["sh", "-c", f"sleep {seconds}; kill -CONT {os.getpid()}"], start_new_session=True)
    os.kill(os.getpid(), signal.SIGSTOP)


@dataclass(frozen=True)
class Spin:
    """Computes for ever."""

    assignment: str = "01_envelope"

    def run(self, settings: object) -> str:
        while True:
            pass

    def failed(self, reason: str) -> str:
        return reason


@dataclass(frozen=True)
class Sleep:
    """Sleeps for ever, using no CPU time."""

    assignment: str = "01_envelope"

    def run(self, settings: object) -> str:
        time.sleep(3600)
        return "woke up"

    def failed(self, reason: str) -> str:
        return reason


@dataclass(frozen=True)
class Held:
    """Is held stopped for `seconds` (past its limit in wall-clock time), then finishes."""

    seconds: float
    assignment: str = "01_envelope"

    def run(self, settings: object) -> str:
        hold(self.seconds)
        return "finished"

    def failed(self, reason: str) -> str:
        return reason


@dataclass(frozen=True)
class Pid:
    """Waits `seconds` (so that a worker busy with it leaves the next job to another), then answers with the
    process id of the worker that ran it."""

    seconds: float = 0.0
    assignment: str = "01_envelope"

    def run(self, settings: object) -> int:
        time.sleep(self.seconds)
        return os.getpid()

    def failed(self, reason: str) -> str:
        return reason


@dataclass(frozen=True)
class Cores:
    """Waits `seconds` (so that every worker of the pool takes one such job), then answers with the cores its
    worker may run on and the cores a process it starts may run on."""

    seconds: float = 1.0
    assignment: str = "01_envelope"

    def run(self, settings: object) -> tuple[frozenset[int], frozenset[int]]:
        time.sleep(self.seconds)
        child = subprocess.run(
            ["python3", "-c", "import os; print(*sorted(os.sched_getaffinity(0)))"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        return frozenset(os.sched_getaffinity(0)), frozenset(int(core) for core in child.stdout.split())

    def failed(self, reason: str) -> str:
        return reason


RUNS.update({kind: kind.run for kind in (Spin, Sleep, Held, Pid, Cores)})  # the worker runs a job by its type
