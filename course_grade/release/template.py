"""The files a learners' edition carries besides notebooks and library: README, `edition.py`, pyproject.toml."""

from __future__ import annotations

from collections.abc import Sequence


def readme(assignments: Sequence[str], published: Sequence[str], notes: Sequence[str]) -> str:
    """The edition's README: its two commands, what it holds, and whose answer keys it publishes."""
    keys = ", ".join(published) if published else "none"
    built_on = "".join(f"- {note}.\n" for note in notes)
    return f"""# The tool-call boundary: learners' edition

This folder is what your instructor hands out: the notebooks to work through, the course library they use,
and its published fixtures. You need Python 3.11 or newer, nothing else:

```bash
python3 edition.py lab     # opens the notebooks in JupyterLab
python3 edition.py check   # runs every notebook as Run All would: which parts are written, which tests pass
```

Each command creates a virtual environment in `.venv` and installs the library into it the first time
(a few minutes), then does its job. Run All works before you have written anything: an unwritten exercise
stops with a one-line `NotImplementedError` naming it, and the cells after it still run.

## What this edition holds

- Assignments: {", ".join(assignments)}.
- Answer keys (the library's reference implementations of graded exercises) published: {keys}.
  The library holds no key of any other assignment, no solution, no hidden test and no catalogue of
  wrong answers; your work is graded by your instructor with tests you do not see here.
{built_on}
`edition.json` records the same: `{{"assignments": [...], "published_keys": [...]}}`.
"""


SCRIPT = '''#!/usr/bin/env python3
"""Open this learners' edition in JupyterLab (`python3 edition.py lab`) or check it (`python3 edition.py check`).

Each command creates .venv and installs the edition's library into it first, when needed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")

CHECK = r"""
import os
import re
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

STUB = "is not written yet"  # the message of an exercise's stub, until it is written


class IpcKernelManager(AsyncKernelManager):
    # The kernel is reached through socket files of this user's, not TCP ports: nothing for the network to
    # reach, and no warning from the kernel about plain-text TCP.
    async def _async_pre_start_kernel(self, **kw):
        self._folder = tempfile.mkdtemp(prefix="kernel-")
        name = uuid.uuid4().hex[:8]
        self.transport = "ipc"
        self.connection_file = os.path.join(self._folder, name + ".json")
        self.ip = os.path.join(self._folder, name)
        return await super()._async_pre_start_kernel(**kw)

    async def _async_cleanup_resources(self, restart=False):
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            shutil.rmtree(getattr(self, "_folder", ""), ignore_errors=True)


def runs(items, wanted):
    # The labels whose status is `wanted`, consecutive parts joined as A-C.
    found, run = [], []
    for label, is_part, status in items + [("", False, None)]:
        if is_part and status == wanted:
            run.append(label)
            continue
        if run:
            found.append(run[0] if len(run) == 1 else run[0] + "-" + run[-1])
            run = []
        if not is_part and status == wanted:
            found.append(label)
    return ", ".join(found)


def summary(notebook):
    # "A-C written, D-F not yet, quiz not yet; 12/19 visible tests pass": each part's solution cells (and the
    # checkpoint quiz's answer cell) still holding their stub or not, and the test cells that ran without an error.
    part, items, passed, tests = "", {}, 0, 0
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            heading = re.search(r"^#+ *(?:Part ([A-Z0-9]+)|Checkpoint (quiz))", cell.source, re.MULTILINE)
            part = (heading.group(1) or heading.group(2)) if heading else part
            continue
        marks = cell.metadata.get("nbgrader", {})
        if marks.get("solution"):
            label = part or marks.get("grade_id", "the exercise")
            # a quiz's answer cell is written once none of its answers is still None
            written = STUB not in cell.source and not re.search(r"^q[0-9]+ = None", cell.source, re.MULTILINE)
            before = items.get(label, (label, bool(part), True))
            items[label] = (label, bool(part) and label != "quiz", before[2] and written)
        elif marks.get("grade") and cell.cell_type == "code":
            tests += 1
            ran = cell.get("execution_count") is not None
            passed += ran and not any(output.get("output_type") == "error" for output in cell.get("outputs", []))
    written, unwritten = runs(list(items.values()), True), runs(list(items.values()), False)
    words = ([written + " written"] if written else []) + ([unwritten + " not yet"] if unwritten else [])
    return ", ".join(words) + f"; {passed}/{tests} visible tests pass"


stopped = 0
for path in sys.argv[1:]:
    notebook = nbformat.read(path, as_version=4)
    folder = {"metadata": {"path": str(Path(path).parent)}}
    manager = {} if os.name == "nt" else {"kernel_manager_class": IpcKernelManager}  # no ipc on Windows
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", resources=folder, **manager)
    stop = ""
    try:
        client.execute()  # a failing cell stops it, unless tagged raises-exception, as in JupyterLab
    except CellExecutionError as error:
        stopped += 1
        stop = f" (Run All stopped: {str(error).strip().splitlines()[-1]})"
    print(f"{Path(path).stem}: {summary(notebook)}{stop}", flush=True)
sys.exit(1 if stopped else 0)
"""


def ensure_environment() -> None:
    """Create .venv and install the edition into it, once."""
    if sys.version_info < (3, 11):  # noqa: UP036
        sys.exit(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}.")
    stamp = VENV / ".installed"
    if stamp.exists():
        return
    if not (BIN / "python").exists():
        print("creating the environment in .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("installing the course library into .venv (a few minutes the first time) ...", flush=True)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e", "."]
    quiet = {**os.environ, "PIP_ROOT_USER_ACTION": "ignore"}  # no warning about root: containers run as root
    subprocess.run(pip, cwd=ROOT, check=True, env=quiet)
    stamp.touch()


def main() -> int:
    """Run `lab` or `check`."""
    if sys.argv[1:2] not in (["lab"], ["check"]):
        sys.exit("usage: python3 edition.py lab | check")
    ensure_environment()
    if sys.argv[1] == "lab":
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in sys.argv[2:]
        root_dir = f"--ServerApp.root_dir={ROOT / 'notebooks'}"
        command = [str(BIN / "jupyter"), "lab", root_dir, *(["--allow-root"] if as_root else []), *sys.argv[2:]]
        return subprocess.run(command, cwd=ROOT).returncode
    notebooks = sorted(str(path) for path in (ROOT / "notebooks").glob("*.ipynb"))
    return subprocess.run([str(BIN / "python"), "-c", CHECK, *notebooks], cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
'''
"""`edition.py`: the edition's two commands."""


def pyproject(requirements: Sequence[str]) -> str:
    """The edition's pyproject.toml: the library alone, with what the notebooks need to run."""
    listed = "".join(f'    "{spec}",\n' for spec in requirements)
    return f"""[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "tool-call-boundary-edition"
version = "0.1.0"
description = "The tool-call boundary: learners' edition"
requires-python = ">=3.11"
dependencies = [
{listed}]

[tool.setuptools.packages.find]
include = ["course_lib*"]

[tool.setuptools.package-data]
course_lib = ["fixtures/*.json", "py.typed"]
"""
