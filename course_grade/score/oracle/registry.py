"""Which parts have a differential hidden test: one module of parts per notebook (`nNN_*.py`)."""

from __future__ import annotations

import importlib

from course_grade.score.oracle.contract import Part

MODULES: dict[str, str] = {
    "01_envelope": "n01_envelope",
}
"""assignment -> its module of parts in this package."""


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
