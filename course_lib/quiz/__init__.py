"""Every notebook's checkpoint quiz: its questions (this package), its answers (a key), and a self-check widget.

A quiz is graded like any part: the learner writes each answer as a value in the notebook's answer cell
(`q1 = "B"`, `q2 = ["A", "C"]`, `q3 = 4`), and one test cell per question checks it. The questions live in
this package, one module per notebook (`course_lib.quiz.n01_envelope`, ...), and nowhere else:
`grading/quiz_cells.py` writes the quiz's cells (questions, answer cell, tests) into each instructor notebook
from them, and `python3 course.py build --check` fails when a notebook's quiz is stale.

The answers are a key, like a reference implementation: `course_lib/quiz_answers/<notebook>.py` is listed in
`course_grade.release.keys.KEYS` under its assignment, so a learners' edition holds it only once the
assignment's keys are published. This module never imports it by name (the edition's import check reads
`import` statements): `answers()` looks it up at run time and returns None while it is absent.

`self_check("01_envelope")` shows the questions as widgets with a Check button. It never writes `q1`: the
graded value is the one in the answer cell. Headless (nbclient, nbval, nbgrader; see `course_lib.frontend`) it
prints one fixed line instead, so a notebook's stored output stays the same from run to run.
"""

from course_lib.quiz.check import QUIZZES, answers, feedback
from course_lib.quiz.question import Key, Question
from course_lib.quiz.widget import self_check

__all__ = ["QUIZZES", "Key", "Question", "answers", "feedback", "self_check"]
