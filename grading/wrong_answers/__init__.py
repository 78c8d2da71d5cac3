"""Plausible wrong answers, one list per notebook: each must lose the points of the tests it names.

tests/test_notebooks_grading.py swaps each wrong answer into its solution cell, executes the notebook
and checks that exactly the named test cells fail (and so lose their points), and no others... at least
the named ones: a wrong answer may fail more tests than it names, never fewer.
"""

from __future__ import annotations

from typing import NamedTuple


class WrongAnswer(NamedTuple):
    """A wrong answer to one exercise and the test cells that must catch it."""

    cell: str
    """grade_id of the solution cell whose source it replaces."""
    why: str
    """The mistake it makes, in one line."""
    code: str
    """The whole replacement source of that cell."""
    fails: tuple[str, ...]
    """grade_ids of the test cells that must fail with it."""
