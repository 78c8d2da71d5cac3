"""The quizzes' questions by notebook, their keys (found at run time) and what the self-check says of a value."""

from __future__ import annotations

import importlib

from course_lib.quiz.n01_envelope import QUESTIONS as ENVELOPE
from course_lib.quiz.n02_dispatcher import QUESTIONS as DISPATCHER
from course_lib.quiz.n03_loop import QUESTIONS as LOOP
from course_lib.quiz.n04_wire import QUESTIONS as WIRE
from course_lib.quiz.n05_failures import QUESTIONS as FAILURES
from course_lib.quiz.n06_security import QUESTIONS as SECURITY
from course_lib.quiz.n07_capstone import QUESTIONS as CAPSTONE
from course_lib.quiz.question import Key, Question, same

QUIZZES: dict[str, tuple[Question, ...]] = {
    "01_envelope": ENVELOPE,
    "02_dispatcher": DISPATCHER,
    "03_loop": LOOP,
    "04_wire": WIRE,
    "05_failures": FAILURES,
    "06_security": SECURITY,
    "07_capstone": CAPSTONE,
}
"""notebook -> its checkpoint questions, in order: question k is answered by `qk` in the answer cell."""

ANSWERS_MODULE = "course_lib.quiz_answers.n{}"
"""Where a notebook's key lives: `course_lib.quiz_answers.n01_envelope` (a key, see `course_lib.quiz`)."""


def answers(notebook: str) -> tuple[Key, ...] | None:
    """The key of `notebook`'s quiz, one `Key` per question; None when this edition does not publish it."""
    try:
        module = importlib.import_module(ANSWERS_MODULE.format(notebook))
    except ModuleNotFoundError:
        return None
    return tuple(module.ANSWERS)


def _show(value: object) -> str:
    """A value as the learner writes it in the answer cell."""
    return repr(value).replace("'", '"')


def feedback(notebook: str, number: int, value: object) -> str:
    """What the self-check says about `value` as the answer to question `number` (from 1), as plain text."""
    question = QUIZZES[notebook][number - 1]
    if value is None or value == [] or value == "":
        return f"{number}: not answered yet"
    if not question.fits(value):
        return f"{number}: answer with {question.form()}"
    keys = answers(notebook)
    if keys is None:
        return (
            f"{number}: write q{number} = {_show(value)} in the answer cell below; "
            "the answers come with the published edition"
        )
    key = keys[number - 1]
    if same(question, value, key.value):
        return f"{number}: right"
    return f"{number}: not this one. The idea: {key.rule}"
