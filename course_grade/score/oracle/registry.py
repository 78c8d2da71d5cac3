"""Which parts have a differential hidden test: one module of parts per notebook (`nNN_*.py`)."""

from __future__ import annotations

import importlib

from course_grade.score.oracle.contract import Part

MODULES: dict[str, str] = {
    "01_envelope": "n01_envelope",
    "05_failures": "n05_failures",
    "07_capstone": "n07_capstone",
    "02_dispatcher": "n02_dispatcher",
    "06_security": "n06_security",
    "04_wire": "n04_wire",
    "03_loop": "n03_loop",
}
"""assignment -> its module of parts in this package."""


UNJUDGED: dict[str, str] = {
    "02_dispatcher.parse_request": "a helper Part A's cell suggests, not a name the prose grades: its rules are "
    "judged through dispatch and dispatch_with",
}
"""`assignment.name` -> why that graded function or class has no differential test (tests/course_grade/score/
test_oracle.py fails on any other graded name without one)."""


def parts(assignment: str) -> dict[str, Part]:
    """The assignment's parts with a differential test, by graded name (none for an assignment without a module)."""
    module = MODULES.get(assignment)
    if module is None:
        return {}
    found: dict[str, Part] = importlib.import_module(f"course_grade.score.oracle.{module}").PARTS
    return found


def find_part(part_id: str) -> Part | None:
    """The part `assignment.name`, or None."""
    assignment, _, name = part_id.partition(".")
    return parts(assignment).get(name)
