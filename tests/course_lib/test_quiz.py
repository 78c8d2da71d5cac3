"""The quiz's self-check: widgets with a Check button when a person can click, one fixed line headless."""

from __future__ import annotations

import pytest

from course_lib.quiz import QUIZZES, self_check


def test_headless_it_prints_one_fixed_line_and_shows_no_widget(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert self_check("01_envelope") is None
    assert capsys.readouterr().out == (
        "Self-check: 5 questions. Open this notebook in JupyterLab to click your answers here; "
        "what counts is the answer cell below.\n"
    )


def test_clicking_check_gives_feedback_and_writes_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setenv("COURSE_INTERACTIVE", "1")
    box = self_check("02_dispatcher")
    _, number, _, choice, *_, button, verdicts = box.children  # each question: its text, then its field
    number.value, choice.value = "9", "A"
    button.click()
    lines = verdicts.value.split("<br>")
    assert lines[0] == "1: right" and lines[1].startswith("2: not this one. The idea: ")
    assert len(lines) == len(QUIZZES["02_dispatcher"]) and "q1" not in globals()
