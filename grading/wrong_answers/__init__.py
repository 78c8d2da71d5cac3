"""Plausible wrong answers, one list per notebook: each must lose the points of the tests it names.

tests/notebooks/test_notebooks.py swaps each wrong answer into its solution cell, executes the notebook and checks
that every test cell it names fails (and so loses its points); a wrong answer may fail more, never fewer.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

from course_grade.cells import quiz_id


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
    breaks: str = ""
    """The contract sentence it breaks: a verbatim part of one bullet of the "Your function must" (or "Your class
    must") list of its part in the instructor notebook (see grading/AUTHORING.md); empty only until that part is
    audited. tests/notebooks/test_contract_sentences.py checks both ways."""


def splice(base: str, *edits: tuple[str, str]) -> str:
    """`base` (a correct answer) with each (old, new) replacement applied; every `old` must occur in it."""
    for old, new in edits:
        assert old in base, f"wrong-answer template lost {old!r}"
        base = base.replace(old, new)
    return base.strip() + "\n"


def published(assignment: str) -> list[WrongAnswer]:
    """The wrong answers published for an assignment (none if it has no module yet: a test then fails)."""
    try:
        module = importlib.import_module(f"{__name__}.{assignment}")
    except ModuleNotFoundError:
        return []
    return [*module.WRONG_ANSWERS, *quiz_wrong_answers(assignment)]


def quiz_wrong_answers(assignment: str) -> list[WrongAnswer]:
    """The checkpoint quiz's wrong answers, made from its key: a blank quiz (it loses every question), and for
    each question the key with that one answer wrong (it loses that question's point only)."""
    from grading.quiz_cells import wrong_answer_cells  # noqa: PLC0415 - the quiz reads course_lib only when asked

    return [
        WrongAnswer(quiz_id(assignment), why, code, fails)
        for why, code, fails in wrong_answer_cells(assignment)
    ]
