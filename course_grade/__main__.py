"""The `course-grade` command's entry point (and `python -m course_grade`); it imports the grader only when run.

multiprocessing starts a child of `course-grade` (a worker of the local Dask cluster, a watchdog's child)
by importing the parent's main script again, as `__mp_main__`: whatever that script imports at its top,
every such child imports too, before it does any work. The script imports this module, which imports
nothing at its top, so a child imports only what it uses (a Dask worker does not import nbgrader).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run `course-grade` with these arguments (default: the command line's) and return the exit status."""
    from course_grade.cli import main as run

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
