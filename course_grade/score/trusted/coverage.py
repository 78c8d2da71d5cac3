"""Which test cells have a trusted verdict, and why the others keep nbgrader's score alone.

A cell listed here is not run on the trusted side: its score is nbgrader's, with no tampering check.
`tests/course_grade/score/test_trusted_notebooks.py` holds the rest to the truth: every other cell gives the
solution full marks and the learners' version none.
"""

from __future__ import annotations

UNVERIFIED_NOTEBOOKS: dict[str, str] = {}
"""notebook -> why none of its test cells has a trusted verdict."""

UNVERIFIED_CELLS: dict[str, dict[str, str]] = {}
"""notebook -> grade_id -> why that one test cell has none."""


def unverified(notebook: str, grade_id: str) -> str | None:
    """Why the cell has no trusted verdict, or None when it has one."""
    return UNVERIFIED_NOTEBOOKS.get(notebook) or UNVERIFIED_CELLS.get(notebook, {}).get(grade_id)
