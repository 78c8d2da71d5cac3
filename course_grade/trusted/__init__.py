"""Trusted verdicts: the instructor's tests run in the grader's process, the learner's code in its own.

`check_notebook` gives the verdict of every test cell of one submitted notebook; `reconcile` turns
nbgrader's scores and those verdicts into the scores to record and the notes to show.
"""

from course_grade.trusted.runner import CellVerdict, NotebookVerdict, check_notebook
from course_grade.trusted.session import Wrap, identity

__all__ = ["CellVerdict", "NotebookVerdict", "Wrap", "check_notebook", "identity"]
