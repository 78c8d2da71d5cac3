"""The kernel manager grading uses: the learner's kernel without nbgrader's marker, in the sandbox if asked.

nbgrader sets `NBGRADER_EXECUTION=autograde` in the grader's environment while it executes a notebook, so
that the kernel inherits it; a submission can test it to behave one way for its learner and another for
the grader. `GradingKernelManager` removes it from the kernel's environment. With `sandboxed`, the kernel
runs inside `course_grade.sandbox` (its own PID and network namespaces, its notebook's folder the only one
it can write) and talks to the grader over ZMQ's `ipc` transport, through socket files in `runtime`:
there is no TCP port for anyone to reach, and no connection file anywhere another kernel can read.
Interrupts and kills reach it as they reach any kernel: jupyter_client signals its process group.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, List, Unicode

from course_grade import sandbox

STRIPPED = ("NBGRADER_EXECUTION",)
"""Environment variables the kernel never sees."""


class GradingKernelManager(AsyncKernelManager):
    """A kernel manager that starts the kernel without nbgrader's marker, optionally in the sandbox."""

    sandboxed = Bool(False, help="Run the kernel in course_grade.sandbox.").tag(config=True)
    runtime = Unicode(
        "", help="Folder of the connection file and ipc sockets (sandboxed only): short, and the job's own."
    ).tag(config=True)
    hidden = List(Unicode(), help="More folders the sandboxed kernel must not see.").tag(config=True)

    async def _async_pre_start_kernel(self, **kw: Any) -> Any:
        """Point the connection at ipc sockets in `runtime` before nbgrader's launcher writes it."""
        if self.sandboxed:
            if not self.runtime:
                raise sandbox.SandboxUnavailable("a sandboxed kernel needs a runtime folder")
            folder = Path(self.runtime)
            folder.mkdir(parents=True, exist_ok=True)
            name = uuid.uuid4().hex[:8]
            self.transport = "ipc"
            self.connection_file = str(folder / f"{name}.json")
            self.ip = str(folder / name)
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        """Launch the kernel without the stripped variables, wrapped in the sandbox if asked."""
        env = dict(kw.get("env") or {})
        for name in STRIPPED:
            env.pop(name, None)
        kw["env"] = env
        if self.sandboxed:
            cwd = Path(kw.get("cwd") or ".").resolve()
            kernel_cmd = sandbox.wrap(
                kernel_cmd, writable=[cwd, Path(self.runtime)], hidden=[Path(p) for p in self.hidden], cwd=cwd
            )
        await super()._async_launch_kernel(kernel_cmd, **kw)
