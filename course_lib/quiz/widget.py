"""The quiz's self-check in JupyterLab: the questions as widgets and a Check button that never writes `q1`."""

from __future__ import annotations

import html
import importlib
import re
from typing import Any

from course_lib.frontend import is_interactive
from course_lib.quiz.check import QUIZZES, feedback
from course_lib.quiz.question import Question


def _inline(text: str) -> str:
    """Markdown's `code` spans and *emphasis* as HTML, the rest escaped."""
    escaped = html.escape(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return re.sub(r"\*([^*]+)\*", r"<em>\1</em>", escaped)


def _plain(text: str) -> str:
    """Markdown as plain text (an option's label)."""
    return text.replace("`", "")


def self_check(notebook: str) -> Any:
    """Show `notebook`'s quiz as widgets with a Check button (in JupyterLab); headless, print one fixed line.

    Checking compares what is clicked with the key when the edition publishes it (right, or the idea missed),
    and otherwise says which value to write in the answer cell. It never writes `q1`, `q2`, ...
    """
    questions = QUIZZES[notebook]
    if not is_interactive():
        print(
            f"Self-check: {len(questions)} questions. Open this notebook in JupyterLab to click your answers "
            "here; what counts is the answer cell below."
        )
        return None
    widgets: Any = importlib.import_module("ipywidgets")
    inputs: list[tuple[Question, Any]] = []
    rows = []
    for number, question in enumerate(questions, start=1):
        rows.append(widgets.HTML(_question_html(number, question), layout=widgets.Layout(width="100%")))
        if question.kind == "choice":  # the options are read above; the buttons carry their letters only
            field = widgets.ToggleButtons(
                options=list(question.letters), value=None, tooltips=[_plain(o) for o in question.options],
                style={"button_width": "3em"},
            )  # fmt: skip
        elif question.kind == "choices":
            field = widgets.HBox(
                [
                    widgets.Checkbox(
                        description=letter, value=False, indent=False, layout=widgets.Layout(width="4em")
                    )
                    for letter in question.letters
                ]
            )
        else:
            field = widgets.Text(placeholder="a whole number")
        rows.append(field)
        inputs.append((question, field))
    button = widgets.Button(description="Check", button_style="primary")
    verdicts = widgets.HTML()

    def check(_: object) -> None:
        lines = [
            feedback(notebook, number, _read(question, field))
            for number, (question, field) in enumerate(inputs, start=1)
        ]
        verdicts.value = "<br>".join(html.escape(line) for line in lines)

    button.on_click(check)
    box = widgets.VBox([*rows, button, verdicts])
    box.add_class("course-quiz")
    return box


def _question_html(number: int, question: Question) -> str:
    """A question and its lettered options as HTML (they wrap, and code reads as code)."""
    options = "".join(
        f"<li><b>{letter}.</b> {_inline(text)}</li>"
        for letter, text in zip(question.letters, question.options, strict=True)
    )
    listed = (
        f'<ul style="list-style: none; padding-left: 1em; margin: 0.2em 0">{options}</ul>' if options else ""
    )
    return f'<div style="white-space: normal"><b>{number}.</b> {_inline(question.text)}{listed}</div>'


def _read(question: Question, field: Any) -> object:
    """What the learner clicked or typed for `question`, as the value they would write in the answer cell."""
    if question.kind == "choice":
        return field.value
    if question.kind == "choices":
        return [letter for letter, box in zip(question.letters, field.children, strict=True) if box.value]
    return _number(field.value)


def _number(text: str) -> object:
    """A whole number typed in a text field, or the text itself when it is none."""
    try:
        return int(text.strip())
    except ValueError:
        return text.strip()
