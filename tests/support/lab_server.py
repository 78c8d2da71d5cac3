"""`python3 course.py lab` as a learner starts it, on a free loopback port, with Jupyter's folders of its own.

`running_lab` starts the README's first command with `--no-browser`, a free port on 127.0.0.1 and a token,
and fresh Jupyter config, data and runtime folders and IPython folder under a temporary folder, so no
setting, workspace, extension or kernel of the machine's user leaks in, and nothing of the run leaks out.
It waits, bounded, until the server answers, and always stops it (its kernels with it).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

START_TIMEOUT = 90.0
"""Seconds JupyterLab may take to answer its REST API (a busy 2-core machine, a cold start)."""

STOP_TIMEOUT = 30.0
"""Seconds JupyterLab may take to shut its kernels down and exit after SIGTERM, before it is killed."""

LEAKY_VARIABLES = (
    "JUPYTERLAB_SETTINGS_DIR",
    "JUPYTERLAB_WORKSPACES_DIR",
    "JUPYTER_PREFER_ENV_PATH",
    "JUPYTER_PATH",  # a user's extra data folders (kernels, extensions)
    "JUPYTER_CONFIG_PATH",  # a user's extra config folders (course.py lab puts learner_config/ first anyway)
    "COURSE_INTERACTIVE",  # approval.is_interactive: a leaked 0 would hide the Approve/Deny dialog
    "NBGRADER_EXECUTION",
    "JPY_SESSION_NAME",
)
"""Variables of the calling environment that would change what the learner's JupyterLab shows."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Lab:
    """A running `course.py lab`: where it listens, its token, and its log."""

    port: int
    token: str
    log: Path

    def url(self, path: str) -> str:
        """The address of `path` (from the server's root, e.g. "lab/tree/01_envelope.ipynb"), with the token."""
        separator = "&" if "?" in path else "?"
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}{separator}token={self.token}"

    def get_json(self, path: str) -> Any:
        """GET a REST path of the server and decode its JSON answer."""
        with urllib.request.urlopen(self.url(path), timeout=10) as answer:
            return json.load(answer)

    def log_tail(self) -> str:
        """The end of the server's log, for failure messages."""
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else "(no log)"


USER_SETTINGS = {
    # nothing saves the repository's notebooks behind the test's back (outputs, checkpoints)
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    # every cell in the page, not only those scrolled into view, so a test can read any cell's output
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    # no "get notified about official Jupyter news?" toast over the notebook (it is JupyterLab's, not ours)
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}
"""JupyterLab settings of the tests' runs, in their fresh config folder (a learner's defaults differ only here)."""


def lab_environment(home: Path) -> dict[str, str]:
    """The calling environment with fresh Jupyter and IPython folders under `home`, and nothing that leaks."""
    env = {key: value for key, value in os.environ.items() if key not in LEAKY_VARIABLES}
    for variable, folder in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
    ]:
        (home / folder).mkdir(parents=True, exist_ok=True)
        env[variable] = str(home / folder)
    for plugin, settings in USER_SETTINGS.items():
        file = home / "config" / "lab" / "user-settings" / f"{plugin}.jupyterlab-settings"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(settings))
    return env


@contextlib.contextmanager
def running_lab(home: Path, *extra: str, token: str = "course-test") -> Iterator[Lab]:
    """Start `python3 course.py lab` (extra arguments appended) and yield it once it answers; stop it after."""
    lab = Lab(free_port(), token, home / "lab.log")
    command = [sys.executable, str(ROOT / "course.py"), "lab", "--no-browser", f"--ServerApp.port={lab.port}",
               "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
               f"--FileCheckpoints.checkpoint_dir={home / 'checkpoints'}",  # not .ipynb_checkpoints/ in the repo
               *extra]  # fmt: skip
    with lab.log.open("wb") as log:
        server = subprocess.Popen(
            command, cwd=ROOT, env=lab_environment(home), stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"course.py lab exited with {server.returncode}:\n{lab.log_tail()}")
            try:
                lab.get_json("api/status")
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"course.py lab did not answer in {START_TIMEOUT:.0f} s ({error}):\n{lab.log_tail()}"
                    ) from None
                time.sleep(0.25)
        yield lab
    finally:
        server.terminate()
        try:
            server.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=STOP_TIMEOUT)
