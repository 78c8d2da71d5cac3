"""Independent answers keep full marks: correct work written from the prose alone loses no test cell, hidden
and differential checks included (the forked shells judge the oracle's calls as the trusted checks do).

A test cell an independent answer fails means one of: the answer breaks a stated rule (fix the answer, and say
which sentence), the prose leaves the rule unstated (state it), or a hidden check asks what the contract leaves
open (stop asking it)."""

from __future__ import annotations

import pytest

from course_grade.cells import is_quiz
from grading.build_notebooks import GRADING, assignments
from grading.independent_answers import IndependentAnswer, independent
from tests.support.forked_cells import ForkedCells
from tests.support.notebook_runner import instructor_notebook, with_cell_replaced, without_demos

ANSWERS = [(name, answer) for name in assignments() for answer in independent(name)]


@pytest.mark.parametrize(("name", "answer"), ANSWERS, ids=[f"{n}-{a.author}" for n, a in ANSWERS])
def test_an_independent_answer_keeps_every_point(
    name: str, answer: IndependentAnswer, forked: ForkedCells
) -> None:
    notebook = without_demos(instructor_notebook(name))
    for grade_id, source in answer.cells.items():
        notebook = with_cell_replaced(notebook, grade_id, source)
    results = forked.results(notebook, GRADING / "source" / name)
    lost = sorted(grade_id for grade_id, passed in results.items() if not passed and not is_quiz(grade_id))
    assert not lost, f"{name} ({answer.author}) loses {lost}"
