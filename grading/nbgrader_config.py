"""nbgrader configuration for the course; `grading/` is the course directory."""

import os

from nbgrader.converters.autograde import Autograde
from nbgrader.converters.generate_assignment import GenerateAssignment
from nbgrader.converters.generate_feedback import GenerateFeedback
from nbgrader.preprocessors import ClearSolutions

from course_grade.release.stubs import CODE_STUB, NamedStubs
from course_grade.report.feedback_exporter import SafeFeedbackExporter
from course_grade.run.hardened import HideHiddenTests
from course_grade.score.guard import CourseGradeOnly

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (nbgrader injects get_config)

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "tool-call-boundary"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(c.CourseDirectory.root, "gradebook.db")

# The learners' versions: solutions become a stub that fails loudly, hidden tests are removed.
# The stub names its exercise ("Part B: ask_approver is not written yet ..."), and every cell that fails
# until the exercise is written is tagged raises-exception, so JupyterLab's Run All shows the message
# and goes on to the later demos instead of stopping dead at the first unwritten exercise.
c.ClearSolutions.code_stub = {"python": CODE_STUB}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.GenerateAssignment.preprocessors = [
    NamedStubs if step is ClearSolutions else step
    for step in GenerateAssignment.class_traits()["preprocessors"].default()
]

# Grading runs learners' code: bound every cell and the output it may produce.
c.Execute.timeout = 60
c.Execute.interrupt_on_timeout = True
c.LimitOutput.max_lines = 500
c.LimitOutput.max_traceback = 50

# Grading goes through course-grade (sandbox, trusted checks, the learners' library): nbgrader's own autograde
# (the command, and the formgrader's Autograde button) stops before any learner code runs and names the
# command to run; feedback nbgrader writes (generate_feedback, the formgrader's button) hides the hidden tests
# and is sanitised as course-grade's is.
c.Autograde.sanitize_preprocessors = [
    CourseGradeOnly,
    *Autograde.class_traits()["sanitize_preprocessors"].default(),
]
c.GenerateFeedback.preprocessors = [
    *GenerateFeedback.class_traits()["preprocessors"].default(),
    HideHiddenTests,
]
c.GenerateFeedback.exporter_class = SafeFeedbackExporter  # no learner markup runs on the page

# Missing or edited test cells are restored from the instructors' versions.
c.Autograde.create_student = True
c.OverwriteCells.add_missing_cells = True
