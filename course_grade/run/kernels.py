"""The kernel managers grading and the tests use: ipc sockets, no nbgrader marker, the sandbox if asked.

`IpcKernelManager` talks to its kernel over ZMQ's `ipc` transport, through socket files in a folder of its
own: there is no TCP port to reach, and none to race for. (A TCP kernel's ports are chosen free, closed,
then bound again by the kernel; a kernel started at the same moment can take one in between, and the
loser hangs in its exit handler until its client's minute-long start-up timeout.)

nbgrader sets `NBGRADER_EXECUTION=autograde` in the grader's environment while it executes a notebook, so
that the kernel inherits it; a submission can test it to behave one way for its learner and another for
the grader. `GradingKernelManager` gives the kernel only an allow-list of the grader's environment: not
that marker, and no API key or token a submission could print into its feedback. With `sandboxed`, the kernel
runs inside `course_grade.run.sandbox` (its own PID and network namespaces, its notebook's folder the only one
it can write), its socket folder is the job's own `runtime`, and no connection file is anywhere another
kernel can read. Interrupts and kills reach it as they reach any kernel: jupyter_client signals its
process group.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, List, Unicode

from course_grade.run import sandbox

KEPT = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR", "VIRTUAL_ENV",
    "PYTHONPATH", "PYTHONIOENCODING", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "IPYTHONDIR", "MPLBACKEND",
    "MPLCONFIGDIR", "SSL_CERT_FILE", "SSL_CERT_DIR", "JUPYTER_PATH", "JUPYTER_CONFIG_DIR",
    "JUPYTER_CONFIG_PATH", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_PLATFORM_DIRS",
    "JPY_PARENT_PID", "no_proxy", "NO_PROXY", "PYTHONUTF8", "PYTHONWARNINGS", "PYTHONNOUSERSITE",
    "LD_LIBRARY_PATH", "CONDA_PREFIX",
})  # fmt: skip
"""Environment variables a grading kernel inherits; any other is dropped (an API key, a token, a password
printed by a submission would reach its learner in the feedback), and so is NBGRADER_EXECUTION."""
KEPT_PREFIXES = ("LC_", "XDG_", "OPENBLAS_", "OMP_", "MKL_", "COURSE_")
"""Locale, user folders, thread and numeric-library settings (some processors need OPENBLAS_CORETYPE), and
the course's own."""


def kernel_environment(environment: dict[str, str]) -> dict[str, str]:
    """The part of the grader's environment a learner's kernel may see."""
    return {
        name: value for name, value in environment.items() if name in KEPT or name.startswith(KEPT_PREFIXES)
    }


class KernelCommandError(RuntimeError):
    """A kernel command that cannot be graded against a learners' library (it does not start Python)."""


def without_site(argv: list[str]) -> list[str]:
    """A Python kernel's command with `-S` added: no `.pth` file runs, so no editable install of the course
    puts the instructor's library on the path."""
    if not argv or not Path(argv[0]).name.startswith("python"):
        raise KernelCommandError(
            f"cannot grade against the learners' library with the kernel command {argv[:3]}: it must start "
            "Python (grade with --library instructor)"
        )
    return [argv[0], "-S", *argv[1:]]


class IpcKernelManager(AsyncKernelManager):
    """A kernel reached through ipc socket files in a private folder: `runtime`, or a new temporary one."""

    runtime = Unicode(
        "", help="Folder of the connection file and ipc sockets: short (a socket path has ~100 bytes)."
    ).tag(config=True)
    _made: str = ""

    async def _async_pre_start_kernel(self, **kw: Any) -> Any:
        """Point the connection at ipc sockets in the folder before the connection file is written."""
        if self.runtime:
            folder = Path(self.runtime)
            folder.mkdir(parents=True, exist_ok=True)
        else:
            folder = Path(self._made or tempfile.mkdtemp(prefix="kernel-"))  # mode 0700: this user only
            self._made = str(folder)
        name = uuid.uuid4().hex[:8]
        self.transport = "ipc"
        self.connection_file = str(folder / f"{name}.json")
        self.ip = str(folder / name)
        return await super()._async_pre_start_kernel(**kw)

    async def _async_shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
        """Kill the kernel rather than ask it to exit: once its client has every cell's reply and idle
        status, nothing it could still do reaches a notebook, and asking costs its interpreter's teardown
        (about 0.8 s of CPU after `import anthropic`, 0.1 s even when empty) for every graded notebook."""
        await super()._async_shutdown_kernel(now=True, restart=restart)

    shutdown_kernel = _async_shutdown_kernel  # jupyter_client binds the public name to its own method

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        """Remove the sockets, and the folder if this manager made it."""
        await super()._async_cleanup_resources(restart=restart)
        if self._made and not restart:
            shutil.rmtree(self._made, ignore_errors=True)
            self._made = ""


class GradingKernelManager(IpcKernelManager):
    """A kernel manager that starts the kernel without nbgrader's marker, optionally in the sandbox."""

    sandboxed = Bool(False, help="Run the kernel in course_grade.run.sandbox.").tag(config=True)
    hidden = List(Unicode(), help="More folders the sandboxed kernel must not see.").tag(config=True)
    library = List(
        Unicode(),
        help="The kernel's whole module search path when it is graded against a learners' library "
        "(`course_grade.release.library`): the kernel starts with `-S` and sees only these folders.",
    ).tag(config=True)

    async def _async_pre_start_kernel(self, **kw: Any) -> Any:
        """A sandboxed kernel's sockets are in the job's own runtime folder, which the sandbox lets it see."""
        if self.sandboxed and not self.runtime:
            raise sandbox.SandboxUnavailable("a sandboxed kernel needs a runtime folder")
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        """Launch the kernel with only the kept variables, wrapped in the sandbox if asked."""
        kw["env"] = kernel_environment(dict(kw.get("env") or {}))
        if self.library:
            kernel_cmd = without_site(kernel_cmd)
            kw["env"]["PYTHONPATH"] = os.pathsep.join(self.library)
        if self.sandboxed:
            cwd = Path(kw.get("cwd") or ".").resolve()
            kernel_cmd = sandbox.wrap(
                kernel_cmd, writable=[cwd, Path(self.runtime)], hidden=[Path(p) for p in self.hidden], cwd=cwd,
                readable=[Path(self.library[0])] if self.library else [], course_lib=not self.library,
            )  # fmt: skip
        await super()._async_launch_kernel(kernel_cmd, **kw)
