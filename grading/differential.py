"""Measure the differential hidden tests (`python3 course.py differential [ASSIGNMENT ...] [--answers]`).

Per part: the families with the sentences they cover, the examples each runs and the time it takes against the
reference itself. With `--answers`, every instructor solution, independent answer (grading/independent_answers)
and published wrong answer (grading/wrong_answers) of the part is judged too, in this process, each in the
namespace the notebook gives it (its earlier cells run first): the solution and the independent answers must
agree with the reference on every family, and the wrong answers' count of caught ones is printed, with each
wrong answer a family fails in a cell it does not name (`ALSO COSTS`).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import io
import os
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
from IPython.core.inputtransformer2 import TransformerManager

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from course_grade.score.oracle import judge as judging  # noqa: E402
from course_grade.score.oracle.judge import Disagreement, examples, judge  # noqa: E402
from course_grade.score.oracle.registry import MODULES, parts  # noqa: E402
from grading.wrong_answers import WrongAnswer  # noqa: E402

SOURCE = ROOT / "grading" / "source"


def _cells_up_to(assignment: str, grade_id: str) -> list[tuple[str | None, str]]:
    """(grade_id of a solution cell or None, source) of the code cells up to the solution cell `grade_id`, in
    notebook order, tests and demos left out."""
    notebook = nbformat.read(SOURCE / assignment / f"{assignment}.ipynb", as_version=4)  # type: ignore[no-untyped-call]
    cells: list[tuple[str | None, str]] = []
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("grade") or "demo" in cell.metadata.get("tags", []):
            continue
        solution = meta.get("grade_id") if meta.get("solution") else None
        cells.append((solution, str(cell.source)))
        if solution == grade_id:
            return cells
    raise LookupError(f"{assignment} has no solution cell {grade_id!r}")


def solution_source(assignment: str, grade_id: str) -> str:
    """The instructor's source of the solution cell `grade_id`."""
    return _cells_up_to(assignment, grade_id)[-1][1]


def _cells_before(assignment: str, grade_id: str) -> tuple[list[str], str]:
    """The sources of the code cells before the solution cell `grade_id`, and the solution's own source."""
    cells = _cells_up_to(assignment, grade_id)
    return [text for _, text in cells[:-1]], cells[-1][1]


@contextlib.contextmanager
def answer(
    assignment: str, grade_id: str, sources: str | dict[str, str] | None = None
) -> Iterator[dict[str, Any]]:
    """The namespace in which the solution cell `grade_id` is defined: every solution cell up to it taken from
    `sources` where it holds one (a dict by grade_id: an author's answer to the earlier parts too; a str: the
    source of `grade_id` alone), else the instructor's."""
    if isinstance(sources, str):
        sources = {grade_id: sources}
    transform = TransformerManager().transform_cell
    module = types.ModuleType(f"answer_{assignment}")
    namespace: dict[str, Any] = module.__dict__
    here = os.getcwd()
    os.chdir(SOURCE / assignment)
    sys.modules[module.__name__] = module
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for solution, text in _cells_up_to(assignment, grade_id):
                text = (sources or {}).get(solution or "", text)
                exec(compile(transform(text), f"<{assignment}:{grade_id}>", "exec"), namespace)
        yield namespace
    finally:
        os.chdir(here)
        sys.modules.pop(module.__name__, None)
        server = namespace.get("server")
        if server is not None and hasattr(server, "close"):
            server.close()


def disagreements(
    assignment: str, name: str, source: str | dict[str, str] | None = None, budget: int | None = None
) -> dict[str, str]:
    """family -> the disagreement's message, for an answer to the part `name` (default: the instructor's
    solution): the source of its cell, or a dict of solution cells' sources by grade_id (an author's whole
    answer, so that a later part may call the author's own helpers of an earlier one); `budget`: at most that
    many examples a family."""
    part = parts(assignment)[name]
    cell = _cell_of(assignment, name)
    sources = {cell: source} if isinstance(source, str) else source
    found: dict[str, str] = {}
    with answer(assignment, cell, sources) as namespace:
        for key in part.families:
            try:
                judge(f"{assignment}.{name}", key, namespace[name], budget=budget)
            except Disagreement as error:
                found[key] = str(error)
            except Exception as error:  # the judging itself failed: a finding too
                found[key] = f"{type(error).__name__}: {error}"
    return found


def unnamed_losses(assignment: str, wrong: WrongAnswer) -> dict[str, str]:
    """family -> its test cell, for each differential family that fails `wrong` under the trusted checks (their
    budget, every family they run) in a cell `wrong` does not name: a rule it does not break costing it a cell
    and naming that rule in its feedback (or a cell its `fails` should list)."""
    lost: dict[str, str] = {}
    for name, part in parts(assignment).items():
        if _cell_of(assignment, name) != wrong.cell:
            continue
        found = disagreements(assignment, name, {wrong.cell: wrong.code}, judging.REMOTE_EXAMPLES)
        for key in found:
            family = part.families[key]
            if not family.local and family.cell not in wrong.fails:
                lost[key] = family.cell
    return lost


@functools.cache  # read once: `--answers` and the attribution test ask it for every wrong answer
def _cell_of(assignment: str, name: str) -> str:
    """The grade_id of the solution cell that defines the graded name `name`."""
    notebook = nbformat.read(SOURCE / assignment / f"{assignment}.ipynb", as_version=4)  # type: ignore[no-untyped-call]
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            for node in ast.parse(cell.source).body:
                if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
                    return str(meta["grade_id"])
    raise LookupError(f"{assignment} has no solution cell defining {name!r}")


def report(assignment: str, with_answers: bool) -> int:
    """Print the assignment's parts and families; return how many problems `--answers` found."""
    problems = 0
    for name, part in parts(assignment).items():
        print(f"\n{assignment} {name}: {part.observables}")
        reference = part.reference()
        for key, family in part.families.items():
            started = time.process_time()
            count = len(examples(part, key))
            judge(f"{assignment}.{name}", key, reference)
            print(
                f"  {key:<14} {count:>4} examples {time.process_time() - started:6.2f} s  {family.sentence}"
            )
        if with_answers:
            problems += _answers(assignment, name)
    return problems


def _answers(assignment: str, name: str) -> int:
    from grading.independent_answers import independent  # noqa: PLC0415
    from grading.wrong_answers import published  # noqa: PLC0415

    problems = 0
    cell = _cell_of(assignment, name)
    honest: list[tuple[str, dict[str, str] | None]] = [("instructor's solution", None)] + [
        (f"independent ({one.author})", one.cells) for one in independent(assignment) if cell in one.cells
    ]
    for who, source in honest:
        found = disagreements(assignment, name, source)
        problems += bool(found)
        for key, message in found.items():
            print(f"  OVER-SPECIFIED? {who} differs on {key}: {message[:500]}")
    wrong = [one for one in published(assignment) if one.cell == cell]
    caught = [one for one in wrong if disagreements(assignment, name, {cell: one.code})]
    print(f"  wrong answers the families catch: {len(caught)} of {len(wrong)}")
    for one in wrong:
        lost = unnamed_losses(assignment, one)
        if lost:
            print(f"  ALSO COSTS {sorted(set(lost.values()))} (families {sorted(lost)}): {one.why}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Print the differential tests of each assignment (with --answers, judge the known answers too)."""
    parser = argparse.ArgumentParser(prog="python3 course.py differential", description=main.__doc__)
    parser.add_argument("assignments", nargs="*", help="default: every assignment with differential parts")
    parser.add_argument(
        "--answers", action="store_true", help="judge solutions, independent and wrong answers"
    )
    parser.add_argument(
        "--shrink", action="store_true", help="with --answers: shrink each disagreement (slow)"
    )
    args = parser.parse_args(argv)
    if args.answers and not args.shrink:
        judging.SHRINK_SECONDS = 0.0  # counting what is caught needs no smallest input
    problems = sum(report(assignment, args.answers) for assignment in args.assignments or list(MODULES))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
