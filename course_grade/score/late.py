"""Due dates and late penalties as nbgrader has them, applied by the one process that writes the gradebook.

nbgrader keeps an assignment's `duedate` and a per-student `extension` (`SubmittedAssignment.extension`,
added to the due date) and, in `autograde`, lets the course's late-submission plugin
(`AssignLatePenalties.plugin_class`, by default `nbgrader.plugins.LateSubmissionPlugin` with
`penalty_method` "none" or "zero") set each notebook's `late_submission_penalty`. The workers autograde
against a template gradebook that holds no student, so no extension, and score before the grader
recomputes; `assign_late_penalties` runs the same plugin again on the real gradebook, with the real
extension and the final scores, as nbgrader's `AssignLatePenalties` does.
"""

from __future__ import annotations

import copy
import datetime
from typing import Any

from nbgrader.api import Gradebook  # type: ignore[import-untyped]
from nbgrader.preprocessors import AssignLatePenalties  # type: ignore[import-untyped]
from traitlets.config import Config


def due(submission: Any) -> datetime.datetime | None:
    """A submission's due date: the assignment's plus the student's extension; None without a due date.

    nbgrader's own `SubmittedAssignment.duedate` raises when an extension is set and the due date is not.
    """
    duedate = submission.assignment.duedate
    if duedate is None:
        return None
    extended: datetime.datetime = (
        duedate + submission.extension if submission.extension is not None else duedate
    )
    return extended


def seconds_late(submission: Any) -> float:
    """Seconds past the (extended) due date: 0 when on time, or without a due date or a timestamp."""
    duedate = due(submission)
    if duedate is None or submission.timestamp is None:
        return 0.0
    return max(0.0, float((submission.timestamp - duedate).total_seconds()))


def late_plugin(config: Config) -> Any:
    """The course's late-submission plugin, built from its configuration as nbgrader's autograde builds it."""
    step = AssignLatePenalties(config=copy.deepcopy(config))
    step.init_plugin()
    return step.plugin_inst


def assign_late_penalties(gradebook: Gradebook, assignment: str, student: str, plugin: Any) -> float:
    """Set each notebook's late penalty of one submission from `plugin`, as nbgrader does; return their sum.

    On time (or no due date, or no timestamp): no penalty. Late: the plugin's penalty for the notebook's
    score and the seconds late, kept within [0, the notebook's score] (nbgrader's `_check_late_penalty`).
    The caller holds the writer lock; this commits.
    """
    submission = gradebook.find_submission(assignment, student)
    late = seconds_late(submission)
    total = 0.0
    for notebook in submission.notebooks:
        penalty = None
        if late > 0:
            penalty = plugin.late_submission_penalty(student, float(notebook.score), late)
            if penalty is not None:
                penalty = min(max(float(penalty), 0.0), float(notebook.score))
        notebook.late_submission_penalty = penalty
        total += penalty or 0.0
    gradebook.db.commit()
    return total
