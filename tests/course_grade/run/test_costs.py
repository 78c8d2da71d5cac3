"""Longest jobs first: each assignment's cost measured in the last run, or estimated from its size."""

from __future__ import annotations

from pathlib import Path

from course_grade.notes import Note
from course_grade.run.costs import Timings, expected, longest_first, read_costs, save_costs
from course_grade.run.jobs import AutogradeJob, AutogradeResult
from course_grade.score.submission_grades import SubmissionGrades


def _result(assignment: str, seconds: float, failed: bool = False) -> AutogradeResult:
    notes = (Note("grading-failed", "stopped"),) if failed else ()
    return AutogradeResult(SubmissionGrades("ann", assignment), notes, seconds=seconds)


def test_a_measured_cost_decides_the_order_over_the_size() -> None:
    cost = expected({"07": 9.0, "04": 2.0}, {"04": 170_000, "07": 160_000})
    jobs = [AutogradeJob("ann", "04"), AutogradeJob("bob", "07"), AutogradeJob("cy", "04")]
    assert [job.assignment for job in longest_first(jobs, cost)] == ["07", "04", "04"]


def test_an_assignment_never_measured_is_estimated_at_the_others_seconds_per_byte() -> None:
    assert expected({"01": 2.0}, {"01": 100, "02": 300}) == {"01": 2.0, "02": 6.0}


def test_a_failure_tells_nothing_of_the_cost() -> None:
    timings = Timings()
    for result in [_result("01", 2.0), _result("01", 4.0), _result("01", 900.0, failed=True)]:
        timings.add(result)
    assert timings.medians() == {"01": 3.0}


def test_saved_costs_keep_the_assignments_not_graded_this_time(tmp_path: Path) -> None:
    path = tmp_path / "notes" / ".costs.json"
    save_costs(path, {"01": 2.0, "07": 9.0})
    save_costs(path, {"07": 5.0})
    assert read_costs(path) == {"01": 2.0, "07": 5.0}


def test_an_unreadable_costs_file_means_no_cost_known(tmp_path: Path) -> None:
    path = tmp_path / ".costs.json"
    path.write_text('{"01": "slow", "02": -1, "03": 2')
    assert read_costs(path) == {}
    path.write_text('{"01": "slow", "02": -1, "03": 2}')
    assert read_costs(path) == {"03": 2.0}
