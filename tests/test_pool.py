"""The worker pool and what travels to its workers."""

from __future__ import annotations

import pickle
from pathlib import Path

from course_grade.course import REPOSITORY_COURSE, Course
from course_grade.pool import Pool
from course_grade.workers import AutogradeJob, Settings


def test_the_course_configuration_can_travel_to_a_worker() -> None:
    """The parent reads nbgrader_config.py once and pickles it into every job (no class defined in it)."""
    config = Course.open(REPOSITORY_COURSE).config()
    assert pickle.loads(pickle.dumps(config)) == config


def test_a_job_that_cannot_reach_a_worker_fails_with_its_reason_instead_of_hanging(tmp_path: Path) -> None:
    unpicklable = Settings(Course.open(REPOSITORY_COURSE), tmp_path, elsewhere={"a": lambda: None})  # type: ignore[dict-item]
    with Pool(1, 60, tmp_path) as pool:
        [result] = list(pool.run([AutogradeJob("ann", "01_envelope")], unpicklable))
    [note] = result.notes
    assert note.kind == "grading-failed" and "could not hand this job to a worker" in note.text
