"""Jobs and results travel between processes without nbgrader: only the process that runs a job needs it."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from course_grade.course import REPOSITORY_COURSE, Course
from course_grade.jobs import AutogradeJob, FeedbackJob, Settings, pack_config

RECEIVE = """
import pickle, sys
import course_grade.cluster.task
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
