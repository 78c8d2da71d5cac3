"""nbgrader's automatic results for one submission, as plain data: what the scoring reads and records.

The worker reads them from its scratch gradebook (`gradebook.read_results`), the trusted checks withhold
points in them (`trusted.grading`), and the one writer records them in the real gradebook (`gradebook.record`).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class NotebookGrades:
    """nbgrader's automatic results for one autograded notebook."""

    name: str
    """The notebook's name, without .ipynb."""
    scores: Mapping[str, float | None]
    """grade_id -> auto_score of every graded cell."""
    comments: Mapping[str, str | None]
    """grade_id -> auto_comment of every solution and task cell."""
    late_penalty: float | None = None
    """The late-submission penalty nbgrader's plugin assigned."""


@dataclass(frozen=True)
class SubmissionGrades:
    """nbgrader's automatic results for one submitted assignment; notebooks absent here score 0."""

    student: str
    assignment: str
    timestamp: datetime.datetime | None = None
    notebooks: tuple[NotebookGrades, ...] = field(default=())
