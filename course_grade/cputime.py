"""Time limits counted in CPU time, so that a loaded machine never costs a learner points.

A cell or a submission that computes for longer than its limit is stopped; one that merely waited (the
machine was busy with other work, so it got little of a core) is not, until a wall-clock cap of
`WALL_FACTOR` times the limit, which also ends a cell that sleeps or blocks for ever. The CPU time is that
of a process tree (the kernel and what it started, or a grading worker and its kernels), read with psutil:
the user and system time of every live process of the tree, and of the children each has reaped. Where the
platform does not let psutil read it (a process of another user, say), the reading is None and the limit
counts wall-clock time, as before.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import psutil  # type: ignore[import-untyped]

WALL_FACTOR = 3.0
"""The wall-clock cap of a limit counted in CPU time, as a multiple of the limit."""

Reading = Callable[[], float | None]
"""The CPU seconds used so far by what a limit watches, or None where they cannot be read."""


def tree_cpu_seconds(pid: int) -> float | None:
    """CPU seconds used by a process, every live descendant, and the children they reaped; None if unreadable."""
    try:
        root = psutil.Process(pid)
        family = [root, *root.children(recursive=True)]
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None
    total = 0.0
    for process in family:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.ZombieProcess):  # gone: counted by its parent
            try:
                times = process.cpu_times()
            except psutil.AccessDenied:
                return None
            total += times.user + times.system
            total += getattr(times, "children_user", 0.0) + getattr(times, "children_system", 0.0)
    return total


class CpuLimit:
    """A limit of `seconds` of CPU time, from now on, with a wall-clock cap of `WALL_FACTOR` times it."""

    def __init__(
        self,
        seconds: float,
        reading: Reading,
        wall_factor: float = WALL_FACTOR,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self.cap = seconds * wall_factor
        """The wall-clock seconds after which the limit is reached, whatever the CPU time."""
        self._reading, self._clock = reading, clock
        self._start = clock()
        self._base = reading()
        if self._base is None:
            self.cap = seconds
        self.reached = ""
        """Once the limit is reached: "cpu" (the CPU time ran out) or "wall" (the cap, or no CPU reading)."""

    def used(self) -> float | None:
        """CPU seconds used since the limit was set, or None where they cannot be read."""
        now = self._reading() if self._base is not None else None
        return None if now is None or self._base is None else max(0.0, now - self._base)

    def wait(self) -> float:
        """Seconds to wait before looking again: 0 once the limit is reached (then `reached` says which)."""
        elapsed = self._clock() - self._start
        used = self.used()
        if used is None:  # no CPU time on this platform: the limit counts wall-clock time
            left = self.seconds - elapsed
            if left <= 0:
                self.reached = "wall"
            return max(0.0, left)
        if used >= self.seconds:
            self.reached = "cpu"
            return 0.0
        if elapsed >= self.cap:
            self.reached = "wall"
            return 0.0
        return max(
            0.05, min(self.seconds - used, self.cap - elapsed)
        )  # several busy threads overrun by < this
