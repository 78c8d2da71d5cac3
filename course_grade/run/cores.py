"""One core per grading worker: a worker process, and everything it starts, runs on a core no other holds.

A notebook's kernel is a process of several threads (ipykernel's own, and in this course the stand-in
server's, one per request) that hand Python's lock to one another many times a second. Spread over several
cores, every hand-over wakes a thread on another core: 07's kernel used about 40% more CPU time unbound than
bound to one core, and a class graded by 2 workers on 2 cores took 12% longer (see the README's
measurements). So before a worker starts anything it claims a core that no other worker on this machine
holds, and binds itself to it; its kernels, sandboxes and trusted checks inherit the binding. A submission
that starts many busy processes then slows only its own worker, not its neighbours.

A claim is a lock on a file named for the core, in a folder of this user's; the system lets the lock go
when its holder exits, however it exits. When every core is held (more workers than cores, or another
`course-grade` grading on this machine) or the platform cannot bind a process (macOS, Windows), the worker
runs unbound, as it would without this module.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

CAN_BIND = hasattr(os, "sched_setaffinity") and fcntl is not None
"""Whether this platform lets a process bind itself to a core and lock a file (Linux does)."""


@dataclass
class Claim:
    """A core held by one worker until `release` (or until the process holding it exits)."""

    core: int
    descriptor: int

    def release(self) -> None:
        """Let another worker have the core (safe to call twice)."""
        if self.descriptor >= 0:
            os.close(self.descriptor)  # closing the file lets its lock go
            self.descriptor = -1


def claims_folder() -> Path:
    """Where this user's claims are kept: one lock file per core."""
    return Path(tempfile.gettempdir()) / f"course-grade-cores-{os.getuid()}"


def claim(folder: Path | None = None) -> Claim | None:
    """A core this process may run on that no other worker holds, or None when none is free (or none can be
    bound on this platform)."""
    if not CAN_BIND:
        return None
    folder = claims_folder() if folder is None else folder
    if not _private_folder(folder):
        return None
    for core in sorted(os.sched_getaffinity(0)):
        try:
            descriptor = os.open(folder / str(core), os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError:
            continue
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another worker holds it
            os.close(descriptor)
            continue
        return Claim(core, descriptor)
    return None


def bind(core: int | None) -> None:
    """Bind this process to the core (None: leave it unbound); call it before starting any thread or
    process, which inherit the binding."""
    if core is None or not CAN_BIND:
        return
    with contextlib.suppress(OSError):  # the core was taken away from this process since: stay unbound
        os.sched_setaffinity(0, {core})


def _private_folder(folder: Path) -> bool:
    """Create the folder for this user alone, or check that it is a real folder of this user's."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700, parents=True)
    try:
        status = folder.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid() and not status.st_mode & 0o022
