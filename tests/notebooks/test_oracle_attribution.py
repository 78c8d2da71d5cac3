"""A differential family fails a wrong answer only in a cell that answer names: each family compares what its
sentence states, so a rule the answer does not break costs it no cell and its feedback names no rule it kept.

Audited so far: the notebooks in `AUDITED`. The others still lose some cells they do not name;
`python3 course.py differential --answers` lists them (`ALSO COSTS`).
"""

from __future__ import annotations

import pytest

from course_grade.cells import quiz_id
from course_grade.score.oracle import judge as judging
from grading.differential import unnamed_losses
from grading.wrong_answers import published

AUDITED = ("01_envelope",)


@pytest.fixture(autouse=True)
def no_shrinking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Which families fail is what these tests read: the first input found is reported as it is."""
    monkeypatch.setattr(judging, "SHRINK_SECONDS", 0.0)


@pytest.mark.parametrize("assignment", AUDITED)
def test_a_wrong_answer_loses_only_the_differential_cells_it_names(assignment: str) -> None:
    found = {
        one.why: lost
        for one in published(assignment)
        if one.cell != quiz_id(assignment) and (lost := unnamed_losses(assignment, one))
    }
    assert not found, f"{assignment}: differential families fail cells these answers do not name: {found}"


def test_a_family_failing_a_cell_the_answer_does_not_name_is_found() -> None:
    shallow = next(one for one in published("01_envelope") if one.why.startswith("returns a shallow copy"))
    unnamed = shallow._replace(fails=())
    assert unnamed_losses("01_envelope", unnamed) == {"copy": "test_parse_envelope_copy"}
