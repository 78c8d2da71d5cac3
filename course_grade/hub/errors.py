"""The hub's one error: what cannot be set up, said so the instructor can fix it."""

from __future__ import annotations

from course_grade.course import CourseError


class HubError(CourseError):
    """The hub cannot be laid out or started here (not root, no shared interpreter, a name taken, ...)."""
