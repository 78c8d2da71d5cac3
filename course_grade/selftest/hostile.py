"""A test pack of hostile and broken submissions, built from an assignment's instructor and learner versions.

    python -m course_grade.selftest.hostile PACK [--course grading] [--assignment 01_envelope]

writes `PACK/<student>/<assignment>/...` in nbgrader's submitted layout, one student per case, then
`course-grade run PACK <assignment> --sandbox on` grades it. Every case states what its learner must get
with the sandbox on: the score ("full", "zero", or "first": the points of the first exercise's tests, for
cases that break only the second exercise) and the kinds of notes (see `course_grade.notes`).
An attack (course_grade/selftest/attacks.py) scores what the same notebook scores without it. Without the sandbox
some cases get other notes, and the attacks on classmates reach every grading run of the machine. The
pack is built, never stored: nothing here is a binary blob.
"""

from __future__ import annotations

import argparse
import ast
import copy
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nbformat import NotebookNode

from course_grade.cells import cell_grade_id, is_test
from course_grade.course import REPOSITORY_COURSE, Course
from course_grade.notebooks import node, read, write
from course_grade.release.bundle import EditionError
from course_grade.release.library import for_assignment
from course_grade.selftest.attacks import (
    APPENDS_CODE,
    FROM_MARKDOWN,
    HUGE_FILE,
    KILLS_CLASSMATES,
    LOOPBACK,
    OUTLIVES,
    READS_SOURCE,
    REWRITES_RESULTS,
    SETTRACE,
    SQLITE_TRIGGER,
    TRANSFORMER,
    WHEN_GRADED,
    ZMQ_INJECTION,
    attack,
)
from course_grade.selftest.bypasses import ROUTES, bypass, reference_module

ODD_ID = "Zoë O'Brien, Jr. [2]*"
"""A student id with spaces, accents, a quote, a comma and glob characters, all legal in a folder name."""


@dataclass(frozen=True)
class Case:
    """One submission of the pack and what its learner must get."""

    student: str
    """The student id (the folder name)."""
    what: str
    """What the submission does."""
    score: str
    """"full", "zero", "first" (the points of the first exercise's tests) or "second" (all but those)."""
    kinds: tuple[str, ...] = ()
    """The kinds of notes the learner must get."""


Notebook = NotebookNode


def solution_ids(notebook: Notebook) -> list[str]:
    """The grade_ids of the solution cells, in order."""
    return [
        cell_grade_id(cell) for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("solution")
    ]


def first_exercise_points(notebook: Notebook) -> float:
    """The points of the test cells between the first and the second solution cell."""
    seen, points = 0, 0.0
    for cell in notebook.cells:
        nbgrader = cell.metadata.get("nbgrader", {})
        seen += 1 if nbgrader.get("solution") else 0
        if seen == 1 and nbgrader.get("grade") and not nbgrader.get("solution"):
            points += float(nbgrader.get("points", 0))
    return points


def _edit(notebook: Notebook, grade_id: str, change: Callable[[str], str]) -> Notebook:
    """A copy of the notebook whose cell `grade_id` has its source passed through `change`."""
    changed = copy.deepcopy(notebook)
    for cell in changed.cells:
        if cell_grade_id(cell) == grade_id:
            cell.source = change(cell.source)
    return changed


def _prefix(code: str) -> Callable[[str], str]:
    """Put `code` before a cell's source."""
    return lambda source: code + "\n" + source


def _suffix(code: str) -> Callable[[str], str]:
    """Put `code` after a cell's source."""
    return lambda source: source + "\n" + code


def _first_function(source: str) -> str | None:
    """The name of the first function a cell defines."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    return next((node.name for node in tree.body if isinstance(node, ast.FunctionDef)), None)


STDERR_WRAPPER = """
import sys as _sys
_quiet_{name} = {name}
def {name}(*args, **kwargs):
    print("debug: {name} called", file=_sys.stderr)
    return _quiet_{name}(*args, **kwargs)
"""

WRITES_FILES = """
from pathlib import Path as _Path
_Path("scratch_output.txt").write_text("kept for later")
_Path("cache").mkdir(exist_ok=True)
_Path("cache", "blob.bin").write_bytes(b"0" * 1_000_000)
"""

TAMPERS = """
from pathlib import Path as _Path
_course = _Path.cwd().parents[2]  # autograded/<student>/<assignment> -> the course directory
for _notebook in _course.glob("source/*/*.ipynb"):
    _notebook.write_text("{}")
with open(_course / "nbgrader_config.py", "a") as _config:
    _config.write("\\nc.Execute.timeout = 1\\n")
(_course / "gradebook.db").write_bytes(b"not a database any more")
"""

IGNORES_INTERRUPT = """
import signal
signal.signal(signal.SIGINT, signal.SIG_IGN)
while True:
    pass
""".strip()

HUGE_OUTPUT = """
for _line in range(50_000):
    print(_line)
print("x" * 2_000_000)
"""


def build(course: Course, assignment: str, port: int = 9) -> dict[str, tuple[Case, Callable[[Path], object]]]:
    """Every case of the pack: student -> (case, a function writing its assignment folder).

    `port` is the loopback port the `loopback` case tries to reach (a test listens there and counts).
    """
    names = course.notebooks(assignment)
    name = names[0]
    instructor = read(course.folder("source", assignment=assignment) / f"{name}.ipynb")
    released = course.folder("release", assignment=assignment) / f"{name}.ipynb"
    if not released.exists():
        raise FileNotFoundError(f"{released} is missing: run `course-grade release {assignment}` first")
    learner = read(released)
    solutions = solution_ids(instructor)
    if len(solutions) < 2:
        raise ValueError(
            f"{assignment} needs two exercises (solution cells) for this pack; it has {len(solutions)}"
        )
    first, second = solutions[0], solutions[1]
    stub = next(cell.source for cell in learner.cells if cell_grade_id(cell) == second)
    function = _first_function(
        next(cell.source for cell in instructor.cells if cell_grade_id(cell) == second)
    )
    stderr = (
        STDERR_WRAPPER.format(name=function) if function else 'import sys\nprint("debug", file=sys.stderr)'
    )
    others = [other for other in course.assignments() if other != assignment]

    def notebook(nb: Notebook, filename: str = f"{name}.ipynb") -> Callable[[Path], object]:
        return lambda folder: write(nb, folder / filename)

    def text(content: str, filename: str = f"{name}.ipynb") -> Callable[[Path], object]:
        return lambda folder: (folder / filename).write_text(content, encoding="utf-8")

    edited = copy.deepcopy(learner)
    for cell in edited.cells:
        if is_test(cell):
            cell.source, cell.metadata.nbgrader["points"] = "pass", 100
    deleted = copy.deepcopy(learner)
    deleted.cells = [cell for cell in deleted.cells if not is_test(cell)]
    duplicated = copy.deepcopy(instructor)
    index = next(i for i, cell in enumerate(duplicated.cells) if is_test(cell))
    twin = copy.deepcopy(duplicated.cells[index])
    twin["id"] = f"{twin.get('id', 'cell')}-copy"[
        -64:
    ]  # Jupyter gives a pasted cell a new id, never its grade_id
    duplicated.cells.insert(index, twin)
    tagged = copy.deepcopy(learner)
    for cell in tagged.cells:
        if is_test(cell):
            cell.metadata["tags"] = ["skip-execution", "raises-exception"]
    markdown = _edit(learner, first, _prefix(attack(FROM_MARKDOWN)))
    markdown.cells.insert(
        0, node(cell_type="markdown", id="hostile-markdown", metadata={}, source=f"```\n{TRANSFORMER}\n```")
    )

    def attacked(code: str, base: Notebook = learner, where: str = first) -> Notebook:
        return _edit(base, where, _prefix(attack(code)))

    cases: list[tuple[Case, Callable[[Path], object]]] = [
        (Case("solution", "the instructor's version", "full"), notebook(instructor)),
        (Case("learner", "the learner's version, untouched", "zero"), notebook(learner)),
        (Case("partial", "solves the first exercise only", "first"),
         notebook(_edit(instructor, second, lambda _: stub))),
        (Case("infinite-loop", "loops forever in the second exercise", "first", ("timeout",)),
         notebook(_edit(instructor, second, _prefix("while True:\n    pass")))),
        (Case("ignores-interrupt", "loops forever ignoring SIGINT in the second exercise", "first",
              ("timeout", "unstoppable")),
         notebook(_edit(instructor, second, _prefix(IGNORES_INTERRUPT)))),
        (Case("sys-exit", "calls sys.exit() in the second exercise", "first", ("exit",)),
         notebook(_edit(instructor, second, _prefix("import sys\nsys.exit(1)")))),
        (Case("kernel-dies", "kills its kernel with os._exit in the second exercise", "first", ("kernel-died",)),
         notebook(_edit(instructor, second, _prefix("import os\nos._exit(1)")))),
        (Case("kills-grader", "kills the process grading it (in the sandbox, none is in reach)", "full",
              ("flagged",)),
         notebook(_edit(instructor, second, _prefix("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)")))),
        (Case("edited-test", "the learner's version with every test edited to pass and worth 100", "zero", ("edited",)),
         notebook(edited)),
        (Case("deleted-test", "the learner's version with every test cell deleted", "zero", ("deleted",)),
         notebook(deleted)),
        (Case("duplicated-cell", "the instructor's version with a test cell duplicated", "full", ("duplicated",)),
         notebook(duplicated)),
        (Case("renamed", "the instructor's version under another name", "zero", ("renamed",)),
         notebook(instructor, f"{name} (copy).ipynb")),
        (Case("missing", "no notebook, only a text file", "zero", ("missing",)), text("my answers", "answers.txt")),
        (Case("invalid-json", "a notebook file cut in the middle", "zero", ("unreadable",)),
         text('{"cells": [{"cell_type": "code", "source": ')),
        (Case("empty-file", "an empty notebook file", "zero", ("empty",)), text("")),
        (Case("huge-output", "prints 50,000 lines and a 2 MB line", "full", ("truncated",)),
         notebook(_edit(instructor, first, _prefix(HUGE_OUTPUT)))),
        (Case("stderr", "writes to stderr whenever its second exercise runs", "first", ("stderr",)),
         notebook(_edit(instructor, second, _suffix(stderr)))),
        (Case("writes-files", "writes files next to itself", "full", ("wrote-files",)),
         notebook(_edit(instructor, first, _suffix(WRITES_FILES)))),
        (Case("tampers-course", "overwrites the course's source, config and gradebook (the sandbox shows none)",
              "full", ("flagged",)), notebook(attacked(TAMPERS, instructor))),
        (Case(ODD_ID, "the instructor's version, from a student with an odd id", "full"), notebook(instructor)),
        (Case("skip-tags", "the learner's version, every test tagged skip-execution and raises-exception", "zero",
              ("cleaned",)), notebook(tagged)),
        (Case("transformer", "the learner's version; an input transformer turns every later cell into `pass`",
              "zero", ("flagged", "possible-tampering")), notebook(_edit(learner, first, _prefix(TRANSFORMER)))),
        (Case("transformer-when-graded", "the same, only while NBGRADER_EXECUTION is set", "zero", ("flagged",)),
         notebook(attacked(WHEN_GRADED))),
        (Case("transformer-in-markdown", "the same, loaded from a markdown cell", "zero",
              ("flagged", "possible-tampering")), notebook(markdown)),
        (Case("sqlite-trigger", "the learner's version; a trigger on the scratch gradebook grants full marks",
              "zero", ("flagged",)), notebook(attacked(SQLITE_TRIGGER))),
        (Case("reads-source", "the learner's version; runs the solutions of the source or a classmate's notebook",
              "zero", ("flagged",)), notebook(attacked(READS_SOURCE))),
        (Case("loopback", "the learner's version; connects to a port on 127.0.0.1", "zero", ("flagged",)),
         notebook(attacked(LOOPBACK.format(port=port)))),
        (Case("outlives-grading", "the learner's version; starts 50 `sleep` processes in sessions of their own",
              "zero", ("flagged",)), notebook(attacked(OUTLIVES))),
        (Case("rewrites-results", "the learner's version; leaves a process to rewrite gradebook.db and grades.csv",
              "zero", ("flagged",)), notebook(attacked(REWRITES_RESULTS))),
        (Case("zmq-injection", "the learner's version; redefines classmates' functions through their kernels",
              "zero", ("flagged",)), notebook(attacked(ZMQ_INJECTION))),
        (Case("kills-classmates", "the learner's version; kills every other grading kernel", "zero", ("flagged",)),
         notebook(attacked(KILLS_CLASSMATES))),
        (Case("appends-code", "the learner's version; appends to course_lib and every nbgrader_config.py",
              "zero", ("flagged",)), notebook(attacked(APPENDS_CODE))),
        (Case("huge-file", "writes a 300 MB file in the second exercise", "first", ("wrote-files",)),
         notebook(_edit(instructor, second, _prefix(HUGE_FILE)))),
        (Case("settrace", "the learner's version; installs a trace function", "zero", ("flagged",)),
         notebook(attacked(SETTRACE))),
    ]  # fmt: skip
    cases += _own_work_cases(instructor, first, notebook, _against_edition(course, assignment))
    if others:
        other = others[0]
        foreign = course.folder("source", assignment=other) / f"{course.notebooks(other)[0]}.ipynb"
        cases.append(
            (Case("other-assignment", f"the notebook of {other}", "zero", ("other-assignment",)),
             lambda folder: shutil.copyfile(foreign, folder / f"{name}.ipynb"))
        )  # fmt: skip
    return {case.student: (case, make) for case, make in cases}


def _replace(code: str) -> Callable[[str], str]:
    """Replace a cell's source with `code`."""
    return lambda _: code


def _against_edition(course: Course, assignment: str) -> bool:
    """Whether `course-grade` grades the assignment against its learners' library by default (its learners'
    notebooks import no key they are not given)."""
    publish = course.published_keys()
    try:
        for_assignment(
            assignment, publish, sorted(course.folder("release", assignment=assignment).glob("*.ipynb"))
        )
    except EditionError:
        return False
    return True


def _own_work_cases(
    instructor: Notebook, first: str, notebook: Callable[[Notebook], Callable[[Path], object]], edition: bool
) -> list[tuple[Case, Callable[[Path], object]]]:
    """The trusted checks' cases: the first exercise answered by its reference through a hidden route.

    Graded against the learners' library (`edition`), the reference is not there to call: each route fails
    where it reaches for it, so only the source's own flag (and the rebound helper's) remains; with the
    instructor's library, the trusted checks also see the call."""
    function = _first_function(next(cell.source for cell in instructor.cells if cell_grade_id(cell) == first))
    module = reference_module(function) if function else None
    if function is None or module is None:
        return []
    cases = []
    for student, (what, route) in ROUTES.items():
        if edition:
            kinds: tuple[str, ...] = ("flagged", "review") if route == "rebound" else ("flagged",)
        else:
            kinds = (
                ("flagged", "possible-tampering", "review") if route == "rebound" else ("flagged", "review")
            )
        code = bypass(route, function, module)
        cases.append(
            (Case(student, what, "second", kinds), notebook(_edit(instructor, first, _replace(code))))
        )
    return cases


def write_pack(course: Course, assignment: str, folder: Path, port: int = 9) -> list[Case]:
    """Write the pack into `folder` (nbgrader's submitted layout) and return its cases."""
    cases = []
    for student, (case, make) in build(course, assignment, port).items():
        target = folder / student / assignment
        target.mkdir(parents=True, exist_ok=True)
        make(target)
        cases.append(case)
    (folder / ".ipynb_checkpoints").mkdir(exist_ok=True)  # left behind by Jupyter: not a student
    return cases


def main(argv: list[str] | None = None) -> int:
    """Write the pack and list its cases."""
    parser = argparse.ArgumentParser(prog="python -m course_grade.selftest.hostile", description=main.__doc__)
    parser.add_argument("pack", type=Path, help="the folder to write the submissions into")
    parser.add_argument(
        "--course", type=Path, default=REPOSITORY_COURSE, help="the nbgrader course directory"
    )
    parser.add_argument("--assignment", help="the assignment to attack (default: the first one)")
    args = parser.parse_args(argv)
    course = Course.open(args.course)
    assignment = args.assignment or course.assignments()[0]
    for case in write_pack(course, assignment, args.pack):
        print(f"{case.student:24} {case.score:5} {','.join(case.kinds):18} {case.what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
