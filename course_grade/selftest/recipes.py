"""The hostile pack's cases as data: each a `Case` (what its learner must get) and a `Recipe` (how its
submission is made from the assignment's instructor and learner versions); `hostile.build` follows them.

The attacks' code is in `course_grade.selftest.attacks`; the short programs of the other cases are here.
The own-work cases (`course_grade.selftest.bypasses`) and `other-assignment` depend on the assignment, and
`hostile` adds them.
"""

from __future__ import annotations

from dataclasses import dataclass

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
)

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
    """"full", "zero", "first" (the points of the first exercise's tests and the quiz's, whose answers every case
    keeps as the key's), "first-only" (the first exercise's alone: the kernel is lost in the second exercise, so
    nothing after it runs) or "second" (all but the first exercise's)."""
    kinds: tuple[str, ...] = ()
    """The kinds of notes the learner must get."""


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


STDERR = "{stderr}"
"""A recipe's code may name three values known only when the pack is built: `{stderr}` (the second exercise's
function wrapped to print to stderr when called), `{stub}` (the learner's version of the second exercise's
cell) and `{port}` (the loopback port)."""


@dataclass(frozen=True)
class Recipe:
    """How one case's submission is made from the assignment's instructor and learner versions."""

    case: Case
    start: str = "instructor"
    """The version it starts from: "instructor" or "learner"."""
    tests: str = ""
    """What becomes of the test cells: "edited" (each is `pass`, worth 100), "deleted", "duplicated" (the first
    one pasted above itself), "tagged" (skip-execution and raises-exception); "" for nothing."""
    cell: str = "first"
    """The exercise whose solution cell the fields below change: "first" or "second"."""
    replace: str = ""
    """The cell's new source."""
    before: str = ""
    """Code put before the cell's source."""
    attack: str = ""
    """Code put before the cell's source inside `attacks.attack`'s try block (a failure is swallowed)."""
    after: str = ""
    """Code put after the cell's source."""
    markdown: str = ""
    """A markdown cell put first."""
    text: str | None = None
    """A file of this text instead of a notebook."""
    filename: str = "{name}.ipynb"
    """The file's name (`{name}`: the name of the assignment's notebook)."""


_R = Recipe
RECIPES: tuple[Recipe, ...] = (
    _R(Case("solution", "the instructor's version", "full")),
    _R(Case("learner", "the learner's version, untouched", "zero"), "learner"),
    _R(Case("partial", "solves the first exercise only", "first"), cell="second", replace="{stub}"),
    _R(Case("infinite-loop", "loops forever in the second exercise", "first", ("timeout",)),
       cell="second", before="while True:\n    pass"),
    _R(Case("ignores-interrupt", "loops forever ignoring SIGINT in the second exercise", "first-only",
            ("timeout", "unstoppable")), cell="second", before=IGNORES_INTERRUPT),
    _R(Case("sys-exit", "calls sys.exit() in the second exercise", "first", ("exit",)),
       cell="second", before="import sys\nsys.exit(1)"),
    _R(Case("kernel-dies", "kills its kernel with os._exit in the second exercise", "first-only",
            ("kernel-died",)),
       cell="second", before="import os\nos._exit(1)"),
    _R(Case("kills-grader", "kills the process grading it (in the sandbox, none is in reach)", "full",
            ("flagged",)), cell="second", before="import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"),
    _R(Case("edited-test", "the learner's version with every test edited to pass and worth 100", "zero",
            ("edited",)), "learner", tests="edited"),
    _R(Case("deleted-test", "the learner's version with every test cell deleted", "zero", ("deleted",)),
       "learner", tests="deleted"),
    _R(Case("duplicated-cell", "the instructor's version with a test cell duplicated", "full", ("duplicated",)),
       tests="duplicated"),
    _R(Case("renamed", "the instructor's version under another name", "zero", ("renamed",)),
       filename="{name} (copy).ipynb"),
    _R(Case("missing", "no notebook, only a text file", "zero", ("missing",)), text="my answers",
       filename="answers.txt"),
    _R(Case("invalid-json", "a notebook file cut in the middle", "zero", ("unreadable",)),
       text='{"cells": [{"cell_type": "code", "source": '),
    _R(Case("empty-file", "an empty notebook file", "zero", ("empty",)), text=""),
    _R(Case("huge-output", "prints 50,000 lines and a 2 MB line", "full", ("truncated",)), before=HUGE_OUTPUT),
    _R(Case("stderr", "writes to stderr whenever its second exercise runs", "first", ("stderr",)),
       cell="second", after=STDERR),
    _R(Case("writes-files", "writes files next to itself", "full", ("wrote-files",)), after=WRITES_FILES),
    _R(Case("tampers-course", "overwrites the course's source, config and gradebook (the sandbox shows none)",
            "full", ("flagged",)), attack=TAMPERS),
    _R(Case(ODD_ID, "the instructor's version, from a student with an odd id", "full")),
    _R(Case("skip-tags", "the learner's version, every test tagged skip-execution and raises-exception", "zero",
            ("cleaned",)), "learner", tests="tagged"),
    _R(Case("transformer", "the learner's version; an input transformer turns every later cell into `pass`",
            "zero", ("flagged", "possible-tampering")), "learner", before=TRANSFORMER),
    _R(Case("transformer-when-graded", "the same, only while NBGRADER_EXECUTION is set", "zero", ("flagged",)),
       "learner", attack=WHEN_GRADED),
    _R(Case("transformer-in-markdown", "the same, loaded from a markdown cell", "zero",
            ("flagged", "possible-tampering")), "learner", attack=FROM_MARKDOWN,
       markdown=f"```\n{TRANSFORMER}\n```"),
    _R(Case("sqlite-trigger", "the learner's version; a trigger on the scratch gradebook grants full marks",
            "zero", ("flagged",)), "learner", attack=SQLITE_TRIGGER),
    _R(Case("reads-source", "the learner's version; runs the solutions of the source or a classmate's notebook",
            "zero", ("flagged",)), "learner", attack=READS_SOURCE),
    _R(Case("loopback", "the learner's version; connects to a port on 127.0.0.1", "zero", ("flagged",)),
       "learner", attack=LOOPBACK),
    _R(Case("outlives-grading", "the learner's version; starts 50 `sleep` processes in sessions of their own",
            "zero", ("flagged",)), "learner", attack=OUTLIVES),
    _R(Case("rewrites-results", "the learner's version; leaves a process to rewrite gradebook.db and grades.csv",
            "zero", ("flagged",)), "learner", attack=REWRITES_RESULTS),
    _R(Case("zmq-injection", "the learner's version; redefines classmates' functions through their kernels",
            "zero", ("flagged",)), "learner", attack=ZMQ_INJECTION),
    _R(Case("kills-classmates", "the learner's version; kills every other grading kernel", "zero", ("flagged",)),
       "learner", attack=KILLS_CLASSMATES),
    _R(Case("appends-code", "the learner's version; appends to course_lib and every nbgrader_config.py",
            "zero", ("flagged",)), "learner", attack=APPENDS_CODE),
    _R(Case("huge-file", "writes a 300 MB file in the second exercise", "first", ("wrote-files",)),
       cell="second", before=HUGE_FILE),
    _R(Case("settrace", "the learner's version; installs a trace function", "zero", ("flagged",)),
       "learner", attack=SETTRACE),
)  # fmt: skip
"""The pack's cases made from the assignment itself (the own-work cases and `other-assignment` follow)."""
