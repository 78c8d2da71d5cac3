"""The learners' edition of the whole course, as a learner gets it: moved elsewhere, opened with its two commands.

`python3 edition.py check` creates the edition's own environment (installing its library and what the
notebooks need from the package index, as a learner's machine would) and runs every notebook as Run All
does; `python3 edition.py lab` serves JupyterLab on it. This is the slowest test of the editions (one
install, about a minute), so it is one test.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from grading.build_notebooks import assignments
from tests.grading_helpers import COMMAND

LEFT_OUT = (
    "PYTHONPATH",
    "PYTHONHOME",
    "VIRTUAL_ENV",
    "JUPYTER_PATH",
    "JUPYTER_CONFIG_DIR",
    "JUPYTER_DATA_DIR",
)
"""What the course's own environment sets that a learner's shell would not."""


def _learners_shell(home: Path) -> dict[str, str]:
    """The environment of a learner's shell: no trace of the course's environment, Jupyter's state in `home`."""
    kept = {name: value for name, value in os.environ.items() if name not in LEFT_OUT}
    bin_folder = str(Path(sys.executable).parent)
    path = os.pathsep.join(part for part in kept.get("PATH", "").split(os.pathsep) if part != bin_folder)
    return {**kept, "PATH": path, "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "HOME": str(home)}


def _free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answers(url: str, deadline: float) -> tuple[int, bytes]:
    """The HTTP status and body `url` answers with once the server is up ((0, b"") if it is not by `deadline`)."""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return int(response.status), response.read()
        except urllib.error.HTTPError as error:
            return error.code, b""
        except OSError:
            time.sleep(0.5)
    return 0, b""


@pytest.mark.timeout(900)
def test_the_whole_courses_edition_opens_in_jupyterlab_and_runs_every_notebook_to_the_end(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [COMMAND, "bundle", str(tmp_path / "out")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    edition = tmp_path / "elsewhere"
    shutil.move(tmp_path / "out", edition)
    assert json.loads((edition / "edition.json").read_text(encoding="utf-8"))["assignments"] == assignments()
    shell = _learners_shell(tmp_path)
    python = shutil.which("python3", path=shell["PATH"]) or sys.executable

    check = subprocess.run(
        [python, "edition.py", "check"], cwd=edition, env=shell, capture_output=True, text=True, timeout=800
    )
    reached = [line for line in check.stdout.splitlines() if line.endswith(": Run All reached the end")]
    assert check.returncode == 0 and len(reached) == len(assignments()), check.stdout + check.stderr[-3000:]

    port, token = _free_port(), "learner"
    options = [f"--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}"]
    options += ["--allow-root"] if os.geteuid() == 0 else []  # what a learner working as root must add too
    lab = subprocess.Popen(
        [python, "edition.py", "lab", "--no-browser", *options], cwd=edition, env=shell, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        status, _ = _answers(f"http://127.0.0.1:{port}/lab?token={token}", deadline)
        _, listing = _answers(f"http://127.0.0.1:{port}/api/contents?token={token}", deadline)
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        try:
            lab.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(lab.pid, signal.SIGKILL)
            lab.wait(timeout=30)
    names = sorted(item["name"] for item in json.loads(listing or b'{"content": []}')["content"])
    assert status == 200, (lab.stderr.read() if lab.stderr else "")[-3000:]
    assert names == [f"{name}.ipynb" for name in assignments()]
