"""Every notebook's checkpoint quiz is a graded part: a runnable stub that scores nothing, the key that scores
every point, and a wrong value that loses exactly its question's point with feedback naming the idea, never the
value. The quiz cells only need the answers, so they run here in a plain namespace, without a kernel."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import nbformat
import pytest

from course_grade.cells import is_quiz, is_quiz_answer, quiz_id
from course_grade.score.hidden import verdict_at
from course_lib.quiz import QUIZZES, answers, feedback
from grading import quiz_cells
from grading.build_notebooks import GRADING, LEARNERS, assignments
from grading.wrong_answers import quiz_wrong_answers

NAMES = assignments()


def _cells(path: Path) -> tuple[str, dict[str, str]]:
    """The quiz's answer cell and its test cells (grade_id -> source) of the notebook at `path`."""
    cells = nbformat.read(path, as_version=4).cells
    marks = [(cell.metadata.get("nbgrader", {}).get("grade_id", ""), cell.source) for cell in cells]
    answer = next(source for grade_id, source in marks if is_quiz_answer(grade_id))
    return answer, {
        grade_id: source for grade_id, source in marks if is_quiz(grade_id) and not is_quiz_answer(grade_id)
    }


def _failures(answer: str, tests: dict[str, str]) -> dict[str, str | None]:
    """Run the answer cell, then each test cell: grade_id -> the feedback line of a failing hidden check, the
    visible failure's message, or nothing for a cell that passes."""
    namespace: dict[str, object] = {}
    exec(compile(answer, "<answers>", "exec"), namespace)  # noqa: S102 - the course's own cells
    found: dict[str, str | None] = {}
    for grade_id, source in tests.items():
        try:
            exec(compile(source, grade_id, "exec"), dict(namespace))  # noqa: S102
        except AssertionError as error:
            line = traceback.extract_tb(sys.exc_info()[2])[-1].lineno
            found[grade_id] = verdict_at(source, line, "AssertionError") or str(error)
    return found


@pytest.mark.parametrize("name", NAMES)
def test_every_notebook_has_a_current_quiz_of_four_to_six_questions(name: str) -> None:
    assert 4 <= len(QUIZZES[name]) <= 6
    assert not quiz_cells.stale(GRADING / "source" / name / f"{name}.ipynb"), (
        "run python3 course.py build " + name
    )


@pytest.mark.parametrize("name", NAMES)
def test_the_learners_stub_runs_and_scores_nothing(name: str) -> None:
    answer, tests = _cells(LEARNERS / f"{name}.ipynb")
    assert "None" in answer and "NotImplementedError" not in answer
    failures = _failures(answer, tests)
    assert set(failures) == set(tests) and len(tests) == len(QUIZZES[name])
    assert all("is not answered yet" in str(message) for message in failures.values()), failures


@pytest.mark.parametrize("name", NAMES)
def test_the_instructors_answers_score_every_point(name: str) -> None:
    assert _failures(*_cells(GRADING / "source" / name / f"{name}.ipynb")) == {}


@pytest.mark.parametrize("name", NAMES)
def test_a_wrong_value_loses_its_point_only_and_its_feedback_names_the_idea_not_the_value(name: str) -> None:
    _, tests = _cells(GRADING / "source" / name / f"{name}.ipynb")
    keys = answers(name)
    assert keys is not None
    for wrong in quiz_wrong_answers(name)[1:]:
        failures = _failures(wrong.code, tests)
        assert set(failures) == set(wrong.fails), wrong.why
        (grade_id,) = wrong.fails
        key = keys[int(grade_id.removeprefix(f"{quiz_id(name)}_q")) - 1]
        line = str(failures[grade_id])
        assert line.startswith("hidden test 1 of 1 failed (AssertionError); the rule it checks: "), line
        assert key.rule in line and repr(key.value) not in line and f'"{key.value}"' not in line


@pytest.mark.parametrize("name", NAMES)
def test_the_published_quiz_wrong_answers_lose_every_point_when_blank(name: str) -> None:
    blank, *_ = quiz_wrong_answers(name)
    _, tests = _cells(GRADING / "source" / name / f"{name}.ipynb")
    assert set(_failures(blank.code, tests)) == set(tests) == set(blank.fails)


def test_the_self_check_names_the_value_to_write_until_the_answers_are_published(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert feedback("02_dispatcher", 1, 9) == "1: right"
    assert feedback("02_dispatcher", 1, 10).startswith("1: not this one. The idea: UTF-8")
    assert feedback("02_dispatcher", 6, ["C", "B", "A"]) == "6: right"
    assert feedback("02_dispatcher", 2, "Z") == '2: answer with one of "A", "B", "C", "D"'
    monkeypatch.setattr("course_lib.quiz.check.answers", lambda notebook: None)
    assert feedback("02_dispatcher", 2, "B") == (
        '2: write q2 = "B" in the answer cell below; the answers come with the published edition'
    )
