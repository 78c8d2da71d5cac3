"""Notebook 07's differential families (course_grade.score.oracle.n07_capstone): the instructor's solution and
every independent answer agree with the reference on every family, and sentence-level misreadings of each part's
list, written as small changes of the instructor's solution, are each caught by some family.

07's graded names are not its cells' grade_ids, so the answers are defined with `CELLS` (the part's cell).
"""

from __future__ import annotations

import pytest

from course_grade.score.oracle import judge as judge_module
from course_grade.score.oracle.judge import Disagreement, judge
from course_grade.score.oracle.n07_capstone import CELLS, PARTS
from grading import differential
from grading.independent_answers import independent

ASSIGNMENT = "07_capstone"


@pytest.fixture(autouse=True)
def no_shrinking(monkeypatch: pytest.MonkeyPatch) -> None:
    """A caught answer is reported as first found: these tests ask whether, not where."""
    monkeypatch.setattr(judge_module, "SHRINK_SECONDS", 0.0)


def disagreements(name: str, source: str | None = None) -> dict[str, str]:
    """family -> the disagreement, for `source` in the cell of part `name` (default: the instructor's)."""
    found: dict[str, str] = {}
    with differential.answer(ASSIGNMENT, CELLS[name], source) as namespace:
        for key in PARTS[name].families:
            try:
                judge(f"{ASSIGNMENT}.{name}", key, namespace[name])
            except Disagreement as error:
                found[key] = str(error)
    return found


def solution(name: str) -> str:
    return differential._cells_before(ASSIGNMENT, CELLS[name])[1]


@pytest.mark.parametrize("name", sorted(PARTS))
def test_honest_answers_agree_with_the_reference(name: str) -> None:
    honest = [("instructor", None)] + [
        (one.author, one.cells[CELLS[name]]) for one in independent(ASSIGNMENT) if CELLS[name] in one.cells
    ]
    for who, source in honest:
        assert disagreements(name, source) == {}, who


MISREADINGS: list[tuple[str, str, str, str]] = [
    # (part, why, text of the instructor's solution, its replacement)
]


@pytest.mark.parametrize(("name", "why", "old", "new"), MISREADINGS, ids=[m[1][:60] for m in MISREADINGS])
def test_misreadings_are_caught(name: str, why: str, old: str, new: str) -> None:
    source = solution(name)
    assert old in source, f"{why}: the solution no longer holds {old!r}"
    assert disagreements(name, source.replace(old, new, 1)), f"no family catches: {why}"
