"""The worker pool and what travels to its workers."""

from __future__ import annotations

import pickle
from pathlib import Path

import psutil  # type: ignore[import-untyped]

from course_grade.course import REPOSITORY_COURSE, Course
from course_grade.run.jobs import AutogradeJob, Settings
from course_grade.run.pool import Pool
from tests.support.pool_jobs import Held, Pid, Sleep, Spin


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


def _one(job: object, tmp_path: Path, deadline: float = 1, wall_factor: float = 10) -> object:
    with Pool(1, deadline, tmp_path, wall_factor) as pool:
        [result] = list(pool.run([job], Settings(Course.open(REPOSITORY_COURSE), tmp_path)))  # type: ignore[list-item]
    return result


def test_a_job_that_computes_past_its_cpu_time_is_stopped(tmp_path: Path) -> None:
    assert "used more than 1 s of CPU time" in str(_one(Spin(), tmp_path))


def test_a_job_that_sleeps_is_stopped_at_the_wall_clock_cap(tmp_path: Path) -> None:
    assert "longer than 3 s in total" in str(_one(Sleep(), tmp_path, wall_factor=3))


def test_a_job_starved_of_cpu_time_is_not_stopped_at_its_limit(tmp_path: Path) -> None:
    """Held stopped for 2 s, as a loaded machine would starve it, it outlives its 1 s limit in wall time."""
    assert _one(Held(2), tmp_path) == "finished"


def test_a_pool_started_ahead_grades_on_the_workers_it_started(tmp_path: Path) -> None:
    """`start` brings every worker up before the first job (a Dask worker's warm-up does), and the jobs then
    run on those workers rather than on new ones."""
    with Pool(2, 60, tmp_path) as pool:
        pool.start()
        started = {child.pid for child in psutil.Process().children(recursive=True)}  # forked by its server
        results = set(
            pool.run(
                [Pid(0.5), Pid(0.5), Pid(0.5), Pid(0.5)], Settings(Course.open(REPOSITORY_COURSE), tmp_path)
            )
        )  # type: ignore[list-item]
    assert len(results) == 2 and results <= started
