"""Regenerate the course's notebooks: never edit stored outputs or the learners' versions by hand.

    python3 course.py build            # every notebook
    python3 course.py build 03_loop    # one notebook
    python3 course.py build --check    # execute twice, fail if outputs differ or learners' versions are stale

1. Write each instructor notebook's checkpoint quiz from `course_lib.quiz` and its key (`grading/quiz_cells.py`),
   then execute the notebook (grading/source/<name>/<name>.ipynb) on a fresh kernel, in its own folder, and
   store its outputs (the files nbval compares against).
2. Generate the learners' versions with `nbgrader generate_assignment` and copy them to notebooks/<name>.ipynb,
   giving back to every cell that runs no learner code the outputs the instructor's version stored (see
   `runs_learner_code`), so that a learners' notebook reads, worked examples and all, before it is run.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course_grade.pipeline import copy_course
from course_grade.run.kernels import IpcKernelManager

if __package__ in (None, ""):  # run as a script (course.py build): the repository root is not on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from grading import oracle_cells, quiz_cells  # noqa: E402

GRADING = Path(__file__).resolve().parent
ROOT = GRADING.parent
SOURCE = GRADING / "source"
LEARNERS = ROOT / "notebooks"
CELL_TIMEOUT_SECONDS = 120


def assignments() -> list[str]:
    """Every assignment in the course, in order."""
    return sorted(p.name for p in SOURCE.iterdir() if (p / f"{p.name}.ipynb").exists())


def execute(path: Path) -> nbformat.NotebookNode:
    """Execute a notebook on a fresh kernel in its own folder and return it with its outputs."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook, timeout=CELL_TIMEOUT_SECONDS, kernel_name="python3", record_timing=False, coalesce_streams=True,
        resources={"metadata": {"path": str(path.parent)}}, kernel_manager_class=IpcKernelManager,
    )  # fmt: skip
    client.execute()
    return notebook


def outputs_of(notebook: nbformat.NotebookNode) -> list[object]:
    """The outputs of every code cell, for comparing two runs."""
    return [cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"]


def nbgrader_environment() -> dict[str, str]:
    """This environment with its own bin folder first on PATH: nbgrader runs `alembic` from there."""
    return {
        **os.environ,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }


def nbgrader_command(course: Path, *args: str) -> list[str]:
    """`python -m nbgrader ARGS`, quiet, on a course directory and the sqlite gradebook inside it.

    Its autograde is plain nbgrader's, which the course refuses unless told (course_grade.score.guard): the
    build, the tests and the benchmarks use it knowingly, as a baseline to compare course-grade with.
    """
    return [
        sys.executable, "-m", "nbgrader", *args, "--log-level=ERROR",
        f"--CourseDirectory.root={course}", f"--CourseDirectory.db_url=sqlite:///{course}/gradebook.db",
        "--CourseGradeOnly.allowed=True",
    ]  # fmt: skip


def generate_learner_versions(names: list[str], destination: Path) -> None:
    """Run nbgrader generate_assignment on a scratch copy of the course and copy the results to destination."""
    with tempfile.TemporaryDirectory() as scratch:
        course = copy_course(GRADING, Path(scratch) / "course")
        for name in names:
            command = nbgrader_command(course, "generate_assignment", name, "--force")
            subprocess.run(command, cwd=course, env=nbgrader_environment(), check=True)
            destination.mkdir(parents=True, exist_ok=True)
            learners = nbformat.read(course / "release" / name / f"{name}.ipynb", as_version=4)
            keep_worked_outputs(
                nbformat.read(course / "source" / name / f"{name}.ipynb", as_version=4), learners
            )
            nbformat.write(learners, destination / f"{name}.ipynb")


def _defined(tree: ast.AST) -> set[str]:
    """The names a cell binds: assignments, loop and `with` targets, functions, classes, imports."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return found


def runs_learner_code(notebook: nbformat.NotebookNode) -> list[bool]:
    """For each cell of an instructor's notebook: does what it shows depend on code the learner writes?

    True for a solution cell, a test cell, a cell tagged raises-exception (a self-check that fails until its
    exercise is written), and a cell that reads a name such a cell binds, unless a cell running no learner code
    bound it again since (`my_loops = {"chat": chat_tool_loop}`, then `run(my_loops)`). A cell whose source
    does not parse counts as one. Markdown cells run nothing. The learners' version keeps the stored outputs of
    every other cell (tests/notebooks/test_notebooks.py checks that Run All of the learners' version reproduces them).
    """
    tainted: set[str] = set()
    found = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            found.append(False)
            continue
        marks = cell.metadata.get("nbgrader", {})
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            found.append(True)
            continue
        bound = _defined(tree)
        local = bound | {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
        reads = {
            node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local
        }  # what it reads from earlier cells: not its own loop variables, parameters or assignments
        learners = bool(
            marks.get("solution") or marks.get("grade") or "raises-exception" in cell.metadata.get("tags", [])
            or reads & tainted
        )  # fmt: skip
        tainted = tainted | bound if learners else tainted - bound  # or bound again by the instructor's code
        found.append(learners)
    return found


def keep_worked_outputs(instructor: nbformat.NotebookNode, learners: nbformat.NotebookNode) -> None:
    """Give each cell of the learners' version that runs no learner code the instructor's outputs (and
    execution count); leave the others as generate_assignment leaves them, empty. Cells match by id."""
    stored = {
        cell.get("id"): (cell, learner)
        for cell, learner in zip(instructor.cells, runs_learner_code(instructor), strict=True)
    }
    for cell in learners.cells:
        if cell.cell_type != "code" or cell.get("id") not in stored:
            continue
        source, learner = stored[cell.get("id")]
        if not learner and source.cell_type == "code":
            cell.outputs = copy.deepcopy(source.get("outputs", []))
            cell.execution_count = source.get("execution_count")


def canonical(path: Path) -> str:
    """A notebook's JSON with sorted keys, for a stale check that ignores formatting."""
    return json.dumps(json.loads(path.read_text(encoding="utf-8")), sort_keys=True, indent=1)


def stale_learner_versions(names: list[str]) -> list[str]:
    """The learners' notebooks that differ from what generate_assignment makes of the instructors' versions."""
    with tempfile.TemporaryDirectory() as fresh:
        generate_learner_versions(names, Path(fresh))
        return [
            name for name in names
            if not (LEARNERS / f"{name}.ipynb").exists()
            or canonical(Path(fresh) / f"{name}.ipynb") != canonical(LEARNERS / f"{name}.ipynb")
        ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Rebuild (or, with --check, verify) the stored outputs and the learners' versions."""
    parser = argparse.ArgumentParser(prog="python3 course.py build", description=main.__doc__)
    parser.add_argument("names", nargs="*", help="assignments to rebuild (default: all)")
    parser.add_argument(
        "--check", action="store_true", help="change nothing; fail on nondeterminism or staleness"
    )
    args = parser.parse_args(argv)
    names = args.names or assignments()
    problems = []
    for name in names:
        path = SOURCE / name / f"{name}.ipynb"
        if args.check and quiz_cells.stale(path):
            problems.append(
                f"{name}: its checkpoint quiz differs from course_lib.quiz (python3 course.py build)"
            )
        elif not args.check:
            quiz_cells.update(path)
        if args.check and oracle_cells.stale(path):
            problems.append(f"{name}: its differential hidden tests differ from course_grade.score.oracle")
        elif not args.check:
            oracle_cells.update(path)
        first = execute(path)
        if args.check:
            if outputs_of(first) != outputs_of(execute(path)):
                problems.append(f"{name}: two fresh runs gave different outputs")
        else:
            nbformat.write(first, path)
        print(f"executed {name}", flush=True)
    if args.check:
        problems += [f"{name}: notebooks/{name}.ipynb is stale" for name in stale_learner_versions(names)]
    else:
        generate_learner_versions(names, LEARNERS)
        print(f"learners' versions written to {LEARNERS.relative_to(ROOT)}/", flush=True)
    for problem in problems:
        print("PROBLEM:", problem, flush=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
