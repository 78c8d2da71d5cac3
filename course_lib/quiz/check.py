"""The quizzes' questions by notebook, their keys (found at run time) and what the self-check says of a value."""

from __future__ import annotations

import importlib

from course_lib.quiz import (
    n01_envelope,
    n02_dispatcher,
    n03_loop,
    n04_wire,
    n05_failures,
    n06_security,
    n07_capstone,
)
from course_lib.quiz.question import Key, Question, same

QUIZZES: dict[str, tuple[Question, ...]] = {
    "01_envelope": n01_envelope.QUESTIONS,
    "02_dispatcher": n02_dispatcher.QUESTIONS,
    "03_loop": n03_loop.QUESTIONS,
    "04_wire": n04_wire.QUESTIONS,
    "05_failures": n05_failures.QUESTIONS,
    "06_security": n06_security.QUESTIONS,
    "07_capstone": n07_capstone.QUESTIONS,
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
