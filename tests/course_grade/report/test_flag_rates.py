"""The review flags hold to their measured rates (issue 32, item 3): on honest work (the instructor's solutions,
the catalogue's correct variants, the independent answers of grading/independent_answers) at most 2% are
flagged, and at least 95% of copies (of the reference, the instructor's solution, a classmate; verbatim,
renamed, reformatted, reordered) are caught, with each assignment's threshold of report/similarity.py.

The similarity computation only (copydetect, as the review runs it), no grading: benchmarks/flag_rates.py.
"""

from __future__ import annotations

import pytest

from benchmarks.flag_rates import ASSIGNMENTS, Rates, measure
from course_grade.report.similarity import THRESHOLD, THRESHOLDS, threshold_for
from grading.independent_answers import independent


@pytest.fixture(scope="module")
def rates() -> list[Rates]:
    return [measure(assignment) for assignment in ASSIGNMENTS]


def test_every_assignment_has_a_measured_threshold_and_three_independent_answers() -> None:
    assert sorted(THRESHOLDS) == ASSIGNMENTS
    assert all(len(independent(assignment)) >= 3 for assignment in ASSIGNMENTS)
    assert threshold_for("not_an_assignment") == THRESHOLD


def test_at_most_two_percent_of_honest_work_is_flagged(rates: list[Rates]) -> None:
    honest = sum(len(r.honest) for r in rates)
    flagged = {r.assignment: [n for n, s in r.honest.items() if s >= r.threshold] for r in rates}
    static = {r.assignment: {n: f for n, f in r.static.items() if f} for r in rates}
    assert honest >= 7 * 5
    assert sum(r.false_positives for r in rates) <= 0.02 * honest, (flagged, static)


def test_at_least_95_percent_of_copies_are_caught(rates: list[Rates]) -> None:
    copied = sum(len(r.copied) for r in rates)
    missed = {r.assignment: [n for n, s in r.copied.items() if s < r.threshold] for r in rates}
    assert sum(r.caught for r in rates) >= 0.95 * copied, missed


def test_one_threshold_of_point_six_for_all_flagged_honest_work() -> None:
    """The measurement that set the thresholds: the old single threshold flags honest 04 and 06 answers."""
    assert measure("04_wire", THRESHOLD).false_positives > 0
    assert measure("06_security", THRESHOLD).false_positives > 0
