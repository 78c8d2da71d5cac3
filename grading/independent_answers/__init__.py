"""Independent answers: correct answers to each notebook written from its prose alone (the learners' notebook:
its contracts, examples and stubs), without the instructor's solution, the reference (`course_lib`) or the
wrong-answer catalogue in view. They are HONEST work, not wrong answers: benchmarks/flag_rates.py measures on
them (with the instructor's solutions and the catalogue's correct variants) how often a review flag fires on
honest work, and tests/course_grade/report/test_flag_rates.py holds the similarity thresholds to it.

Each module `NN_name.py` holds `ANSWERS`, a list of `IndependentAnswer`: who wrote it (a style, so that two
answers of one author are never compared as classmates) and the source of each solution cell, by grade_id.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple


class IndependentAnswer(NamedTuple):
    """One learner's honest answer to a notebook, one source per solution cell."""

    author: str
    """Who wrote it and how, in a word or two: "procedural", "table-driven", "terse"."""
    cells: dict[str, str]
    """grade_id of each solution cell -> the whole source written into it."""


def independent(assignment: str) -> list[IndependentAnswer]:
    """The independent answers written for an assignment (none if it has no module yet)."""
    try:
        module = importlib.import_module(f"{__name__}.{assignment}")
    except ModuleNotFoundError:
        return []
    return list(module.ANSWERS)
