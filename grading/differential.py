"""Measure the differential hidden tests (`python3 course.py differential [ASSIGNMENT ...] [--answers]`).

Per part: the families with the sentences they cover, the examples each runs and the time it takes against the
reference itself. With `--answers`, every instructor solution, independent answer (grading/independent_answers)
and published wrong answer (grading/wrong_answers) of the part is judged too, in this process, each in the
namespace the notebook gives it (its earlier cells run first): the solution and the independent answers must
agree with the reference on every family, and the wrong answers' count of caught ones is printed.
"""

from __future__ import annotations

import argparse
import contextlib
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

from course_grade.score.oracle.judge import Disagreement, examples, judge  # noqa: E402
from course_grade.score.oracle.registry import MODULES, parts  # noqa: E402

SOURCE = ROOT / "grading" / "source"


def _cells_before(assignment: str, grade_id: str) -> tuple[list[str], str]:
    """The code cells that run before the solution cell `grade_id` (tests and demos left out), and its source."""
    notebook = nbformat.read(SOURCE / assignment / f"{assignment}.ipynb", as_version=4)  # type: ignore[no-untyped-call]
    sources = []
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or meta.get("grade") or "demo" in cell.metadata.get("tags", []):
            continue
        if meta.get("solution") and meta.get("grade_id") == grade_id:
            return sources, str(cell.source)
        sources.append(cell.source)
    raise LookupError(f"{assignment} has no solution cell {grade_id!r}")


@contextlib.contextmanager
def answer(assignment: str, grade_id: str, source: str | None = None) -> Iterator[dict[str, Any]]:
    """The namespace in which `source` (default: the instructor's solution) of the cell `grade_id` is defined."""
    transform = TransformerManager().transform_cell
    before, solution = _cells_before(assignment, grade_id)
    module = types.ModuleType(f"answer_{assignment}")
    namespace: dict[str, Any] = module.__dict__
    here = os.getcwd()
    os.chdir(SOURCE / assignment)
    sys.modules[module.__name__] = module
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for text in [*before, solution if source is None else source]:
                exec(compile(transform(text), f"<{assignment}:{grade_id}>", "exec"), namespace)
        yield namespace
    finally:
        os.chdir(here)
        sys.modules.pop(module.__name__, None)
        server = namespace.get("server")
        if server is not None and hasattr(server, "close"):
            server.close()


def disagreements(assignment: str, name: str, source: str | None = None) -> dict[str, str]:
    """family -> the disagreement's message, for the answer `source` of the part `name` (default: the solution)."""
    part = parts(assignment)[name]
    found: dict[str, str] = {}
    with answer(assignment, name, source) as namespace:
        for key in part.families:
            try:
                judge(f"{assignment}.{name}", key, namespace[name])
            except Disagreement as error:
                found[key] = str(error)
            except Exception as error:  # the judging itself failed: a finding too
                found[key] = f"{type(error).__name__}: {error}"
    return found


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
            print(f"  {key:<14} {count:>4} examples {time.process_time() - started:6.2f} s  {family.sentence}")
        if with_answers:
            problems += _answers(assignment, name)
    return problems


def _answers(assignment: str, name: str) -> int:
    from grading.independent_answers import independent  # noqa: PLC0415
    from grading.wrong_answers import published  # noqa: PLC0415

    problems = 0
    honest = [("instructor's solution", None)] + [
        (f"independent ({one.author})", one.cells[name]) for one in independent(assignment) if name in one.cells
    ]
    for who, source in honest:
        found = disagreements(assignment, name, source)
        problems += bool(found)
        for key, message in found.items():
            print(f"  OVER-SPECIFIED? {who} differs on {key}: {message[:500]}")
    wrong = [one for one in published(assignment) if one.cell == name]
    caught = [one for one in wrong if disagreements(assignment, name, one.code)]
    print(f"  wrong answers the families catch: {len(caught)} of {len(wrong)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Print the differential tests of each assignment (with --answers, judge the known answers too)."""
    parser = argparse.ArgumentParser(prog="python3 course.py differential", description=main.__doc__)
    parser.add_argument("assignments", nargs="*", help="default: every assignment with differential parts")
    parser.add_argument("--answers", action="store_true", help="judge solutions, independent and wrong answers")
    args = parser.parse_args(argv)
    problems = sum(report(assignment, args.answers) for assignment in args.assignments or list(MODULES))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
