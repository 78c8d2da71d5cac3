"""The learners' edition of the whole course, as a learner gets it: moved elsewhere, opened with its two commands.

`python3 edition.py check` creates the edition's own environment (installing its library and what the
notebooks need from the package index, as a learner's machine would) and runs every notebook as Run All
does; `python3 edition.py lab` serves JupyterLab on it. This is the slowest test of the editions (one
install, about a minute), so it is one test.
"""

from __future__ import annotations

import copy
import json
import os
import re
import runpy
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest

from course_grade.cells import cell_grade_id, is_test
from course_grade.release import template
from grading.build_notebooks import GRADING, LEARNERS, assignments
from tests.support.grading_helpers import COMMAND

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
    # Untouched, each notebook has nothing written, passes no visible test, and Run All reaches its end.
    untouched = [f"{name}: " for name in assignments()]
    said = [
        line
        for line in check.stdout.splitlines()
        if re.fullmatch(r"\w+: [^;()]* not yet; 0/\d+ visible tests pass", line)
    ]
    assert check.returncode == 0 and [line.split(" ")[0] + " " for line in said] == untouched, check.stdout
    assert "warn" not in check.stderr.lower(), check.stderr[-3000:]

    port, token = _free_port(), "learner"
    options = [f"--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}"]
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


# The two commands, cheaply: edition.py as the bundle writes it, on a fake environment or one notebook.


def _edition_script(folder: Path) -> Path:
    """edition.py as `course-grade bundle` writes it, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "edition.py").write_text(template.SCRIPT, encoding="utf-8")
    return folder / "edition.py"


def test_lab_passes_allow_root_when_run_as_root(tmp_path: Path) -> None:
    """JupyterLab refuses to run as root without --allow-root (containers run as root); course.py lab adds it."""
    script = _edition_script(tmp_path)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / ".installed").touch()  # the environment is there: no install
    jupyter = tmp_path / ".venv" / "bin" / "jupyter"
    jupyter.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path / "argv"}\n', encoding="utf-8")
    jupyter.chmod(0o755)
    done = subprocess.run(
        [sys.executable, str(script), "lab", "--no-browser"], capture_output=True, text=True
    )
    argv = (tmp_path / "argv").read_text(encoding="utf-8").split("\n")
    assert done.returncode == 0 and argv[0] == "lab" and "--no-browser" in argv, done.stderr
    assert ("--allow-root" in argv) == (os.geteuid() == 0)


def test_check_says_per_part_what_is_written_and_how_many_visible_tests_pass(tmp_path: Path) -> None:
    """An untouched notebook is not "Run All reached the end": none of its parts is written, no test passes."""
    name = "01_envelope"
    script = _edition_script(tmp_path)
    untouched = nbformat.read(LEARNERS / f"{name}.ipynb", as_version=4)
    solved = copy.deepcopy(untouched)
    instructor = nbformat.read(GRADING / "source" / name / f"{name}.ipynb", as_version=4)
    solution = next(cell.source for cell in instructor.cells if cell_grade_id(cell) == "parse_envelope")
    answers = next(cell.source for cell in instructor.cells if cell_grade_id(cell) == "quiz_01")
    for cell in solved.cells:
        if cell_grade_id(cell) == "parse_envelope":
            cell.source = solution
        if cell_grade_id(cell) == "quiz_01":
            cell.source = answers
    tests = [cell_grade_id(cell) for cell in untouched.cells if is_test(cell)]
    (tmp_path / "notebooks").mkdir()
    nbformat.write(untouched, tmp_path / "notebooks" / f"{name}.ipynb")
    nbformat.write(solved, tmp_path / "notebooks" / "A_solved.ipynb")
    check = runpy.run_path(str(script))["CHECK"]
    paths = [str(tmp_path / "notebooks" / f"{name}.ipynb"), str(tmp_path / "notebooks" / "A_solved.ipynb")]
    done = subprocess.run(
        [sys.executable, "-c", check, *paths], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    lines = done.stdout.splitlines()
    untouched_line = f"{name}: A-B, quiz not yet; 0/{len(tests)} visible tests pass"
    assert done.returncode == 0 and lines[0] == untouched_line, done
    passing = [test for test in tests if "parse_envelope" in test or test.startswith("quiz_")]
    assert lines[1] == f"A_solved: A, quiz written, B not yet; {len(passing)}/{len(tests)} visible tests pass"
    assert done.stderr.strip() == "", done.stderr  # no warning: the kernels talk over ipc, not plain TCP
