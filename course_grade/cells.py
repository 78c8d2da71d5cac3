"""A notebook's cells as nbgrader marks them: a cell's grade_id, whether it is a test, what learners see of it.

A notebook is read as its JSON (plain dicts and lists): reading it through nbformat costs a schema validation.
"""

from __future__ import annotations

from typing import Any

Notebook = dict[str, Any]
"""A notebook as its JSON: plain dicts and lists (reading it through nbformat costs a schema validation)."""


def cell_grade_id(cell: Any) -> str:
    """The nbgrader grade_id of a cell, or "" if it has none."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    grade_id = nbgrader.get("grade_id", "") if isinstance(nbgrader, dict) else ""
    return grade_id if isinstance(grade_id, str) else ""


def is_test(cell: Any) -> bool:
    """True for an autograded test cell."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    return bool(nbgrader.get("grade")) and not nbgrader.get("solution")


def visible(source: str) -> str:
    """A cell's source as learners receive it: nbgrader's ClearHiddenTests removes hidden-test regions."""
    kept, hidden = [], False
    for line in source.split("\n"):
        if "BEGIN HIDDEN TESTS" in line:
            hidden = True
        elif "END HIDDEN TESTS" in line:
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept)


def joined(text: str | list[str]) -> str:
    """A source or output text as one string (notebook files may store it as a list of lines)."""
    return "".join(text) if isinstance(text, list) else text
