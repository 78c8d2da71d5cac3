"""Jobs and results travel between processes without nbgrader: only the process that runs a job needs it."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from course_grade.course import REPOSITORY_COURSE, Course
from course_grade.run.jobs import AutogradeJob, FeedbackJob, Settings, pack_config

RECEIVE = """
import pickle, sys
import course_grade.run.cluster.task
job, settings, graded, rendered = pickle.loads(sys.stdin.buffer.read())
print(job.student, settings.course.course_id, graded.notes[0].text, rendered.error,
      sorted(name for name in sys.modules if name.split(".")[0] == "nbgrader"))
"""


def test_a_dask_worker_passes_jobs_and_results_along_without_importing_nbgrader(tmp_path: Path) -> None:
    """A Dask worker only hands a job to its watchdog's child and the result back: importing the task module and
    unpickling a job, its settings and its results must not cost it nbgrader's second of imports."""
    course = Course.open(REPOSITORY_COURSE)
    job = AutogradeJob("ann", "01_envelope", {"01_envelope.ipynb": "hash"})
    sent = pickle.dumps(
        (job, Settings(course, tmp_path, b"template", packed_config=pack_config(course.config())), job.failed("why"),
         FeedbackJob("ann", "01_envelope").failed("lost"))
    )  # fmt: skip
    found = subprocess.run(
        [sys.executable, "-c", RECEIVE], input=sent, capture_output=True, check=True, timeout=120
    )
    assert found.stdout.decode().split() == ["ann", course.course_id, "why", "lost", "[]"]


def test_a_process_started_from_the_command_imports_it_again_without_the_grader() -> None:
    """multiprocessing starts a local Dask worker (or a watchdog's child) by running the parent's main script
    again as `__mp_main__`: the `course-grade` script must cost such a process neither nbgrader nor Dask."""
    script = Path(sys.executable).parent / "course-grade"
    probe = (
        "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__mp_main__'); "
        "print(sorted({name.split('.')[0] for name in sys.modules} & {'nbgrader', 'distributed', 'nbconvert'}))"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe, str(script)], capture_output=True, text=True, check=True, timeout=120
    )
    assert found.stdout.split() == ["[]"]
    usage = subprocess.run(
        [sys.executable, "-m", "course_grade", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert usage.stdout.startswith("usage: course-grade")


def test_a_job_is_sent_its_own_assignments_library_only(tmp_path: Path) -> None:
    """Each job travels with the settings of its assignment: not the learners' libraries of every other one."""
    envelope, loop = object(), object()
    settings = Settings(
        Course.open(REPOSITORY_COURSE), tmp_path, b"template",
        libraries={"01_envelope": envelope, "03_loop": loop},  # type: ignore[dict-item]
    )  # fmt: skip
    assert settings.for_assignment("03_loop").libraries == {"03_loop": loop}
    assert settings.for_assignment("02_dispatcher").libraries == {}  # graded with the instructor's library
    assert settings.for_assignment("03_loop").template == b"template"
    assert settings.libraries == {"01_envelope": envelope, "03_loop": loop}
