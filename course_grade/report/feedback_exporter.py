"""The feedback nbgrader itself writes (`nbgrader generate_feedback`, the formgrader's button), made as safe as
course-grade's: the course's nbgrader_config.py names `SafeFeedbackExporter` as GenerateFeedback's exporter."""

from __future__ import annotations

from typing import Any

from nbconvert.exporters import HTMLExporter

from course_grade.report.safe_html import clean_feedback


class SafeFeedbackExporter(HTMLExporter):
    """nbgrader's feedback exporter (HTML, its `feedback` template) with the page sanitised and the
    Content-Security-Policy set (`clean_feedback`): no learner markup runs on it."""

    def from_notebook_node(self, nb: Any, resources: Any = None, **kw: Any) -> Any:
        """The page as HTMLExporter renders it, sanitised."""
        output, resources = super().from_notebook_node(nb, resources, **kw)
        return clean_feedback(output), resources
