"""The `course-grade` command's entry point (and `python -m course_grade`); it imports the grader only when run.

multiprocessing starts a child of `course-grade` (a worker of the local Dask cluster, a watchdog's child)
by importing the parent's main script again, as `__mp_main__`: whatever that script imports at its top,
every such child imports too, before it does any work. The script imports this module, which imports
nothing at its top, so a child imports only what it uses (a Dask worker does not import nbgrader).
"""

from __future__ import annotations

import sys

GRADER_MODULES: tuple[str, ...] = ("copydetect", "dask", "distributed", "hypothesis", "matplotlib")
GRADER_MODULES += ("nh3", "psutil", "psycopg", "tqdm")
"""The modules of pyproject.toml's `grade` extra, which a learner's install (`course.py lab`) leaves out."""

MISSING_EXTRA = """course-grade needs the grader's dependencies, and these are not installed here: {missing}.
Install them into this environment with
    pip install -e '.[grade]'          (in the course's folder; `python3 course.py build`, `hub` and `test` do it)
or  pip install 'tool-call-boundary[grade]'"""


def missing_grader_modules() -> list[str]:
    """The modules of the `grade` extra this environment cannot import (found without importing them)."""
    from importlib.util import find_spec

    return [name for name in GRADER_MODULES if find_spec(name) is None]


def main(argv: list[str] | None = None) -> int:
    """Run `course-grade` with these arguments (default: the command line's) and return the exit status."""
    missing = missing_grader_modules()
    if missing:
        print(MISSING_EXTRA.format(missing=", ".join(missing)), file=sys.stderr)
        return 1
    from course_grade.cli import main as run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
