"""Time limits counted in CPU time, read from a process tree or injected, with a wall-clock cap."""

from __future__ import annotations

import os
import subprocess
import sys

from course_grade.cputime import CpuLimit, tree_cpu_seconds


class Fake:
    """A CPU-time reading and a clock the test moves by hand."""

    def __init__(self, cpu: float | None = 0.0) -> None:
        self.cpu, self.now = cpu, 0.0

    def reading(self) -> float | None:
        return self.cpu

    def clock(self) -> float:
        return self.now


def _limit(fake: Fake, seconds: float = 10) -> CpuLimit:
    return CpuLimit(seconds, fake.reading, wall_factor=3, clock=fake.clock)


def test_a_limit_is_reached_when_the_cpu_time_runs_out() -> None:
    fake = Fake(cpu=5.0)
    limit = _limit(fake)
    fake.now, fake.cpu = 10.0, 15.0
    assert limit.wait() == 0 and limit.reached == "cpu"


def test_a_limit_starved_of_cpu_time_waits_for_what_is_left() -> None:
    fake = Fake()
    limit = _limit(fake)
    fake.now, fake.cpu = 12.0, 4.0
    assert limit.wait() == 6.0 and not limit.reached


def test_a_limit_is_reached_at_the_wall_clock_cap_whatever_the_cpu_time() -> None:
    fake = Fake()
    limit = _limit(fake)
    fake.now = 30.0
    assert limit.wait() == 0 and limit.reached == "wall"


def test_without_a_cpu_reading_the_limit_counts_wall_clock_time() -> None:
    fake = Fake(cpu=None)
    limit = _limit(fake)
    fake.now = 10.0
    assert limit.wait() == 0 and limit.reached == "wall" and limit.cap == 10


def test_the_tree_counts_the_cpu_time_of_children() -> None:
    before = tree_cpu_seconds(os.getpid())
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True)
    after = tree_cpu_seconds(os.getpid())
    assert before is not None and after is not None and after - before > 0.05
