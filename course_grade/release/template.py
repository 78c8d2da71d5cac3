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
python3 edition.py check   # runs every notebook as JupyterLab's Run All would, and says where each stops
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

CHECK = """
import sys
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

stopped = 0
for path in sys.argv[1:]:
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": "notebooks"}})
    try:
        client.execute()  # a failing cell stops it, unless tagged raises-exception, as in JupyterLab
    except CellExecutionError as error:
        stopped += 1
        print(f"{path}: Run All stopped: {str(error).strip().splitlines()[-1]}", flush=True)
    else:
        print(f"{path}: Run All reached the end", flush=True)
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
    subprocess.run(pip, cwd=ROOT, check=True)
    stamp.touch()


def main() -> int:
    """Run `lab` or `check`."""
    if sys.argv[1:2] not in (["lab"], ["check"]):
        sys.exit("usage: python3 edition.py lab | check")
    ensure_environment()
    if sys.argv[1] == "lab":
        command = [str(BIN / "jupyter"), "lab", f"--ServerApp.root_dir={ROOT / 'notebooks'}", *sys.argv[2:]]
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
