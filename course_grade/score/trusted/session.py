"""The learner's process seen from the trusted side: start it, load the notebook's code, call it, stop it.

The process starts from a clean environment (no NBGRADER_EXECUTION, nothing of the grader's own), in a
folder of its own, behind an optional wrapper (the sandbox) that turns the command into the command to run.
It is its own process group, and stopping it kills the group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from course_grade.cputime import WALL_FACTOR
from course_grade.score.trusted.pipe.codec import CodecError, decode
from course_grade.score.trusted.pipe.relay import answer
from course_grade.score.trusted.pipe.rpc import Endpoint, PeerFailure, Remote

Wrap = Callable[[list[str]], list[str]]
"""Turns the learner's command line into the one to run (the sandbox's `wrap`); the identity by default."""

LOAD_SECONDS = 60.0
"""How long the learner's process may take to start and import what it needs."""

MODULE = "course_grade.score.trusted.pipe.learner"
"""The learner half of the trusted checks."""

CALL_SECONDS = 30.0
"""How long the trusted side waits for any one message of the learner's process."""


def identity(argv: list[str]) -> list[str]:
    """The command as it is: no sandbox."""
    return argv


def clean_environment(home: Path) -> dict[str, str]:
    """The learner's environment: a path, a locale, a home, and nothing the grader knows."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "TMPDIR": str(home),
    }


@dataclass
class Loaded:
    """What the learner's namespace holds after its code ran."""

    names: dict[str, object] = field(default_factory=dict)
    """graded name -> a `Remote` callable or the value (as data)."""
    errors: list[str] = field(default_factory=list)
    """The cells that raised, as "cell N: Error: message"."""


class LearnerProcess:
    """One learner process; use it as a context manager."""

    def __init__(
        self,
        folder: Path,
        wrap: Wrap = identity,
        call_seconds: float = CALL_SECONDS,
        python: Sequence[str] = (sys.executable, "-I"),
        path: Sequence[str] = (),
    ) -> None:
        self.folder = folder
        self.wrap = wrap
        self.call_seconds = call_seconds
        self.python = list(python)
        self.path = list(path)
        """The process's whole module search path when it is graded against a learners' library (it then
        starts with `-S`, so no `.pth` file, and no editable install of the course, adds to it); empty: the
        environment's own."""
        self.process: subprocess.Popen[bytes] | None = None
        self.endpoint: Endpoint | None = None

    def __enter__(self) -> LearnerProcess:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self, names: list[str], references: list[str], relay: Sequence[int] = ()) -> Loaded:
        """Start the process (no cells run yet); a failure to start is a PeerFailure."""
        self.stop()
        self.folder.mkdir(parents=True, exist_ok=True)
        argv = self.wrap(self.command())
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=self.folder, env=clean_environment(self.folder), start_new_session=True, close_fds=True,
        )  # fmt: skip
        assert self.process.stdin is not None and self.process.stdout is not None
        self.endpoint = Endpoint(
            self.process.stdout.fileno(), self.process.stdin.fileno(), strict=True, timeout=LOAD_SECONDS
        )
        self.relayed = list(relay)
        """The trusted side's ports the learner may reach through the relay (`relay_more` adds to it)."""
        self.endpoint.handlers["http"] = lambda message: answer(message, self.relayed, self.call_seconds)
        self.endpoint.start()
        reply = self.endpoint.request(
            {"op": "start", "names": names, "references": references, "relay": list(relay)}
        )
        self.endpoint.timeout = self.call_seconds
        return self._loaded(reply)

    def command(self) -> list[str]:
        """The command line of the learner's process, before the wrapper."""
        if not self.path:
            return [*self.python, "-m", MODULE]
        start = f"import runpy, sys; sys.path[:0] = {self.path!r}; runpy.run_module({MODULE!r}, run_name='__main__')"
        return [*self.python, "-S", "-c", start]

    def relay_more(self, port: int) -> None:
        """Relay one more stand-in port to the learner's process (started by a test cell, after it)."""
        if self.endpoint is None or port in self.relayed:
            return
        self.relayed.append(port)
        self.ask("relay", ports=[port])

    def load(self, cells: list[str], cell_seconds: float) -> Loaded:
        """Run cells in the learner's namespace, each interrupted after `cell_seconds` of CPU time (or
        `WALL_FACTOR` times that in wall-clock time: a loaded machine costs no points); the names after them."""
        if self.endpoint is None:
            raise PeerFailure("the learner's process is not running")
        wall = cell_seconds * WALL_FACTOR
        self.endpoint.timeout = wall * len(cells) + 10  # a cell that ignores the interrupt hangs
        try:
            return self._loaded(
                self.endpoint.request({"op": "load", "cells": cells, "seconds": cell_seconds, "wall": wall})
            )
        finally:
            self.endpoint.timeout = self.call_seconds

    def _loaded(self, reply: dict[str, Any]) -> Loaded:
        """Read the load reply as hostile data."""
        assert self.endpoint is not None
        loaded = Loaded()
        described = reply.get("names")
        if type(described) is not dict:
            raise self._fail("the learner's process answered the load without names")
        for name, entry in described.items():
            if type(name) is not str or not name.isidentifier() or type(entry) is not dict:
                continue
            if entry.get("kind") == "callable" and type(entry.get("id")) is int:
                loaded.names[name] = Remote(self.endpoint, entry["id"], name)
            elif entry.get("kind") == "value":
                try:
                    loaded.names[name] = decode(entry.get("value"), self.endpoint, strict=True)[0]
                except CodecError:
                    continue
        for error in reply.get("errors") or []:
            if type(error) is list and len(error) == 3:
                loaded.errors.append(f"cell {str(error[0])[:6]}: {str(error[1])[:60]}: {str(error[2])[:200]}")
        return loaded

    def _fail(self, reason: str) -> PeerFailure:
        if self.endpoint is not None:
            self.endpoint.broken = reason
        return PeerFailure(reason)

    def ask(self, op: str, **fields: Any) -> Any:
        """One question to the learner's process (own_work, traced); its answer as plain data."""
        if self.endpoint is None:
            raise PeerFailure("the learner's process is not running")
        reply = self.endpoint.request({"op": op, **fields})
        if reply.get("op") != "return":
            raise self._fail(f"the learner's process did not answer {op}")
        return reply.get("value")

    @property
    def alive(self) -> bool:
        """True while the process runs and its pipe is usable."""
        return (
            self.process is not None
            and self.process.poll() is None
            and self.endpoint is not None
            and self.endpoint.broken is None
        )

    def why_not(self) -> str:
        """Why the process is not usable, for a verdict."""
        if self.process is not None and self.process.poll() is not None:
            code = self.process.returncode
            how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with status {code}"
            return f"the learner's process {how}"
        if self.endpoint is not None and self.endpoint.broken:
            return f"the learner's process failed: {self.endpoint.broken}"
        return "the learner's process is not running"

    def stop(self) -> None:
        """Kill the process group and reap the process."""
        process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
