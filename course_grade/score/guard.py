"""nbgrader's own entry points in this course: its autograde refuses unless course-grade runs it.

An instructor can press the formgrader's **Autograde** or type `nbgrader autograde`. Plain nbgrader would run
the learner's code with no sandbox, with the answer keys importable and the hidden tests inside the learner's
kernel, and a later **Generate feedback** would show those hidden tests. The course's `nbgrader_config.py`
therefore puts `CourseGradeOnly` first among Autograde's preprocessors, so any autograde stops before a
learner's cell runs, with a message naming the command to run; `course-grade` sets
`CourseGradeOnly.allowed` in the configuration it builds (`course_grade.course.Course.config`). The same file
adds `HideHiddenTests` to GenerateFeedback's preprocessors, so feedback written by nbgrader hides the hidden
tests as course-grade's does.
"""

from __future__ import annotations

from typing import Any

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

REFUSAL = (
    "This course grades with course-grade, not with nbgrader's autograde (nor the formgrader's Autograde "
    "button): course-grade runs each learner's code in a sandbox, against the learners' library, with the "
    "hidden tests outside the learner's kernel. In a terminal, in the course directory, run: "
    "course-grade autograde submitted {assignment}   (or `course-grade run submitted {assignment}`, "
    "which also writes the feedback, grades.csv and the report)."
)


class AutogradeRefused(RuntimeError):
    """nbgrader's autograde was started outside course-grade (the instructor's tool choice, not a learner's)."""


class CourseGradeOnly(Preprocessor):
    """Stop nbgrader's autograde before any learner code runs, unless course-grade started it."""

    enabled = Bool(True)  # nbconvert's preprocessors are off unless told otherwise
    allowed = Bool(False, help="Set by course-grade in the configuration it builds.").tag(config=True)

    def preprocess(self, nb: Any, resources: Any) -> Any:
        """Refuse, naming the command to run, unless allowed."""
        if not self.allowed:
            assignment = resources.get("nbgrader", {}).get("assignment", "ASSIGNMENT")
            self.log.error(REFUSAL.format(assignment=assignment))  # a line of its own in the formgrader's log
            raise AutogradeRefused(REFUSAL.format(assignment=assignment))
        return nb, resources
